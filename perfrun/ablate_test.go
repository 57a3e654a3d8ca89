package perfrun

import (
	"context"
	"strings"
	"testing"
)

// TestAblationsReachTheBoard: the mechanisms that live in the guest's stmmac
// tuning or the far end show in what the board booted into; a bad name is
// refused with the list.
func TestAblationsReachTheBoard(t *testing.T) {
	cases := []struct {
		name  string
		check func(*Report) bool
	}{
		{"none", func(r *Report) bool { return r.Stmmac.TxCoalFrames == 25 && r.PCRxModerationUs == 0 }},
		{"tx-coalescing", func(r *Report) bool { return r.Stmmac.TxCoalFrames == 1 }},
		{"pc-moderation", func(r *Report) bool { return r.PCRxModerationUs == 250 }},
	}
	for _, c := range cases {
		b, err := Start(context.Background(), Options{Ablate: c.name})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b.Report.Ablation != c.name || !c.check(b.Report) {
			t.Errorf("%s: ablation %q, stmmac %+v, PC moderation %.0f us", c.name, b.Report.Ablation, b.Report.Stmmac, b.Report.PCRxModerationUs)
		}
		b.Close()
	}
	if _, err := LookupAblation("nagle"); err == nil || !strings.Contains(err.Error(), "board-rack") {
		t.Errorf("unknown ablation: %v", err)
	}
	for _, a := range Ablations {
		if got, err := LookupAblation(a.Name); err != nil || got.What == "" {
			t.Errorf("%s: %v, %q", a.Name, err, got.What)
		}
	}
}
