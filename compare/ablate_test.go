package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"mesonemu/perfrun"
)

// TestAblateMovesTheNumbers switches three mechanisms off in turn with short
// runs: the board's CPU is what holds the fixed driver near 778 Mbit/s,
// without RACK-TLP a lost retransmission costs a 200 ms timeout, and PC
// interrupt moderation lengthens the path.
func TestAblateMovesTheNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("eight 2 s TCP runs; skipped with -short")
	}
	r, err := Ablate(context.Background(), Options{Board: "odroid-c1", Duration: 2 * time.Second, Seeds: 1, Jobs: 2},
		[]string{"cpu-cost", "board-rack", "pc-moderation"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 8 {
		t.Fatalf("%d rows, want 8 (none and three mechanisms, two configurations each)", len(r.Rows))
	}
	rows := map[string]AblationRow{}
	for _, x := range r.Rows {
		rows[x.Mechanism+"/"+x.Driver] = x
	}
	none, prefix := rows["none/fixed"], rows["none/pre-fix"]
	if none.ThroughputBps < 700e6 || none.Retransmits != 0 || prefix.Retransmits == 0 || prefix.MeasuredFrameLoss < 0.002 {
		t.Errorf("as it is: fixed %.1f Mbit/s %.0f retr; pre-fix %.0f retr, loss %.4f",
			none.ThroughputBps/1e6, none.Retransmits, prefix.Retransmits, prefix.MeasuredFrameLoss)
	}
	if cpu := rows["cpu-cost/fixed"]; cpu.ThroughputBps < 1.1*none.ThroughputBps {
		t.Errorf("without the CPU cost the fixed driver gives %.1f Mbit/s, as it is %.1f: the CPU should be its limit",
			cpu.ThroughputBps/1e6, none.ThroughputBps/1e6)
	}
	// With the board CPU's wake turnaround (CALIBRATED to the before row) the
	// pre-fix flow runs at ~150 Mbit/s and ~1.6 ms, where a timeout costs
	// little (149.1 against 150.5 Mbit/s in this 2 s run; 7.5 % at ~600
	// Mbit/s without the turnaround); RACK-TLP off must still not help.
	if rack := rows["board-rack/pre-fix"]; rack.ThroughputBps > prefix.ThroughputBps {
		t.Errorf("pre-fix without RACK-TLP: %.1f Mbit/s, with it %.1f; want no faster",
			rack.ThroughputBps/1e6, prefix.ThroughputBps/1e6)
	}
	if mod := rows["pc-moderation/pre-fix"]; mod.PathRTTMicros < prefix.PathRTTMicros+100 {
		t.Errorf("250 us PC moderation: path RTT %.0f us, as it is %.0f us", mod.PathRTTMicros, prefix.PathRTTMicros)
	}
	// A gap is reported exactly when the model runs faster than the real
	// 153 Mbit/s; then it needs more round trip or timeouts.
	faster := prefix.ThroughputBps > 153e6
	if g := r.Gap; (g != nil) != faster || g != nil && (g.ExtraRTTMicros <= 0 || g.RTOStalls <= 0) {
		t.Errorf("before-row gap %+v at %.1f Mbit/s against the real 153", g, prefix.ThroughputBps/1e6)
	}
	var b bytes.Buffer
	WriteAblation(&b, r)
	wantText := []string{"cpu-cost       after the fix", "board-rack"}
	if faster {
		wantText = append(wantText, "us of path RTT under load", "retransmission timeouts of 200 ms")
	}
	for _, want := range wantText {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Rows) != 8 {
		t.Fatalf("JSON: %v, %d rows", err, len(doc.Rows))
	}
	for _, k := range []string{"mechanism", "driver", "throughput_bps", "retransmits", "path_rtt_us"} {
		if _, ok := doc.Rows[0][k]; !ok {
			t.Errorf("JSON row lacks %q: %v", k, doc.Rows[0])
		}
	}
}

// TestGap: what a missing mechanism would have to add, from the numbers.
func TestGap(t *testing.T) {
	cases := []struct {
		name                string
		row                 AblationRow
		wantNil             bool
		wantExtra, wantRTOs float64
	}{
		// Mathis: 153 Mbit/s at 0.388 % loss needs ~1487 us; the model has 340.
		{"before", AblationRow{ReportedMbps: 153, ThroughputBps: 300e6, MeasuredFrameLoss: 0.00388, PathRTTMicros: 340}, false, 1147, 24.5},
		{"already slower", AblationRow{ReportedMbps: 153, ThroughputBps: 150e6, MeasuredFrameLoss: 0.004}, true, 0, 0},
		{"no real number", AblationRow{ThroughputBps: 300e6, MeasuredFrameLoss: 0.004}, true, 0, 0},
	}
	for _, c := range cases {
		g := gapOf(c.row, 10*time.Second)
		if (g == nil) != c.wantNil {
			t.Errorf("%s: gap %+v, want nil %v", c.name, g, c.wantNil)
			continue
		}
		if g != nil && (math.Abs(g.ExtraRTTMicros-c.wantExtra) > 10 || math.Abs(g.RTOStalls-c.wantRTOs) > 0.1) {
			t.Errorf("%s: extra RTT %.0f us, %.1f RTOs; want %.0f us, %.1f", c.name, g.ExtraRTTMicros, g.RTOStalls, c.wantExtra, c.wantRTOs)
		}
	}
}

// TestAblateInterrupted: Ctrl-C after the first run leaves that row and counts
// the three unfinished; with the "before" row missing there is no gap.
func TestAblateInterrupted(t *testing.T) {
	ctx, fake := interruptAfterFirst(&perfrun.Report{ThroughputBps: 778e6})
	r, err := Ablate(ctx, Options{Board: "odroid-c1", Seeds: 1, Jobs: 1, RunTCP: fake}, []string{"cpu-cost"})
	if !errors.Is(err, context.Canceled) || r == nil {
		t.Fatalf("err %v, result %v; want context.Canceled and a result", err, r)
	}
	if len(r.Rows) != 1 || r.Rows[0].Mechanism != "none" || r.Rows[0].Config != "after the fix" || r.Unfinished != 3 || r.Gap != nil {
		t.Fatalf("rows %+v, unfinished %d, gap %+v; want the model's fixed row, 3, nil", r.Rows, r.Unfinished, r.Gap)
	}
}

// TestGapText: the text names each currency that applies, with "either" only
// when there are two, and a single timeout in the singular.
func TestGapText(t *testing.T) {
	cases := []struct {
		name string
		gap  Gap
		want string
	}{
		{"two ways", Gap{EmulatedMbps: 300, RealMbps: 153, ExtraRTTMicros: 1147, RTOStalls: 24.5, MinRTOMillis: 200},
			"\nbefore the fix, the model gives 300 Mbit/s where the real board gave 153; a missing mechanism would have to add either\n" +
				"  1147 us of path RTT under load (Mathis's rule at the measured loss), or\n" +
				"  24 retransmission timeouts of 200 ms in 10 s (each a lost retransmission or a lost tail)\n"},
		{"timeouts only", Gap{EmulatedMbps: 157, RealMbps: 153, RTOStalls: 1.2, MinRTOMillis: 200},
			"\nbefore the fix, the model gives 157 Mbit/s where the real board gave 153; a missing mechanism would have to add\n" +
				"  1 retransmission timeout of 200 ms in 10 s (each a lost retransmission or a lost tail)\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		c.gap.writeText(&b, 10)
		if b.String() != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, b.String(), c.want)
		}
	}
}
