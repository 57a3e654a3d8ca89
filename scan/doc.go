// Package scan sweeps one board's RGMII TX delay settings with quick link tests.
// Outside the bus: a runner over linktest and sim, as a vendor delay-scan tool on real hardware.
//
// It sweeps the RGMII TX delay settings of one board and driver with
// quick frame-level link tests, as Rockchip's vendor `rgmii_delayline` sysfs tool
// does on real hardware (docs/reference/rgmii-timing.md §9), and prints a pass/fail map and the
// suggested setting.
//
// Axes of the sweep:
//
//   - MAC TX delay: PRG_ETH0 TXDLY steps 0..3, requested as amlogic,tx-delay-ns
//     0, 2, 4, 6 with phy-mode "rgmii" (the only phy-mode for which v5.5's glue
//     programs TXDLY = tx-delay-ns / 2). What a step is worth in picoseconds is
//     the silicon's business (mechanism A or B and the clock the driver chose);
//     each cell records the effective delay the hardware produced.
//   - PHY TX delay: off / on, set after boot over MDIO as phytool would (page
//     0xd08 reg 0x11 bit 8; sim.Options.PHYTXDelay), because no v5.5 device tree
//     asks for a MAC delay and a PHY TX delay at once.
//   - optionally the board's TX skew s0 (sim.Options.TXSkewPs) over a range; without
//     it every cell uses the board's calibrated skew.
//
// Every cell boots its own emulated board and runs linktest in the TX direction
// only (the swept delays act only on MAC->PHY); cells are independent and run on
// a pool of worker goroutines. A cell passes when its measured loss is 0 AND the
// analytic model predicts a frame loss below PassPredictedLoss: a quick test of a
// few thousand frames cannot see a loss of 1e-5, the prediction can.
//
// Windows and the suggestion (Rockchip's tool picks the middle of the passing
// range; this package makes "range" precise):
//
//   - A MAC window is a maximal run of consecutive TXDLY steps that all pass, for
//     one PHY setting and one skew value.
//   - A skew window (only when the skew is swept) is a maximal run of consecutive
//     swept skew values that all pass, for one TXDLY step and one PHY setting. The
//     skew is not a software setting; the width of a setting's skew window is how
//     far the board's real skew may be from the window's middle while that
//     setting still works, i.e. the setting's robustness.
//   - Without a skew sweep the suggestion is the middle cell of the widest MAC
//     window (for an even length the lower of the two middle steps, as Rockchip's
//     integer (first + last) / 2).
//   - With a skew sweep the suggestion is the (TXDLY, PHY) setting with the widest
//     skew window, at the middle skew of that window; the MAC window through that
//     cell is reported too.
//   - Ties (assumption, not in the reference): with a skew sweep, a window that
//     covers the board's own (calibrated) skew first, then the wider MAC window
//     through the middle cell; then PHY TX delay off (the MAC delay is the one a
//     device tree can tune, and it is what the fix commit uses), then the lower
//     TXDLY step, then the skew closest to the board's calibrated value.
//   - A skew window that touches an end of the swept range is marked Open: the
//     passing region may go on beyond it, so sweep wider to trust its middle.
package scan
