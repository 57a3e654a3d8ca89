package meson

import (
	"fmt"

	"mesonemu/emu"
	"mesonemu/linux/clk"
)

// Clock names, as Linux registers them.
const (
	NameXtal        = "xtal"
	NameFixedPLLDCO = "fixed_pll_dco"
	NameFixedPLL    = "fixed_pll"
	NameFClkDiv2Div = "fclk_div2_div"
	NameFClkDiv2    = "fclk_div2"
	NameMPLLPrediv  = "mpll_prediv"
	NameMPLL2Div    = "mpll2_div"
	NameMPLL2       = "mpll2"
)

// Clocks are the provider's clocks on the Ethernet path.
type Clocks struct {
	Xtal, FixedPLLDCO, FixedPLL *clk.Clock
	FClkDiv2Div, FClkDiv2       *clk.Clock
	MPLLPrediv, MPLL2Div, MPLL2 *clk.Clock
}

type clockDef struct {
	init clk.Init
	ops  clk.Ops
	out  **clk.Clock
}

// Register is the clock provider's probe for chip soc: it registers, in this
// order, xtal (24 MHz) -> fixed_pll_dco (read-only PLL: HHI_MPLL_CNTL m, n;
// HHI_MPLL_CNTL2 frac) -> fixed_pll (power-of-two od, read-only) ->
// fclk_div2_div (/2) -> fclk_div2 (gate HHI_MPLL_CNTL6 bit 27, CLK_IS_CRITICAL, so
// it is enabled here), and fixed_pll -> mpll_prediv (HHI_MPLL_CNTL5 bit 12,
// read-only, no CLK_SET_RATE_PARENT) -> mpll2_div (MPLL ops on HHI_MPLL_CNTL9, no
// flags; its init sets sdm_en) -> mpll2 (gate bit 14, CLK_SET_RATE_PARENT).
//
// ASSUMPTION: this order (parents first) only decides the order of siblings in the
// clk_summary; meson8b.c registers by clock ID.
func Register(fw *clk.Framework, bus emu.GuestBus, soc SoC) (*Clocks, error) {
	base, err := soc.HHIBase()
	if err != nil {
		return nil, err
	}
	hhi, err := clk.NewRegmap(bus, base, "hhi")
	if err != nil {
		return nil, fmt.Errorf("meson clocks: %w", err)
	}
	var cs Clocks
	defs := []clockDef{
		{clk.Init{Name: NameXtal}, &clk.FixedRate{Rate: XtalHz}, &cs.Xtal},
		{clk.Init{Name: NameFixedPLLDCO, ParentNames: []string{NameXtal}},
			&PLLRO{Map: hhi,
				M:    Parm{Off: HHIMPLLCntl, Shift: 0, Width: 9},
				N:    Parm{Off: HHIMPLLCntl, Shift: 9, Width: 5},
				Frac: Parm{Off: HHIMPLLCntl2, Shift: 0, Width: 12}},
			&cs.FixedPLLDCO},
		{clk.Init{Name: NameFixedPLL, ParentNames: []string{NameFixedPLLDCO}},
			&RegmapDividerRO{Map: hhi, Off: HHIMPLLCntl, Shift: 16, Width: 2, Flags: clk.DividerPowerOfTwo},
			&cs.FixedPLL},
		{clk.Init{Name: NameFClkDiv2Div, ParentNames: []string{NameFixedPLL}},
			&clk.FixedFactor{Mult: 1, Div: 2}, &cs.FClkDiv2Div},
		{clk.Init{Name: NameFClkDiv2, ParentNames: []string{NameFClkDiv2Div}, Flags: clk.IsCritical},
			&RegmapGate{Map: hhi, Off: HHIMPLLCntl6, Bit: 27}, &cs.FClkDiv2},
		{clk.Init{Name: NameMPLLPrediv, ParentNames: []string{NameFixedPLL}},
			&RegmapDividerRO{Map: hhi, Off: HHIMPLLCntl5, Shift: 12, Width: 1}, &cs.MPLLPrediv},
		{clk.Init{Name: NameMPLL2Div, ParentNames: []string{NameMPLLPrediv}},
			&MPLL{Map: hhi,
				SDM:   Parm{Off: HHIMPLLCntl9, Shift: 0, Width: 14},
				SDMEn: Parm{Off: HHIMPLLCntl9, Shift: 15, Width: 1},
				N2:    Parm{Off: HHIMPLLCntl9, Shift: 16, Width: 9}},
			&cs.MPLL2Div},
		{clk.Init{Name: NameMPLL2, ParentNames: []string{NameMPLL2Div}, Flags: clk.SetRateParent},
			&RegmapGate{Map: hhi, Off: HHIMPLLCntl9, Bit: 14}, &cs.MPLL2},
	}
	for _, d := range defs {
		c, err := fw.Register(d.init, d.ops)
		if err != nil {
			return nil, fmt.Errorf("meson clocks (%v): %w", soc, err)
		}
		*d.out = c
	}
	return &cs, nil
}
