package soc

import "mesonemu/reg"

// PRG_ETH0 fields, every bit of docs/reference/meson8b-ethernet.md §3, with the Linux names in lower
// case (Amlogic names in the Doc). All are plain RW storage: the calibration engine
// (bits 25..29 and the PRG_ETH1 read-back) is not modelled.
var (
	fldRGMIIMode       = reg.Field{Name: "rgmii_mode", Hi: 0, Lo: 0, Access: reg.RW, Doc: "1 RGMII, 0 RMII (RGMII_SEL)"}
	fldDataEndian      = reg.Field{Name: "data_endian", Hi: 1, Lo: 1, Access: reg.RW, Doc: "DATA_ENDIAN (unused by Linux)"}
	fldDescEndian      = reg.Field{Name: "desc_endian", Hi: 2, Lo: 2, Access: reg.RW, Doc: "DESC_ENDIAN (unused by Linux)"}
	fldRXClkInv        = reg.Field{Name: "rx_clk_inv", Hi: 3, Lo: 3, Access: reg.RW, Doc: "RX_CLK_INV (out-of-tree only)"}
	fldM250Sel         = reg.Field{Name: "m250_sel", Hi: 4, Lo: 4, Access: reg.RW, Doc: "TX clock source mux (TX_CLK_SRC)"}
	fldTXDLY           = reg.Field{Name: "txdly", Hi: 6, Lo: 5, Access: reg.RW, Doc: "TX clock delay taps (TX_CLK_PH)"}
	fldM250Div         = reg.Field{Name: "m250_div", Hi: 9, Lo: 7, Access: reg.RW, Doc: "TX clock divider, val = div, 0 bypass (TX_CLK_RATIO)"}
	fldRGMIITXClkEn    = reg.Field{Name: "rgmii_tx_clk_en", Hi: 10, Lo: 10, Access: reg.RW, Doc: "RGMII TX clock gate (REF_CLK_ENA)"}
	fldInvertedRMIIClk = reg.Field{Name: "inverted_rmii_clk", Hi: 11, Lo: 11, Access: reg.RW, Doc: "RMII only: invert clk_rmii_i"}
	fldTXAndPHYRefClk  = reg.Field{Name: "tx_and_phy_ref_clk", Hi: 12, Lo: 12, Access: reg.RW, Doc: "TX_CLK / PHY_REF_CLK generator enable (CLK_ENA)"}
	fldADJEnable       = reg.Field{Name: "adj_enable", Hi: 13, Lo: 13, Access: reg.RW, Doc: "RX timing-adjust logic on (ADJ_ENA)"}
	fldADJSetup        = reg.Field{Name: "adj_setup", Hi: 14, Lo: 14, Access: reg.RW, Doc: "align RX to the RX clock edges (ADJ_SETUP)"}
	fldADJDelay        = reg.Field{Name: "adj_delay", Hi: 19, Lo: 15, Access: reg.RW, Doc: "RX sample point, timing-adjust clock ticks"}
	fldADJSkew         = reg.Field{Name: "adj_skew", Hi: 24, Lo: 20, Access: reg.RW, Doc: "per-signal ~1 ns extra RX delay"}
	fldCaliStart       = reg.Field{Name: "cali_start", Hi: 25, Lo: 25, Access: reg.RW, Doc: "calibration start (not modelled)"}
	fldCaliRise        = reg.Field{Name: "cali_rise", Hi: 26, Lo: 26, Access: reg.RW, Doc: "calibration test edge (not modelled)"}
	fldCaliSel         = reg.Field{Name: "cali_sel", Hi: 29, Lo: 27, Access: reg.RW, Doc: "signal to calibrate (not modelled)"}
	fldRXReuse         = reg.Field{Name: "rx_reuse", Hi: 30, Lo: 30, Access: reg.RW, Doc: "RX_REUSE (unused by Linux)"}
	fldUrgent          = reg.Field{Name: "urgent", Hi: 31, Lo: 31, Access: reg.RW, Doc: "URGENT (unused by Linux)"}
)

// PRG_ETH1: the calibration read-back fields of unifreq 5.4 (read-only, 0 because
// the calibration engine is not modelled) and mainline v5.12's cfg_rxclk_dly, which
// only G12A and later implement; on the modelled chips it stores the value and has
// no effect (unifreq 5.4 names those bits auto_cali_idx_val).
var glue1Fields = []reg.Field{
	{Name: "signal_switch_position", Hi: 4, Lo: 0, Access: reg.RO, Doc: "calibration read-back (not modelled)"},
	{Name: "rx_clk_length", Hi: 9, Lo: 5, Access: reg.RO, Doc: "calibration read-back (not modelled)"},
	{Name: "cali_waiting_for_event", Hi: 10, Lo: 10, Access: reg.RO, Doc: "calibration read-back (not modelled)"},
	{Name: "signal_under_test", Hi: 13, Lo: 11, Access: reg.RO, Doc: "calibration read-back (not modelled)"},
	{Name: "result_edge", Hi: 14, Lo: 14, Access: reg.RO, Doc: "calibration read-back (not modelled)"},
	{Name: "result_is_valid", Hi: 15, Lo: 15, Access: reg.RO, Doc: "calibration read-back (not modelled)"},
	{Name: "cfg_rxclk_dly", Hi: 19, Lo: 16, Access: reg.RW, Doc: "G12A+ RX clock delay, 200 ps steps (no effect here)"},
}

// Boot-loader hand-over values of PRG_ETH0. ASSUMPTION for all chips (the real
// dumps are UNCONFIRMED, docs/reference/meson8b-ethernet.md §3.1/§12):
//   - Meson8b / Meson8m2: 0x7d21, what the vendor M8M2 U-Boot writes on the RGMII path:
//     rgmii_mode | txdly 1 | m250_div 2 | bits 10, 11, 12 | adj_enable | adj_setup,
//     m250_sel 0. The fix commit says the Odroid-C1 U-Boot runs "a TX delay of only 2ns
//     as well as the internal m250_div set to 2", which this matches.
//   - GXBB: 0x7621, Fuchsia's GX value 0x1621 (rgmii_mode | txdly 1 | m250_div 4 |
//     bit 10 | bit 12: fclk_div2 1 GHz / 4 / 2 = 125 MHz) plus adj_enable | adj_setup
//     as the vendor Meson8 code sets them, so the RX side starts with the same "2 ns"
//     MAC RX delay. The Meson8 value 0x7d21 would hand over a 250 MHz TX clock on GXBB
//     (fclk_div2 / 2 / 2), which no working boot loader would leave behind.
const (
	meson8bPRGEth0Reset = 0x7d21
	gxbbPRGEth0Reset    = 0x7621
)

func glueBlock(m250SelDoc string, eth0Reset uint32) reg.Block {
	sel := fldM250Sel
	sel.Doc = m250SelDoc
	return reg.Block{Name: "prg_eth0", Registers: []reg.Register{
		{Name: "PRG_ETH0", Offset: PRGEth0Off, Reset: eth0Reset, Doc: "Ethernet glue: interface, TX clock, delays",
			Fields: []reg.Field{fldRGMIIMode, fldDataEndian, fldDescEndian, fldRXClkInv, sel, fldTXDLY,
				fldM250Div, fldRGMIITXClkEn, fldInvertedRMIIClk, fldTXAndPHYRefClk, fldADJEnable, fldADJSetup,
				fldADJDelay, fldADJSkew, fldCaliStart, fldCaliRise, fldCaliSel, fldRXReuse, fldUrgent}},
		{Name: "PRG_ETH1", Offset: PRGEth1Off, Reset: 0, Doc: "calibration read-back; G12A RX delay",
			Fields: glue1Fields},
	}}
}

var (
	meson8bGlueBlock = glueBlock("TX clock source: 0 mpll2, 1 fclk_div2 (unsupported per datasheet)", meson8bPRGEth0Reset)
	gxbbGlueBlock    = glueBlock("TX clock source: 0 fclk_div2, 1 mpll2", gxbbPRGEth0Reset)
)

// GlueBlock is the PRG_ETH0/PRG_ETH1 register table of a chip (Meson8m2 shares
// Meson8b's), nil for an invalid kind. The table is shared: read it, never modify it.
func GlueBlock(k Kind) *reg.Block { return chipBlock(k, &meson8bGlueBlock, &gxbbGlueBlock) }
