package meson

import (
	"fmt"

	"mesonemu/linux/clk"
)

// RegmapGate is clk_regmap_gate_ops: one enable bit, written with
// regmap_update_bits.
type RegmapGate struct {
	Map          *clk.Regmap
	Off          uint32
	Bit          uint8
	SetToDisable bool // CLK_GATE_SET_TO_DISABLE
}

// Validate checks the bit.
func (g *RegmapGate) Validate() error {
	if g.Map == nil || g.Bit >= 32 || g.Off%4 != 0 {
		return fmt.Errorf("regmap gate +%#x bit %d: %w", g.Off, g.Bit, clk.ErrInvalid)
	}
	return nil
}

func (g *RegmapGate) endisable(enable bool) error {
	set := g.SetToDisable != enable
	bit := uint32(1) << g.Bit
	val := uint32(0)
	if set {
		val = bit
	}
	return g.Map.UpdateBits(g.Off, bit, val)
}

// Enable is clk_regmap_gate_enable.
func (g *RegmapGate) Enable(*clk.HW) error { return g.endisable(true) }

// Disable is clk_regmap_gate_disable.
func (g *RegmapGate) Disable(*clk.HW) error { return g.endisable(false) }

// RegmapDividerRO is clk_regmap_divider_ro_ops: recalc and round only. Note that
// its round_rate only keeps the current divisor when the divider flags include
// CLK_DIVIDER_READ_ONLY; Meson8b's fixed_pll and mpll_prediv do not set it, so a
// round request on them runs the full divider search (it cannot change anything:
// there is no set_rate).
type RegmapDividerRO struct {
	Map   *clk.Regmap
	Off   uint32
	Shift uint8
	Width uint8
	Flags clk.DividerFlags
	Table []clk.DivTable
}

// Validate checks the field.
func (d *RegmapDividerRO) Validate() error {
	if d.Map == nil || d.Width == 0 || d.Width > 16 || int(d.Shift)+int(d.Width) > 32 || d.Off%4 != 0 {
		return fmt.Errorf("regmap divider +%#x shift %d width %d: %w", d.Off, d.Shift, d.Width, clk.ErrInvalid)
	}
	return nil
}

func (d *RegmapDividerRO) field() (uint32, error) {
	return Parm{Off: d.Off, Shift: d.Shift, Width: d.Width}.read(d.Map)
}

// RecalcRate is clk_regmap_div_recalc_rate.
func (d *RegmapDividerRO) RecalcRate(hw *clk.HW, parentRate uint32) (uint32, error) {
	val, err := d.field()
	if err != nil {
		return 0, err
	}
	return clk.DividerRecalcRate(hw, parentRate, val, d.Table, d.Flags, d.Width), nil
}

// RoundRate is clk_regmap_div_round_rate.
func (d *RegmapDividerRO) RoundRate(hw *clk.HW, rate uint32, parentRate *uint32) (uint32, error) {
	if d.Flags&clk.DividerReadOnly != 0 {
		val, err := d.field()
		if err != nil {
			return 0, err
		}
		return clk.DividerRORoundRate(hw, hw.Parent(), rate, parentRate, d.Table, d.Width, d.Flags, val)
	}
	return clk.DividerRoundRate(hw, hw.Parent(), rate, parentRate, d.Table, d.Width, d.Flags), nil
}
