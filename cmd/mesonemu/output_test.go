package main

import (
	"strings"
	"testing"
)

// TestMainJobOutputIsShort: the main job prints its header, iperf3's output
// and a few lines of verdict, within 45 lines for a 3 s test; --counters adds
// the counters. Header and summary share stdout.
func TestMainJobOutputIsShort(t *testing.T) {
	cases := []struct {
		args             []string
		maxLines         int
		counters         bool
		wantReal, others string
	}{
		{[]string{"--time", "3s"}, 45, false, "real:     Odroid-C1 after the fix (fixed driver, 2 ns): 778 Mbit/s, 0 retransmits", ""},
		{[]string{"run", "--time", "1s", "--counters", "--driver", "pre-fix", "--tx-delay-ns", "4"}, 200, true, "153 Mbit/s, 514 retransmits", ""},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code != 0 || errs != "" {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errs)
		}
		lines := strings.Count(out, "\n")
		if lines > c.maxLines {
			t.Errorf("%v: %d lines, want at most %d:\n%s", c.args, lines, c.maxLines, out)
		}
		if got := strings.Contains(out, "Link counters (ethtool -S style)"); got != c.counters {
			t.Errorf("%v: counters printed %v, want %v", c.args, got, c.counters)
		}
		for _, want := range []string{"mesonemu: board odroid-c1", "iperf Done.", "verdict:  ", "wall time "} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: stdout lacks %q:\n%s", c.args, want, out)
			}
		}
		if c.wantReal != "" && !strings.Contains(out, c.wantReal) {
			t.Errorf("%v: no %q beside the run:\n%s", c.args, c.wantReal, out)
		}
		if c.wantReal == "" && strings.Contains(out, "real:") {
			t.Errorf("%v: the real board's numbers beside a configuration that is not the commit's:\n%s", c.args, out)
		}
	}
}

// TestIperf3CommandTakesMesonemuFlagsAfterIt: a mesonemu flag after "iperf3"
// applies (here the driver and delay, which the header names), and the header
// goes to stderr beside the summary, stdout keeping iperf3's own output.
func TestIperf3CommandTakesMesonemuFlagsAfterIt(t *testing.T) {
	code, out, errs := runCLI("iperf3", "-c", "198.18.0.1", "-t", "1", "--driver", "pre-fix", "--tx-delay-ns=4", "--counters")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(errs, "mesonemu: board odroid-c1 (meson8b), driver pre-fix, phy-mode rgmii, tx-delay 4 ns, seed 1") {
		t.Errorf("stderr does not name the board and driver:\n%s", errs)
	}
	if !strings.Contains(errs, "Link counters") || strings.Contains(out, "Link counters") {
		t.Errorf("--counters: want the counters on stderr only")
	}
	if !strings.HasPrefix(out, "Connecting to host 198.18.0.1") || !strings.Contains(out, "iperf Done.") {
		t.Errorf("stdout is not iperf3's output:\n%s", out)
	}
}

// TestMesonemuFlagsOfIperf3AreNotIperf3s: the flags pulled out of iperf3's
// arguments are ones iperf3 does not have, and iperf3's own long options
// that share a mesonemu name stay iperf3's.
func TestMesonemuFlagsOfIperf3AreNotIperf3s(t *testing.T) {
	for _, name := range []string{"time", "reverse", "parallel", "json", "help", "version", "bind"} {
		if !iperf3Knows(name) {
			t.Errorf("iperf3Knows(%q) = false; iperf3 has --%s", name, name)
		}
	}
	e := &env{}
	root := newRoot(e)
	c := subcommand(root, "iperf3")
	var pulled []string
	for name := range allFlags(root) {
		if c.Flags().Lookup(name) != nil && !iperf3Knows(name) {
			pulled = append(pulled, name)
		}
	}
	for _, want := range []string{"driver", "tx-delay-ns", "seed", "board", "tap", "counters"} {
		if !strings.Contains(" "+strings.Join(pulled, " ")+" ", " "+want+" ") {
			t.Errorf("--%s after iperf3 is not taken as mesonemu's (pulled: %v)", want, pulled)
		}
	}
}

// TestSnakeCaseKeys: the JSON writer's snake_case names.
func TestSnakeCaseKeys(t *testing.T) {
	for in, want := range map[string]string{"ClockPeriodPs": "clock_period_ps", "SetupPs": "setup_ps", "UnitIntervalPs": "unit_interval_ps",
		"MACDelayPs": "mac_delay_ps", "PHYDelayPs": "phy_delay_ps", "Lines": "lines", "board": "board", "tx_delay_ns": "tx_delay_ns"} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
	code, out, errs := runCLI("eye", "--json")
	if code != 0 || !strings.Contains(out, `"clock_period_ps"`) || !strings.Contains(out, `"ClockPeriodPs"`) {
		t.Errorf("eye --json: exit %d, stderr %q; want clock_period_ps beside ClockPeriodPs:\n%.600s", code, errs, out)
	}
}
