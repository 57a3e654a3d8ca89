package linktest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"mesonemu/linkclass"
	"mesonemu/sim"
)

// Every configuration answers with a verdict, and the zero options are the
// defaults (both directions here, since Direction is "").
func TestVerdicts(t *testing.T) {
	for _, c := range []struct {
		driver  string
		txDelay uint32
		want    string
		lostTX  uint64
	}{
		{"pre-fix", 4, linkclass.Lossy, 10},
		{"fixed", 2, linkclass.Clean, 0},
		{"pre-fix", 2, linkclass.Dead, 3000},
		{"fixed", 4, linkclass.Dead, 3000},
	} {
		r, err := Run(context.Background(), sim.Options{Driver: c.driver, TxDelayNs: u32(c.txDelay), Seed: 1}, Options{Frames: 3000})
		if err != nil {
			t.Fatalf("%s %d ns: %v", c.driver, c.txDelay, err)
		}
		v := r.Verdict
		if v.Class != c.want || v.BoardToPC.Lost != c.lostTX || v.BoardToPC.Sent != 3000 || v.PCToBoard.Sent != 3000 {
			t.Errorf("%s %d ns: %+v, want %s with %d of 3000 lost", c.driver, c.txDelay, v, c.want, c.lostTX)
		}
		raw, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), `"drops":null`) {
			t.Errorf("%s %d ns: drops is null in %s", c.driver, c.txDelay, raw)
		}
	}
}

// A context that has already ended stops the run at once: what it measured
// comes back, marked interrupted, with the context's error.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, sim.Options{Seed: 1}, Options{Frames: 1000})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if r == nil || !r.Interrupted || r.TX == nil || r.TX.Sent != 0 || r.Verdict.Class != linkclass.Dead {
		t.Fatalf("result %+v, want an interrupted run with nothing sent", r)
	}
}
