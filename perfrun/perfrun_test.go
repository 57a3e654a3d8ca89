package perfrun

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"mesonemu/sim"
)

func u32(v uint32) *uint32 { return &v }

func run(t *testing.T, so sim.Options, reverse bool) *Report {
	t.Helper()
	if testing.Short() {
		t.Skip("10 s of virtual time (~45 s of wall time); skipped with -short")
	}
	so.Seed = 1
	_, rep, err := Run(context.Background(), Options{Sim: so, Duration: 10 * time.Second, Reverse: reverse, Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %d ns reverse=%v: %.1f Mbit/s, %d retransmits, %d of %d board data frames dropped, wall %.1f s",
		so.Driver, rep.TxDelayNs, reverse, rep.ThroughputBps/1e6, rep.Retransmits, rep.DataFramesLost, rep.DataFramesSent, rep.WallSeconds)
	return rep
}

// TestCommitBeforeAndAfter runs the commit's two measurements, board -> PC:
// the fixed driver is clean and fast, the pre-fix driver loses frames on the
// wire and TCP pays for each of them with a retransmit.
func TestCommitBeforeAndAfter(t *testing.T) {
	fixed := run(t, sim.Options{Driver: "fixed", TxDelayNs: u32(2)}, false)
	if fixed.Retransmits != 0 || fixed.DataFramesLost != 0 {
		t.Errorf("fixed driver: %d retransmits, %d frames dropped; want 0", fixed.Retransmits, fixed.DataFramesLost)
	}
	// The board's CPU cost is calibrated to the commit's 778 Mbit/s (778.4 on
	// seeds 1-3).
	if fixed.ThroughputBps < 740e6 || fixed.ThroughputBps > 820e6 {
		t.Errorf("fixed driver: %.1f Mbit/s, want 740..820 (calibrated to 778)", fixed.ThroughputBps/1e6)
	}
	pre := run(t, sim.Options{Driver: "pre-fix", TxDelayNs: u32(4)}, false)
	if pre.Retransmits < 100 {
		t.Errorf("pre-fix driver: %d retransmits, want at least 100", pre.Retransmits)
	}
	// The real board lost 80 % of its throughput (153 of 778 Mbit/s). With the
	// board's TCP answering loss as Linux's does (the gVisor patches), the
	// emulator loses ~21 % (613.9 Mbit/s, seed 1): the path is ~0.8 ms faster
	// than the real board's (README "Known gaps"). The claim held here is that
	// the loss the registers cause costs throughput at all.
	if pre.ThroughputBps > 0.85*fixed.ThroughputBps {
		t.Errorf("pre-fix driver: %.1f Mbit/s is more than 85 %% of the fixed run's %.1f", pre.ThroughputBps/1e6, fixed.ThroughputBps/1e6)
	}
	// Every data segment the PC dropped crossed the wire again later, except
	// those still in flight when the test ended. The board's stack counts each
	// resend on any connection until the run is over; iperf3's count is the
	// data stream's at the end of the test, so it can miss a few (a resend of
	// the stream's last segments, a lost control message): a CI-like run saw
	// 960 for 963 drops. Retransmits beyond the drops are spurious (an RTO resends
	// segments that were not lost).
	if pre.LostNeverResent > 3 {
		t.Errorf("pre-fix driver: %d dropped segments were never sent again", pre.LostNeverResent)
	}
	resent := counter(t, pre.Counters, "board tcp", "retransmits")
	if resent+pre.LostNeverResent < pre.DataFramesLost {
		t.Errorf("pre-fix driver: the board's stack resent %d segments, %d never crossed again, for %d dropped data frames", resent, pre.LostNeverResent, pre.DataFramesLost)
	}
	if float64(pre.Retransmits) > 1.5*float64(pre.DataFramesLost) {
		t.Errorf("pre-fix driver: %d retransmits for %d dropped data frames; want at most 1.5 x drops", pre.Retransmits, pre.DataFramesLost)
	}
	if pre.MeasuredLoss < 0.0025 || pre.MeasuredLoss > 0.0055 {
		t.Errorf("pre-fix driver: %.3f %% of data frames dropped, want 0.25..0.55 %%", 100*pre.MeasuredLoss)
	}
}

// TestRXWatchdogReloadKeepsTheFit: under the RX watchdog's other reading the
// board sees its ACKs later (the path RTT grows past 2 ms as the window waits
// in front of the CPU), and the CPU fitted under that reading gives the
// commit's fixed row again (777.7 Mbit/s; 641 with the first reading's fit).
func TestRXWatchdogReloadKeepsTheFit(t *testing.T) {
	if testing.Short() {
		t.Skip("4 s of virtual time; skipped with -short")
	}
	// 4 s: 770.0 Mbit/s (777.7 over the commit's 10 s), path RTT 2391 us.
	_, fixed, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", TxDelayNs: u32(2), RXWatchdog: sim.RXWatchdogReload, Seed: 1},
		Duration: 4 * time.Second, Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.ThroughputBps < 740e6 || fixed.ThroughputBps > 820e6 || fixed.Retransmits != 0 {
		t.Errorf("fixed driver, reload reading: %.1f Mbit/s, %d retransmits; want 740..820 and 0", fixed.ThroughputBps/1e6, fixed.Retransmits)
	}
	if fixed.PathSRTTMicros < 2000 {
		t.Errorf("fixed driver, reload reading: path RTT %.0f us; want above 2 ms (1.5 ms with the first-frame reading)", fixed.PathSRTTMicros)
	}
}

// TestReceivingAlwaysWorked: with the pre-fix driver the PC sends, the board
// only sends ACKs (66 bytes, 1/20 of a full frame's exposure) and nothing is
// retransmitted, as on the real board.
func TestReceivingAlwaysWorked(t *testing.T) {
	rev := run(t, sim.Options{Driver: "pre-fix", TxDelayNs: u32(4)}, true)
	if rev.Retransmits != 0 {
		t.Errorf("reverse, pre-fix: %d retransmits, want 0; counters: %s", rev.Retransmits, nonZero(rev.Counters))
	}
	if rev.ThroughputBps < 500e6 {
		t.Errorf("reverse, pre-fix: %.1f Mbit/s, want the receive path to run near line rate", rev.ThroughputBps/1e6)
	}
}

// counter is the value of one of a report's counters; the test stops if the
// report has no such counter.
func counter(t *testing.T, cs []Counter, where, name string) uint64 {
	t.Helper()
	for _, c := range cs {
		if c.Where == where && c.Name == name {
			return c.Value
		}
	}
	t.Fatalf("no counter %q %q in the report", where, name)
	return 0
}

// nonZero lists the counters that are not 0, for a failure message.
func nonZero(cs []Counter) string {
	var b strings.Builder
	for _, c := range cs {
		if c.Value != 0 {
			fmt.Fprintf(&b, "%s %s %d; ", c.Where, c.Name, c.Value)
		}
	}
	return b.String()
}

// TestCalibrationNoneDropsTheTurnaround: the pre-fix row with the board CPU's
// wake turnaround (CALIBRATED to the commit's 153 Mbit/s) and without it
// (--calibration none). 3 s, seed 1 (this tree: ~150 against ~600 Mbit/s):
// the turnaround is used and reported only in the fitted run, interrupts
// wait it out there, and the sourced-only run is at least twice as fast with
// a path RTT under half of the fitted one's.
func TestCalibrationNoneDropsTheTurnaround(t *testing.T) {
	if testing.Short() {
		t.Skip("6 s of virtual time; skipped with -short")
	}
	run := func(calibration string) *Report {
		_, rep, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: u32(4), Seed: 1},
			Duration: 3 * time.Second, Calibration: calibration, Output: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	fitted, none := run(""), run(CalibrationNone)
	if fitted.Calibration != CalibrationFitted || fitted.WakeTurnaroundUs != 1450 || fitted.BoardWakes == 0 {
		t.Errorf("fitted: %q, turnaround %.0f us, %d wakes", fitted.Calibration, fitted.WakeTurnaroundUs, fitted.BoardWakes)
	}
	if none.Calibration != CalibrationNone || none.WakeTurnaroundUs != 0 || none.BoardWakes != 0 {
		t.Errorf("none: %q, turnaround %.0f us, %d wakes", none.Calibration, none.WakeTurnaroundUs, none.BoardWakes)
	}
	if none.ThroughputBps < 2*fitted.ThroughputBps || 2*none.PathSRTTMicros > fitted.PathSRTTMicros {
		t.Errorf("none %.1f Mbit/s at %.0f us, fitted %.1f at %.0f us", none.ThroughputBps/1e6, none.PathSRTTMicros,
			fitted.ThroughputBps/1e6, fitted.PathSRTTMicros)
	}
}
