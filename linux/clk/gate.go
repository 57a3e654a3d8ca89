package clk

import "fmt"

// GateFlags are the CLK_GATE_* flags, with Linux's bit values.
type GateFlags uint8

// Gate flags.
const (
	GateSetToDisable GateFlags = 1 << 0 // the bit gates the clock off when set
	GateHiwordMask   GateFlags = 1 << 1 // write-enable mask in the upper 16 bits
)

// Gate is struct clk_gate: bit Bit of Reg switches the clock. It has no rate ops:
// rate requests pass through to its parent when it has CLK_SET_RATE_PARENT.
type Gate struct {
	Reg   Reg
	Bit   uint8
	Flags GateFlags
}

// Validate refuses a bit outside the register.
func (g *Gate) Validate() error {
	if err := g.Reg.validate(); err != nil {
		return err
	}
	if g.Bit >= 32 || g.Flags&GateHiwordMask != 0 && g.Bit >= 16 {
		return fmt.Errorf("gate bit %d: %w", g.Bit, ErrInvalid)
	}
	return nil
}

// endisable is clk_gate_endisable: readl, set or clear the bit, writel.
func (g *Gate) endisable(enable bool) error {
	set := g.Flags&GateSetToDisable != 0
	set = set != enable
	bit := uint32(1) << g.Bit
	var v uint32
	if g.Flags&GateHiwordMask != 0 {
		v = bit << 16
		if set {
			v |= bit
		}
	} else {
		var err error
		if v, err = g.Reg.read(); err != nil {
			return err
		}
		if set {
			v |= bit
		} else {
			v &^= bit
		}
	}
	return g.Reg.write(v)
}

// Enable is clk_gate_enable.
func (g *Gate) Enable(*HW) error { return g.endisable(true) }

// Disable is clk_gate_disable.
func (g *Gate) Disable(*HW) error { return g.endisable(false) }

// IsEnabled is clk_gate_is_enabled, read from the hardware.
func (g *Gate) IsEnabled(*HW) (bool, error) {
	v, err := g.Reg.read()
	if err != nil {
		return false, err
	}
	if g.Flags&GateSetToDisable != 0 {
		v ^= 1 << g.Bit
	}
	return v&(1<<g.Bit) != 0, nil
}
