package perfrun

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"mesonemu/sim"
)

// outputOf runs the main job and returns its text output without the one line
// that depends on the host (wall time).
func outputOf(t *testing.T, o Options) []byte {
	t.Helper()
	var out bytes.Buffer
	o.Output = &out
	if _, _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	for _, line := range bytes.Split(out.Bytes(), []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("wall time ")) {
			kept = append(kept, line)
		}
	}
	return bytes.Join(kept, []byte("\n"))
}

// TestSameSeedSameRun: a short pre-fix run is a function of the seed alone:
// byte for byte the same output alone and under GOMAXPROCS 1, and a different
// seed gives a different run.
func TestSameSeedSameRun(t *testing.T) {
	d := uint32(4)
	o := Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: &d, Seed: 1}, Duration: 2 * time.Second}
	first := outputOf(t, o)
	prev := runtime.GOMAXPROCS(1)
	second := outputOf(t, o)
	runtime.GOMAXPROCS(prev)
	if !bytes.Equal(first, second) {
		t.Fatalf("seed 1 gave two different runs (GOMAXPROCS %d, then 1):\n%s\n----\n%s", prev, first, second)
	}
	if !bytes.Contains(first, []byte("retransmits")) || !bytes.Contains(first, []byte("sender")) {
		t.Fatalf("no iperf3 summary in the output:\n%s", first)
	}
	o.Sim.Seed = 2
	if other := outputOf(t, o); bytes.Equal(first, other) {
		t.Fatal("seeds 1 and 2 gave the same run")
	}
}
