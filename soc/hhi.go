package soc

import (
	"fmt"

	"mesonemu/emu"
)

// MPLL constants of drivers/clk/meson/clk-mpll.c, which describe the divider itself.
const (
	mpllSDMDen = 16384
	mpllN2Min  = 4
)

// HHI is the part of the HHI clock controller the Ethernet path depends on: the
// fixed PLL, the MPLL pre-divider, the fclk_div2 gate and MPLL2. It is an
// emu.Device; the rate methods are the hardware truth the glue block consumes.
type HHI struct{ regDevice }

var _ emu.Device = (*HHI)(nil)

// NewHHI makes the HHI block of chip k at its boot-loader hand-over state. HHI
// registers this model does not declare read as 0 and ignore writes, as do
// undeclared bits. onChange (may be nil) runs after every guest write that changed
// a stored bit, with the machine lock held.
func NewHHI(k Kind, onChange func()) (*HHI, error) {
	b := HHIBlock(k)
	if b == nil {
		return nil, fmt.Errorf("HHI for %v: unknown SoC kind", k)
	}
	return &HHI{newRegDevice(k, "hhi", b, onChange)}, nil
}

// FixedPLLHz is xtal x (m + frac/4096) / n >> od. A pre-divider of 0 stops the PLL
// (0 Hz) instead of dividing by zero.
func (h *HHI) FixedPLLHz() float64 {
	cntl := h.regs.Get(HHIMPLLCntl)
	m, n, od := fldPLLM.Get(cntl), fldPLLN.Get(cntl), fldPLLOD.Get(cntl)
	frac := fldPLLFrac.Get(h.regs.Get(HHIMPLLCntl2))
	if n == 0 {
		return 0
	}
	dco := XtalHz * (float64(m) + float64(frac)/4096) / float64(n)
	return dco / float64(uint32(1)<<od)
}

// MPLLParentHz is the MPLLs' input: the fixed PLL after mpll_prediv (divisor val+1).
func (h *HHI) MPLLParentHz() float64 {
	return h.FixedPLLHz() / float64(fldMPLLPrediv.Get(h.regs.Get(HHIMPLLCntl5))+1)
}

// FclkDiv2Enabled reports the fclk_div2 gate (HHI_MPLL_CNTL6 bit 27).
func (h *HHI) FclkDiv2Enabled() bool { return fldFclkDiv2En.Get(h.regs.Get(HHIMPLLCntl6)) == 1 }

// FclkDiv2Hz is the fixed PLL / 2 when its gate is on, else 0.
func (h *HHI) FclkDiv2Hz() float64 {
	if !h.FclkDiv2Enabled() {
		return 0
	}
	return h.FixedPLLHz() / 2
}

// MPLL2Enabled reports the MPLL2 output gate (HHI_MPLL_CNTL9 bit 14).
func (h *HHI) MPLL2Enabled() bool { return fldMPLL2En.Get(h.regs.Get(HHIMPLLCntl9)) == 1 }

// MPLL2DivHz is the MPLL2 divider's output before the gate:
// parent x 16384 / (16384 n2 + sdm) with sdm_en, parent / n2 without; 0 when n2 < 4
// (the divider has no valid setting there; Linux's recalc reports 0 too).
func (h *HHI) MPLL2DivHz() float64 {
	v := h.regs.Get(HHIMPLLCntl9)
	n2 := fldMPLL2N2.Get(v)
	if n2 < mpllN2Min {
		return 0
	}
	parent := h.MPLLParentHz()
	if fldMPLL2SDMEn.Get(v) == 0 {
		return parent / float64(n2)
	}
	sdm := fldMPLL2SDM.Get(v)
	return parent * mpllSDMDen / (mpllSDMDen*float64(n2) + float64(sdm))
}

// MPLL2Hz is MPLL2 as it leaves the HHI block: MPLL2DivHz when the gate is on, else 0.
func (h *HHI) MPLL2Hz() float64 {
	if !h.MPLL2Enabled() {
		return 0
	}
	return h.MPLL2DivHz()
}

// mpllPulsePs is the high time of MPLL2's raw output as mechanism B assumes it: one
// period of the MPLL's input clock (docs/reference/rgmii-timing.md §6.1, UNCONFIRMED).
func (h *HHI) mpllPulsePs() float64 {
	p := h.MPLLParentHz()
	if p <= 0 {
		return 0
	}
	return 1e12 / p
}
