// Package dwmacmeson8b is Linux's dwmac-meson8b glue driver, pre-fix and fixed.
// Guest side: it writes PRG_ETH0 and sets the TX clock through the guest clock framework.
//
// It is the guest's dwmac-meson8b glue driver
// (drivers/net/ethernet/stmicro/stmmac/dwmac-meson8b.c) in the v5.5 probe order, in
// two variants that differ only in the m250_div divider definition:
//
//   - PreFix (v5.4 and earlier, since 4f6a71b84e1a): CLK_DIVIDER_ONE_BASED |
//     ALLOW_ZERO | ROUND_CLOSEST, no table;
//   - Fixed (bd6f48546b9c, v5.5): table {2..7} with val == div, ALLOW_ZERO |
//     ROUND_CLOSEST (with the end-of-table sentinel added in v5.7).
//
// Nothing else knows which variant runs: the clock framework port in linux/clk
// picks m250_div = 1 or 2 from the divider definition and the rates MPLL2 can
// reach, and the hardware model sees only the resulting register values.
//
// The probe registers "<dev>#m250_sel" (mux), "<dev>#m250_div" (divider),
// "<dev>#fixed_div2" (/2) and "<dev>#rgmii_tx_en" (gate), all CLK_SET_RATE_PARENT,
// then programs PRG_ETH0: RGMII mode (bit 0), TX delay (bits 6:5), clears bit 11,
// sets the RGMII TX clock to 125 MHz, prepares and enables it (bit 10, and up the
// chain MPLL2's enable), and finally sets bit 12. Bits 13..31 stay as the boot
// loader left them, as in v5.5.
package dwmacmeson8b
