package clk

import "fmt"

// FixedRate is clk-fixed-rate: a root clock (an oscillator) at Rate Hz.
type FixedRate struct {
	Rate     uint32
	Accuracy uint32 // parts per billion
}

// RecalcRate returns the fixed rate.
func (f *FixedRate) RecalcRate(*HW, uint32) (uint32, error) { return f.Rate, nil }

// RecalcAccuracy returns the fixed accuracy.
func (f *FixedRate) RecalcAccuracy(*HW, uint32) (uint32, error) { return f.Accuracy, nil }

// FixedFactor is clk-fixed-factor: parent * Mult / Div.
type FixedFactor struct {
	Mult, Div uint32
}

// Validate refuses a zero factor (Linux would divide by zero).
func (f *FixedFactor) Validate() error {
	if f.Mult == 0 || f.Div == 0 {
		return fmt.Errorf("fixed factor %d/%d: %w", f.Mult, f.Div, ErrInvalid)
	}
	return nil
}

// RecalcRate is clk_factor_recalc_rate: floor(parent * mult / div), in 64 bits.
func (f *FixedFactor) RecalcRate(_ *HW, parentRate uint32) (uint32, error) {
	return uint32(uint64(parentRate) * uint64(f.Mult) / uint64(f.Div)), nil
}

// RoundRate is clk_factor_round_rate: with CLK_SET_RATE_PARENT the parent is asked
// for (rate / mult) * div; the answer p gives (p / div) * mult. All in unsigned
// long arithmetic.
func (f *FixedFactor) RoundRate(hw *HW, rate uint32, parentRate *uint32) (uint32, error) {
	if hw.Flags()&SetRateParent != 0 {
		bestParent := (rate / f.Mult) * f.Div
		*parentRate = hw.Parent().RoundRate(bestParent)
	}
	return (*parentRate / f.Div) * f.Mult, nil
}

// SetRate is clk_factor_set_rate: nothing to program, the parent does the work.
func (f *FixedFactor) SetRate(*HW, uint32, uint32) error { return nil }
