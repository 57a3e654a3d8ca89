package meson

import (
	"fmt"

	"mesonemu/linux/clk"
)

// PLLRO is meson_clk_pll_ro_ops (clk-pll.c): a PLL the guest only reads, as the
// fixed PLL is: rate = ceil((parent*m + ceil(parent*frac / 2^fracWidth)) / n).
type PLLRO struct {
	Map  *clk.Regmap
	M, N Parm
	Frac Parm // Width 0: no fractional part
}

// Validate checks the field layout.
func (p *PLLRO) Validate() error {
	if p.Map == nil {
		return fmt.Errorf("pll: no regmap: %w", clk.ErrInvalid)
	}
	for _, f := range []struct {
		name string
		p    Parm
	}{{"m", p.M}, {"n", p.N}, {"frac", p.Frac}} {
		if err := f.p.validate(f.name); err != nil {
			return err
		}
	}
	if !p.M.applicable() || !p.N.applicable() {
		return fmt.Errorf("pll: m and n are required: %w", clk.ErrInvalid)
	}
	return nil
}

// PLLRate is __pll_params_to_rate, in 64 bits and stored into an unsigned long.
// n = 0 gives 0 (meson_clk_pll_recalc_rate refuses to divide by it).
func PLLRate(parentRate, m, n, frac uint32, fracWidth uint8) uint32 {
	if n == 0 {
		return 0
	}
	rate := uint64(parentRate) * uint64(m)
	if frac != 0 && fracWidth != 0 {
		fracRate := uint64(parentRate) * uint64(frac)
		den := uint64(1) << fracWidth
		rate += (fracRate + den - 1) / den
	}
	return uint32((rate + uint64(n) - 1) / uint64(n))
}

// RecalcRate is meson_clk_pll_recalc_rate (reads n, m, then frac, in that order).
func (p *PLLRO) RecalcRate(_ *clk.HW, parentRate uint32) (uint32, error) {
	n, err := p.N.read(p.Map)
	if err != nil {
		return 0, err
	}
	m, err := p.M.read(p.Map)
	if err != nil {
		return 0, err
	}
	var frac uint32
	if p.Frac.applicable() {
		if frac, err = p.Frac.read(p.Map); err != nil {
			return 0, err
		}
	}
	return PLLRate(parentRate, m, n, frac, p.Frac.Width), nil
}
