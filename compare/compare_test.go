package compare

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
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
		"fixed, 4 ns": true, "PHY delay only": false, "MAC 2 ns + PHY": true,
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
			if row.EffectiveTXDelayPs < 7999 || row.EffectiveTXDelayPs > 8001 {
				t.Errorf("%s: effective TX delay %.1f ps, want 8000", row.Name, row.EffectiveTXDelayPs)
			}
		}
	}
	var b bytes.Buffer
	WriteTable(&b, r)
	if !strings.Contains(b.String(), "link dead") || !strings.Contains(b.String(), "153 Mbit/s, 514 retransmits") {
		t.Errorf("table:\n%s", b.String())
	}
}
