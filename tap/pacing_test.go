package tap

import (
	"strings"
	"testing"

	"mesonemu/emu"
	"mesonemu/emu/pace"
	"mesonemu/sim"
)

func TestLagWarning(t *testing.T) {
	desc := func(riwtUs float64, txUs int) sim.Description {
		var d sim.Description
		d.Stmmac.RIWTMicros, d.Stmmac.TxCoalTimerUs = riwtUs, txUs
		return d
	}
	behind := func(p99, max int64) emu.PacingReport {
		return emu.PacingReport{Pacer: "timerfd", Behind: pace.Summary{Count: 100, P99Ns: p99, MaxNs: max}}
	}
	tests := []struct {
		name string
		p    emu.PacingReport
		d    sim.Description
		want string // "" no warning
	}{
		{"kept up", behind(200_000, 900_000), desc(257.0, 1000), ""},
		{"p99 past the watchdog", behind(300_000, 900_000), desc(257.0, 1000), "more than 300µs behind the wall clock (max 900µs), beyond the model's smallest interval (257µs)"},
		{"the TX timer is shorter", behind(300_000, 300_000), desc(0, 100), "smallest interval (100µs)"},
		{"no events", emu.PacingReport{}, desc(25.7, 1000), ""},
		{"no interval", behind(300_000, 300_000), desc(0, 0), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lagWarning(tt.p, tt.d)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("lagWarning = %q, want one containing %q", got, tt.want)
			}
		})
	}
}

func TestCongestionNote(t *testing.T) {
	tests := []struct{ cc, netns, want string }{
		{"cubic", "board", ""},
		{"reno", "", ""},
		{"bbr", "board", "(namespace board) runs TCP bbr by default, which does not back off on loss"},
		{"vegas", "", "(the board's namespace) runs TCP vegas"},
		{"", "board", ""},
	}
	for _, tt := range tests {
		got := congestionNote(tt.cc, tt.netns)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("congestionNote(%q, %q) = %q, want one containing %q", tt.cc, tt.netns, got, tt.want)
		}
	}
}

// CongestionControl answers for the namespace asked about, not the test's.
func TestCongestionControlReadsTheNamespace(t *testing.T) {
	need(t, "sysctl")
	ns := newNetns(t)
	// reno is always built in and allowed in a new namespace (cubic may not be).
	run(t, "ip", "netns", "exec", ns.name, "sysctl", "-qw", "net.ipv4.tcp_congestion_control=reno")
	if got, err := CongestionControl(ns.name); err != nil || got != "reno" {
		t.Errorf("CongestionControl(%s) = %q, %v; want reno", ns.name, got, err)
	}
	if mine, err := CongestionControl(""); err != nil || mine == "reno" {
		t.Skipf("this namespace runs %q (%v): it cannot tell the two apart", mine, err)
	}
}
