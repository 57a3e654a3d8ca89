package board

// DWMAC is what the board's Ethernet MAC (DWMAC 3.70a) takes from outside the
// registers Linux writes: the clock its CSR side runs on, and the behaviour of
// its RX interrupt watchdog where the databook reads two ways.
type DWMAC struct {
	// CSRClockHz is clk81, the "stmmaceth" clock (CLKID_ETH gates clk81): RIWT
	// counts in units of 256 of its cycles, and it sets the MDC divider.
	CSRClockHz     uint64
	CSRClockSource string
	// RIWTRestart: every frame completed with DIC reloads a running RX watchdog,
	// so RI comes RIWT after the last frame of a burst (stmmac.Config.RIWTRestart);
	// false starts it at the first such frame only.
	RIWTRestart bool
	RIWTSource  string
}

// meson8DWMAC: clk81 as Amlogic's Meson8 (M8) boot-loader firmware sets
// HHI_MPEG_CLK_CNTL (fclk_div4 = 2550 / 4 = 637.5 MHz, divided by 4:
// ".clk81=159375000"); the Odroid-C1's own (Meson8b) loader source was not
// found, and Linux only reads the rate (meson8b.c registers clk81 read-only).
// The watchdog semantics: docs/latency.md.
var meson8DWMAC = DWMAC{
	CSRClockHz: 159_375_000,
	CSRClockSource: "Amlogic Meson8 boot firmware: HHI_MPEG_CLK_CNTL = fclk_div4 / 4; " +
		"Odroid-C1 (Meson8b) loader UNCONFIRMED",
	RIWTRestart: false,
	RIWTSource: "UNCONFIRMED: the databook's \"triggered with the programmed value after the Rx DMA " +
		"completes the transfer of a frame\" reads either way; the reload reading starves the RX ring " +
		"under a sustained line-rate stream (linktest: 7500 of 200000 frames rx_missed on the fixed " +
		"board), which \"receiving always worked\" argues against (docs/latency.md)",
}
