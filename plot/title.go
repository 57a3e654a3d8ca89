package plot

import (
	"fmt"
	"strings"

	"mesonemu/linux/stmmac/dwmacmeson8b"
	"mesonemu/rgmiiwire"
	"mesonemu/sim"
)

// Setting names the emulated configuration for titles.
type Setting struct {
	Board  string // e.g. "odroid-c1"
	Driver string // "pre-fix" or "fixed"
	// PhyMode and TxDelayNs are the device tree's phy-mode and
	// amlogic,tx-delay-ns.
	PhyMode   string
	TxDelayNs uint32
	// PHYTXDelay, when non-nil, says the PHY's TX delay was set by hand.
	PHYTXDelay *bool
}

// SettingOf describes a booted board: its name, the driver variant and the
// device tree's phy-mode and tx-delay-ns (the glue's default 2 ns when the
// property is absent), and the phytool override if one was asked for.
func SettingOf(s *sim.Sim) Setting {
	st := Setting{Board: s.Board.Name, Driver: s.Opts.Driver, PhyMode: s.DT.PhyMode,
		TxDelayNs: dwmacmeson8b.DefaultTxDelayNs, PHYTXDelay: s.Opts.PHYTXDelay}
	if s.DT.TxDelayNs != nil {
		st.TxDelayNs = *s.DT.TxDelayNs
	}
	return st
}

// String is the first title line: "odroid-c1, fixed driver, rgmii, tx-delay-ns 2".
func (s Setting) String() string {
	var parts []string
	if s.Board != "" {
		parts = append(parts, s.Board)
	}
	if s.Driver != "" {
		parts = append(parts, s.Driver+" driver")
	}
	if s.PhyMode != "" {
		parts = append(parts, s.PhyMode)
	}
	parts = append(parts, fmt.Sprintf("tx-delay-ns %d", s.TxDelayNs))
	if s.PHYTXDelay != nil {
		parts = append(parts, "PHY TX delay "+onOff(*s.PHYTXDelay)+" (phytool)")
	}
	return strings.Join(parts, ", ")
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func ns(ps float64) string { return fmt.Sprintf("%.3f ns", ps/1000) }

// delayLine is the second title line: where the delay comes from.
func delayLine(b rgmiiwire.Budget) string {
	t := b.Timing
	dir := t.Direction
	if dir == "" {
		dir = "?"
	}
	return fmt.Sprintf("%s at %d Mbit/s: MAC %s + PHY %s + board skew %s = %s, phase %s of %s",
		dir, t.SpeedMbps, ns(t.MACDelayPs), ns(t.PHYDelayPs), ns(t.BoardSkewPs), ns(b.DelayPs), ns(b.PhasePs), ns(t.ClockPeriodPs))
}
