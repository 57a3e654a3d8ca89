package meson

import (
	"fmt"

	"mesonemu/linux/clk"
)

// MPLL constants (clk-mpll.c, v5.x).
const (
	SDMDen = 16384
	N2Min  = 4
	N2Max  = 511
)

// MPLLFlags are the CLK_MESON_MPLL_* flags.
type MPLLFlags uint8

// MPLL flags. Meson8b's MPLL2 sets neither.
const (
	MPLLRoundClosest   MPLLFlags = 1 << 0
	MPLLSpreadSpectrum MPLLFlags = 1 << 1
)

// MPLL is meson_clk_mpll_ops: rate = parent * 16384 / (16384 * n2 + sdm). It has no
// CLK_SET_RATE_PARENT on Meson8b, so rounding never changes its parent.
type MPLL struct {
	Map        *clk.Regmap
	SDM, SDMEn Parm
	N2         Parm
	SSEn, Misc Parm // Width 0: not on this chip
	Flags      MPLLFlags
}

// Validate checks the field layout.
func (p *MPLL) Validate() error {
	if p.Map == nil {
		return fmt.Errorf("mpll: no regmap: %w", clk.ErrInvalid)
	}
	for _, f := range []struct {
		name string
		p    Parm
	}{{"sdm", p.SDM}, {"sdm_en", p.SDMEn}, {"n2", p.N2}, {"ssen", p.SSEn}, {"misc", p.Misc}} {
		if err := f.p.validate(f.name); err != nil {
			return err
		}
	}
	if !p.SDM.applicable() || !p.SDMEn.applicable() || !p.N2.applicable() {
		return fmt.Errorf("mpll: sdm, sdm_en and n2 are required: %w", clk.ErrInvalid)
	}
	return nil
}

// MPLLRate is rate_from_params: ceil(parent * 16384 / (16384 * n2 + sdm)), an error
// for n2 < 4. The 64-bit quotient is stored into a 32-bit long.
func MPLLRate(parentRate, sdm, n2 uint32) (uint32, error) {
	if n2 < N2Min {
		return 0, fmt.Errorf("mpll n2 %d below %d: %w", n2, N2Min, clk.ErrInvalid)
	}
	divisor := uint64(uint32(SDMDen*n2 + sdm)) // unsigned long
	return uint32((uint64(parentRate)*SDMDen + divisor - 1) / divisor), nil
}

// MPLLParams is params_from_rate: n2 = parent / rate, sdm = the remainder in
// 1/16384ths rounded up (to nearest with MPLLRoundClosest); a carry to 16384 bumps
// n2; n2 is clamped to [4, 511] (sdm 0 below, 16383 above). A rate of 0 is refused
// (Linux divides by zero).
func MPLLParams(rate, parentRate uint32, flags MPLLFlags) (sdm, n2 uint32, err error) {
	if rate == 0 {
		return 0, 0, fmt.Errorf("mpll for 0 Hz: %w", clk.ErrInvalid)
	}
	div := uint64(parentRate) / uint64(rate)
	frac := uint64(parentRate) % uint64(rate) * SDMDen
	if flags&MPLLRoundClosest != 0 {
		sdm = uint32((frac + uint64(rate)/2) / uint64(rate))
	} else {
		sdm = uint32((frac + uint64(rate) - 1) / uint64(rate))
	}
	if sdm == SDMDen {
		sdm = 0
		div++
	}
	switch {
	case div < N2Min:
		return 0, N2Min, nil
	case div > N2Max:
		return SDMDen - 1, N2Max, nil
	}
	return sdm, uint32(div), nil
}

// RecalcRate is mpll_recalc_rate (0 for an invalid n2).
func (p *MPLL) RecalcRate(_ *clk.HW, parentRate uint32) (uint32, error) {
	sdm, err := p.SDM.read(p.Map)
	if err != nil {
		return 0, err
	}
	n2, err := p.N2.read(p.Map)
	if err != nil {
		return 0, err
	}
	rate, err := MPLLRate(parentRate, sdm, n2)
	if err != nil {
		return 0, nil
	}
	return rate, nil
}

// RoundRate is mpll_round_rate: the rate the parameters for rate give. The parent
// rate is only read.
func (p *MPLL) RoundRate(_ *clk.HW, rate uint32, parentRate *uint32) (uint32, error) {
	sdm, n2, err := MPLLParams(rate, *parentRate, p.Flags)
	if err != nil {
		return 0, err
	}
	return MPLLRate(*parentRate, sdm, n2)
}

// SetRate is mpll_set_rate: sdm first, then n2.
func (p *MPLL) SetRate(_ *clk.HW, rate, parentRate uint32) error {
	sdm, n2, err := MPLLParams(rate, parentRate, p.Flags)
	if err != nil {
		return err
	}
	if err := p.SDM.write(p.Map, sdm); err != nil {
		return err
	}
	return p.N2.write(p.Map, n2)
}

// Init is mpll_init: enable the fractional part once, and set ssen / misc where
// the chip has them.
func (p *MPLL) Init(*clk.HW) error {
	if err := p.SDMEn.write(p.Map, 1); err != nil {
		return err
	}
	if p.SSEn.applicable() {
		ss := uint32(0)
		if p.Flags&MPLLSpreadSpectrum != 0 {
			ss = 1
		}
		if err := p.SSEn.write(p.Map, ss); err != nil {
			return err
		}
	}
	if p.Misc.applicable() {
		return p.Misc.write(p.Map, 1)
	}
	return nil
}
