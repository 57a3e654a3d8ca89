package linktest

import (
	"context"
	"math"
	"testing"

	"mesonemu/sim"
)

func u32(v uint32) *uint32 { return &v }

// on is the phytool override that turns the PHY's TX delay on after boot: one
// device tree cannot ask for a MAC delay and a PHY TX delay at once in v5.5.
var on = true

// TestOutcomeMatrix drives 200,000 full-size frames per direction through each
// configuration of the commit's outcome matrix (seed 1) and checks the loss the
// wire model produces against what the real board showed.
func TestOutcomeMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("200,000-frame runs; skipped with -short")
	}
	const frames = 200_000
	cases := []struct {
		name             string
		so               sim.Options
		txMin, txMax     float64
		predMin, predMax float64
	}{
		{"pre-fix 4 ns (the commit's 'before')", sim.Options{Driver: "pre-fix", TxDelayNs: u32(4)}, 0.0025, 0.0055, 0.0035, 0.0042},
		{"pre-fix 2 ns (dead)", sim.Options{Driver: "pre-fix", TxDelayNs: u32(2)}, 0.99, 1, 0.99, 1},
		{"fixed 2 ns (the commit's 'after')", sim.Options{Driver: "fixed", TxDelayNs: u32(2)}, 0, 0, 0, 1e-60},
		{"fixed rgmii-txid (PHY delay)", sim.Options{Driver: "fixed", PhyMode: "rgmii-txid"}, 0, 0, 0, 1e-60},
		{"fixed rgmii-id (PHY delay)", sim.Options{Driver: "fixed", PhyMode: "rgmii-id"}, 0, 0, 0, 1e-60},
		{"fixed 2 ns MAC + PHY 2 ns", sim.Options{Driver: "fixed", TxDelayNs: u32(2), PHYTXDelay: &on}, 0.99, 1, 0.99, 1},
		{"fixed 4 ns (mechanism A: dead)", sim.Options{Driver: "fixed", TxDelayNs: u32(4)}, 0.99, 1, 0.99, 1},
		{"odroid-c2", sim.Options{Board: "odroid-c2"}, 0, 0, 0, 1e-60},
		{"pre-fix 4 ns at 100 Mbit/s", sim.Options{Driver: "pre-fix", TxDelayNs: u32(4), Speed: 100}, 0, 0, 0, 1e-60},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			so := c.so
			so.Seed = 1
			r, err := Run(context.Background(), so, Options{Frames: frames, Size: 1514, Payload: "random", Direction: "both"})
			if err != nil {
				t.Fatal(err)
			}
			tx, rx := r.TX, r.RX
			if tx.MeasuredLoss < c.txMin || tx.MeasuredLoss > c.txMax {
				t.Errorf("TX loss %.5f outside %.5f..%.5f (%d of %d lost)", tx.MeasuredLoss, c.txMin, c.txMax, tx.Sent-tx.Received, tx.Sent)
			}
			if tx.PredictedLoss < c.predMin || tx.PredictedLoss > c.predMax {
				t.Errorf("TX predicted loss %.3g outside %.3g..%.3g", tx.PredictedLoss, c.predMin, c.predMax)
			}
			if math.Abs(tx.Sigmas) > 3 {
				t.Errorf("TX measured %.5f vs predicted %.5f: %.1f sigma", tx.MeasuredLoss, tx.PredictedLoss, tx.Sigmas)
			}
			if rx.Received != rx.Sent || rx.MeasuredLoss != 0 {
				t.Errorf("RX lost %d of %d frames: %+v", rx.Sent-rx.Received, rx.Sent, rx.Drops)
			}
			for _, d := range []*DirResult{tx, rx} {
				var dropped uint64
				for _, x := range d.Drops {
					dropped += x.Count
				}
				if d.InFlight != 0 || d.Sent != d.Received+dropped {
					t.Errorf("%s: conservation broken: sent %d != received %d + dropped %d (in flight %d)", d.Direction, d.Sent, d.Received, dropped, d.InFlight)
				}
			}
		})
	}
}

// TestSeedsReproduce checks that the same seed breaks the same number of frames
// and another seed a different number.
func TestSeedsReproduce(t *testing.T) {
	run := func(seed uint64) uint64 {
		r, err := Run(context.Background(), sim.Options{Driver: "pre-fix", TxDelayNs: u32(4), Seed: seed}, Options{Frames: 30_000, Size: 1514, Payload: "random", Direction: "tx"})
		if err != nil {
			t.Fatal(err)
		}
		return r.TX.Sent - r.TX.Received
	}
	a, b, c := run(1), run(1), run(2)
	if a != b || a == c || a == 0 {
		t.Fatalf("seed 1 lost %d then %d frames, seed 2 lost %d", a, b, c)
	}
}

// TestZeroPayloadLosesLess: errors need data transitions, so all-zero frames
// (transitions only in the header and FCS) break far less often than random ones.
func TestZeroPayloadLosesLess(t *testing.T) {
	r, err := Run(context.Background(), sim.Options{Driver: "pre-fix", TxDelayNs: u32(4), Seed: 1}, Options{Frames: 50_000, Size: 1514, Payload: "zeros", Direction: "tx"})
	if err != nil {
		t.Fatal(err)
	}
	if r.TX.PredictedLoss > 1e-4 || r.TX.PredictedLoss < 1e-6 {
		t.Fatalf("zero-payload predicted loss %.3g, want ~3.4e-5", r.TX.PredictedLoss)
	}
	if lost := r.TX.Sent - r.TX.Received; lost > 10 {
		t.Fatalf("zero payload lost %d of %d frames (predicted %.2f)", lost, r.TX.Sent, r.TX.PredictedLoss*float64(r.TX.Sent))
	}
}
