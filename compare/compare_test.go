package compare

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"mesonemu/perfrun"
)

// TestOutcomeMatrixShape runs the table with short TCP tests: which rows carry
// traffic and which links are dead comes out of the registers and the wire.
func TestOutcomeMatrixShape(t *testing.T) {
	if testing.Short() {
		t.Skip("four 2 s TCP runs; skipped with -short")
	}
	r, err := Run(context.Background(), Options{Board: "odroid-c1", Duration: 2 * time.Second, Seeds: 1, Frames: 5000})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{ // row -> link dead
		"before the fix": false, "after the fix": false, "pre-fix, 2 ns": true,
		"fixed, 4 ns": true, "PHY delay only": false, "MAC 2 ns + PHY": true, "before, sourced": false,
	}
	if len(r.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(r.Rows), len(want))
	}
	for _, row := range r.Rows {
		if row.LinkDead != want[row.Name] {
			t.Errorf("%s: link dead %v, want %v (measured loss %.4f)", row.Name, row.LinkDead, want[row.Name], row.MeasuredFrameLoss)
		}
		switch row.Name {
		case "after the fix", "PHY delay only":
			if row.Retransmits != 0 || row.MeasuredFrameLoss != 0 || row.ThroughputBps < 600e6 {
				t.Errorf("%s: %.1f Mbit/s, %.0f retransmits, loss %.4f", row.Name, row.ThroughputBps/1e6, row.Retransmits, row.MeasuredFrameLoss)
			}
		case "before the fix":
			if row.Retransmits == 0 || row.MeasuredFrameLoss < 0.002 || row.MeasuredFrameLoss > 0.006 {
				t.Errorf("%s: %.0f retransmits, loss %.4f", row.Name, row.Retransmits, row.MeasuredFrameLoss)
			}
			if row.PathRTTMicros < 50 || row.PathRTTMicros > 5000 || row.ImpliedRTTMicros < 1000 || row.ImpliedRTTMicros > 2500 {
				t.Errorf("%s: path RTT %.0f us, implied %.0f us", row.Name, row.PathRTTMicros, row.ImpliedRTTMicros)
			}
			if row.EffectiveTXDelayPs < 7999 || row.EffectiveTXDelayPs > 8001 {
				t.Errorf("%s: effective TX delay %.1f ps, want 8000", row.Name, row.EffectiveTXDelayPs)
			}
		}
	}
	// The before row is calibrated (the wake turnaround), its sourced-only
	// twin predicted, without the turnaround, and faster.
	byName := map[string]Row{}
	for _, row := range r.Rows {
		byName[row.Name] = row
	}
	cal, src := byName["before the fix"], byName["before, sourced"]
	if cal.Basis != BasisCalibrated || cal.Calibration != perfrun.CalibrationFitted ||
		src.Basis != BasisPredicted || src.Calibration != perfrun.CalibrationNone || src.ThroughputBps < 1.5*cal.ThroughputBps {
		t.Errorf("before rows: %s/%s %.1f Mbit/s, %s/%s %.1f Mbit/s", cal.Basis, cal.Calibration, cal.ThroughputBps/1e6,
			src.Basis, src.Calibration, src.ThroughputBps/1e6)
	}
	var b bytes.Buffer
	WriteTable(&b, r)
	if !strings.Contains(b.String(), "link dead") || !strings.Contains(b.String(), "  calibrated\n") || !strings.Contains(b.String(), "153 Mbit/s, 514 retransmits") ||
		!strings.Contains(b.String(), "before the fix: at the measured loss the real 153 Mbit/s need a round trip of") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestImpliedRTT checks the rule against docs/reference/rgmii-timing.md §8.2: 152.7 Mbit/s at
// 0.388 % loss needs 1.49 ms; lossless or meaningless inputs give 0.
func TestImpliedRTT(t *testing.T) {
	cases := []struct {
		bps, p     float64
		wantMicros float64
	}{
		{152.7e6, 0.00388, 1490},
		{152.7e6, 0.00388 * 4, 745}, // four times the loss: half the round trip
		{778e6, 0, 0},
		{153e6, 1, 0},
		{0, 0.004, 0},
	}
	for _, c := range cases {
		got := impliedRTT(c.bps, c.p).Seconds() * 1e6
		if got < c.wantMicros-5 || got > c.wantMicros+5 {
			t.Errorf("impliedRTT(%.1f Mbit/s, %.5f) = %.0f us, want %.0f", c.bps/1e6, c.p, got, c.wantMicros)
		}
	}
}

// TestInterruptedKeepsFinishedRows: when ctx ends (Ctrl-C) in the middle of
// the TCP runs, Run returns ctx's error with the rows whose runs all finished
// (here the first TCP run and the dead links) and counts the rest.
func TestInterruptedKeepsFinishedRows(t *testing.T) {
	ctx, fake := interruptAfterFirst(&perfrun.Report{ThroughputBps: 700e6, PathSRTTMicros: 900})
	r, err := Run(ctx, Options{Board: "odroid-c1", Seeds: 1, Frames: 2000, Jobs: 1, RunTCP: fake})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	var names []string
	for _, row := range r.Rows {
		names = append(names, row.Name)
	}
	want := []string{"after the fix", "pre-fix, 2 ns", "fixed, 4 ns", "MAC 2 ns + PHY"}
	if strings.Join(names, "|") != strings.Join(want, "|") || r.Unfinished != 3 || r.Rows[0].ThroughputBps != 700e6 {
		t.Fatalf("rows %q, unfinished %d; want %q and 3", names, r.Unfinished, want)
	}
	var buf bytes.Buffer
	WriteTable(&buf, r)
	if !strings.Contains(buf.String(), "(interrupted: 3 of 7 configurations unfinished, left out)") {
		t.Errorf("table without the interruption note:\n%s", buf.String())
	}
}

// interruptAfterFirst is a RunTCP for Jobs 1 (one call at a time) that answers
// the first run with rep and then cancels ctx, as Ctrl-C would: later runs
// return ctx's error.
func interruptAfterFirst(rep *perfrun.Report) (context.Context, func(context.Context, perfrun.Options) (*perfrun.Report, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	return ctx, func(ctx context.Context, o perfrun.Options) (*perfrun.Report, error) {
		calls++
		if calls > 1 {
			return nil, ctx.Err()
		}
		cancel()
		return rep, nil
	}
}
