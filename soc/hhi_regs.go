package soc

import "mesonemu/reg"

// HHI fields (drivers/clk/meson/meson8b.c, v5.0-v5.5). Declared once here; the
// device reads them through these values so a table and its use cannot drift apart.
var (
	fldPLLM    = reg.Field{Name: "m", Hi: 8, Lo: 0, Access: reg.RW, Doc: "fixed PLL DCO multiplier"}
	fldPLLN    = reg.Field{Name: "n", Hi: 13, Lo: 9, Access: reg.RW, Doc: "fixed PLL pre-divider (0: PLL stopped)"}
	fldPLLOD   = reg.Field{Name: "od", Hi: 17, Lo: 16, Access: reg.RW, Doc: "fixed PLL post-divider, 2^od"}
	fldPLLLock = reg.Field{Name: "lock", Hi: 31, Lo: 31, Access: reg.RO,
		Doc: "PLL locked (model: always 1, locking is instantaneous; ASSUMPTION)"}

	fldPLLFrac = reg.Field{Name: "frac", Hi: 11, Lo: 0, Access: reg.RW, Doc: "fixed PLL fractional multiplier, /4096"}

	fldMPLLPrediv = reg.Field{Name: "mpll_prediv", Hi: 12, Lo: 12, Access: reg.RW, Doc: "MPLL input divider, divisor val+1"}

	fldFclkDiv2En = reg.Field{Name: "fclk_div2_en", Hi: 27, Lo: 27, Access: reg.RW, Doc: "fclk_div2 gate (fixed PLL / 2)"}

	fldMPLL2SDM   = reg.Field{Name: "sdm", Hi: 13, Lo: 0, Access: reg.RW, Doc: "MPLL2 fractional part, /16384"}
	fldMPLL2En    = reg.Field{Name: "en", Hi: 14, Lo: 14, Access: reg.RW, Doc: "MPLL2 output gate"}
	fldMPLL2SDMEn = reg.Field{Name: "sdm_en", Hi: 15, Lo: 15, Access: reg.RW, Doc: "use sdm (0: integer divide by n2)"}
	fldMPLL2N2    = reg.Field{Name: "n2", Hi: 24, Lo: 16, Access: reg.RW, Doc: "MPLL2 integer divider (< 4: no output)"}
)

// Boot-loader hand-over values. ASSUMPTION: nobody has published an Odroid-C1
// U-Boot dump of these registers (docs/reference/meson8b-ethernet.md §12). The fixed PLL encoding
// (m 106, n 1, frac 1024) is the one §7.1 suggests because the Linux PLL formula then
// gives exactly 2,550,000,000 Hz, the rate every public clue points at; the
// register encoding of real silicon is UNCONFIRMED. MPLL2 is what the vendor M8M2
// U-Boot ORs into HHI_MPLL_CNTL9 (sdm 1638, sdm_en, en, n2 5 -> 500,002,394 Hz by the
// Linux formula) and it enables the fclk_div2 gate.
const (
	meson8bMPLLCntlReset  = 106 | 1<<9 | 1<<31           // m 106, n 1, od 0, locked
	meson8bMPLLCntl2Reset = 1024                         // frac 1024/4096 -> 2,550 MHz
	meson8bMPLLCntl9Reset = 1638 | 1<<14 | 1<<15 | 5<<16 // 0x0005c666
	gxbbMPLLCntlReset     = 250 | 3<<9 | 1<<31           // m 250, n 3 -> 2,000 MHz
	gxbbMPLLCntl2Reset    = 0                            // no fraction
	gxbbMPLLCntl9Reset    = 8<<16 | 1<<15                // n2 8, sdm 0, sdm_en, gated
	mpllCntl5Reset        = 0                            // mpll_prediv /1 (§7.1 inference)
	mpllCntl6Reset        = 1 << 27                      // fclk_div2 on
)

// GXBB MPLL2 reset, ASSUMPTION (no public dump): the GXBB glue runs from fclk_div2,
// so nothing needs MPLL2 at hand-over; it is left gated (en 0) with a harmless
// 250 MHz setting (n2 8, sdm_en) so that enabling it alone gives a sane clock.

func hhiBlock(name string, cntl, cntl2, cntl9 uint32) reg.Block {
	return reg.Block{Name: name, Registers: []reg.Register{
		{Name: "HHI_MPLL_CNTL", Offset: HHIMPLLCntl, Reset: cntl,
			Fields: []reg.Field{fldPLLM, fldPLLN, fldPLLOD, fldPLLLock},
			Doc:    "fixed PLL: xtal x (m + frac/4096) / n >> od"},
		{Name: "HHI_MPLL_CNTL2", Offset: HHIMPLLCntl2, Reset: cntl2,
			Fields: []reg.Field{fldPLLFrac}, Doc: "fixed PLL fractional part"},
		{Name: "HHI_MPLL_CNTL5", Offset: HHIMPLLCntl5, Reset: mpllCntl5Reset,
			Fields: []reg.Field{fldMPLLPrediv}, Doc: "MPLL pre-divider"},
		{Name: "HHI_MPLL_CNTL6", Offset: HHIMPLLCntl6, Reset: mpllCntl6Reset,
			Fields: []reg.Field{fldFclkDiv2En}, Doc: "fixed-divider gates"},
		{Name: "HHI_MPLL_CNTL9", Offset: HHIMPLLCntl9, Reset: cntl9,
			Fields: []reg.Field{fldMPLL2SDM, fldMPLL2En, fldMPLL2SDMEn, fldMPLL2N2},
			Doc:    "MPLL2: parent x 16384 / (16384 n2 + sdm)"},
	}}
}

var (
	meson8bHHIBlock = hhiBlock("hhi", meson8bMPLLCntlReset, meson8bMPLLCntl2Reset, meson8bMPLLCntl9Reset)
	gxbbHHIBlock    = hhiBlock("hhi", gxbbMPLLCntlReset, gxbbMPLLCntl2Reset, gxbbMPLLCntl9Reset)
)

// HHIBlock is the HHI register table of a chip (Meson8m2 shares Meson8b's), nil for
// an invalid kind. The table is shared: read it, never modify it.
func HHIBlock(k Kind) *reg.Block { return chipBlock(k, &meson8bHHIBlock, &gxbbHHIBlock) }

// chipBlock is the table of chip k among one block's two layouts: the Meson8b's
// (which the Meson8m2 shares) and the GXBB's; nil for an invalid kind.
func chipBlock(k Kind, meson8b, gxbb *reg.Block) *reg.Block {
	switch k {
	case Meson8b, Meson8m2:
		return meson8b
	case GXBB:
		return gxbb
	}
	return nil
}
