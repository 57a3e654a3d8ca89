package clk

import "fmt"

// Divider is struct clk_divider: divisor field [Shift+Width-1 : Shift] of Reg.
// With DividerReadOnly it registers with clk_divider_ro_ops (no set_rate).
type Divider struct {
	Reg   Reg
	Shift uint8
	Width uint8 // 1..16
	Flags DividerFlags
	Table []DivTable // nil: no table
}

// dividerRO is clk_divider_ro_ops.
type dividerRO struct{ d *Divider }

func (d *Divider) selectOps() Ops {
	if d.Flags&DividerReadOnly != 0 {
		return &dividerRO{d}
	}
	return d
}

// Validate refuses field layouts Linux would shift out of range.
func (d *Divider) Validate() error {
	if err := d.Reg.validate(); err != nil {
		return err
	}
	if d.Width == 0 || d.Width > 16 || int(d.Shift)+int(d.Width) > 32 {
		return fmt.Errorf("divider field shift %d width %d: %w", d.Shift, d.Width, ErrInvalid)
	}
	if d.Flags&DividerHiwordMask != 0 && int(d.Shift)+int(d.Width) > 16 {
		return fmt.Errorf("divider value exceeds LOWORD field: %w", ErrInvalid)
	}
	return nil
}

func (d *Divider) field() (uint32, error) {
	v, err := d.Reg.read()
	if err != nil {
		return 0, err
	}
	return v >> d.Shift & divMask(d.Width), nil
}

// RecalcRate is clk_divider_recalc_rate.
func (d *Divider) RecalcRate(hw *HW, parentRate uint32) (uint32, error) {
	val, err := d.field()
	if err != nil {
		return 0, err
	}
	return DividerRecalcRate(hw, parentRate, val, d.Table, d.Flags, d.Width), nil
}

// RoundRate is clk_divider_round_rate.
func (d *Divider) RoundRate(hw *HW, rate uint32, parentRate *uint32) (uint32, error) {
	if d.Flags&DividerReadOnly != 0 {
		val, err := d.field()
		if err != nil {
			return 0, err
		}
		return DividerRORoundRate(hw, hw.Parent(), rate, parentRate, d.Table, d.Width, d.Flags, val)
	}
	return DividerRoundRate(hw, hw.Parent(), rate, parentRate, d.Table, d.Width, d.Flags), nil
}

// SetRate is clk_divider_set_rate: divisor = ceil(parentRate / rate).
func (d *Divider) SetRate(_ *HW, rate, parentRate uint32) error {
	value, err := DividerGetVal(rate, parentRate, d.Table, d.Width, d.Flags)
	if err != nil {
		return err
	}
	mask := divMask(d.Width)
	var v uint32
	if d.Flags&DividerHiwordMask != 0 {
		v = mask << (d.Shift + 16)
	} else {
		if v, err = d.Reg.read(); err != nil {
			return err
		}
		v &^= mask << d.Shift
	}
	return d.Reg.write(v | value<<d.Shift)
}

func (r *dividerRO) Validate() error { return r.d.Validate() }

func (r *dividerRO) RecalcRate(hw *HW, parentRate uint32) (uint32, error) {
	return r.d.RecalcRate(hw, parentRate)
}

func (r *dividerRO) RoundRate(hw *HW, rate uint32, parentRate *uint32) (uint32, error) {
	return r.d.RoundRate(hw, rate, parentRate)
}
