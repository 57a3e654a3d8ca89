package rgmiiwire

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBathtub(t *testing.T) {
	b := mustBudget(t, odroidTX(8000, 0))
	tub := b.Bathtub(0, 4001) // 1 ps steps over the 4000 ps UI
	if len(tub.Points) != 4001 || tub.Points[0].OffsetPs != 0 || tub.Points[4000].OffsetPs != 4000 {
		t.Fatalf("points: %d, first %.1f, last %.1f", len(tub.Points), tub.Points[0].OffsetPs, tub.Points[4000].OffsetPs)
	}
	// At the operating point 591 ps the curve equals the budget's eps.
	if p := tub.Points[591]; math.Abs(p.BER/b.Lines[0].Eps()-1) > 1e-12 || tub.OperatingPs != 591 || tub.OperatingBER != b.Lines[0].Eps() {
		t.Errorf("BER at 591 ps %.5g, operating %.1f ps %.5g, eps %.5g", p.BER, tub.OperatingPs, tub.OperatingBER, b.Lines[0].Eps())
	}
	// Sampling on the transition misses (setup side) nearly always, and a miss is
	// visible half the time: a·(Q(-5) + Q(61.7)) = 0.49999985667 (mpmath).
	if p := tub.Points[0].BER; math.Abs(p-0.49999985667) > 1e-11 {
		t.Errorf("BER at offset 0 = %.9f", p)
	}
	// Setup = hold: the tub is symmetric and lowest in the middle.
	for i := range 2000 {
		if a, c := tub.Points[i].BER, tub.Points[4000-i].BER; math.Abs(a-c) > 1e-15*math.Max(a, 1e-300) && a != c {
			t.Fatalf("asymmetric at %d ps: %g vs %g", i, a, c)
		}
	}
	// Mid-UI: z = 1700/60 on both sides, a·2·Q(28.33) = 6.7157e-177 (mpmath).
	if mid := tub.Points[2000].BER; math.Abs(mid/6.71573e-177-1) > 1e-5 {
		t.Errorf("BER mid-UI = %g, want 6.71573e-177", mid)
	}
	if n := len(b.Bathtub(7, 1).Points); n != MinBathtubPoints {
		t.Errorf("points clamped to %d, want %d", n, MinBathtubPoints)
	}
}

func TestEyeEdgesAreJitteredAroundThePhase(t *testing.T) {
	// Sample 400 ps after the transition: q_s = Q(100/60) = 0.04779.
	tm := odroidTX(8000, 0)
	tm.BoardSkewPs = 400
	b := mustBudget(t, tm)
	const uis = 200000
	eye := b.Eye(rand.New(rand.NewPCG(1, 1)), 0, uis)
	n := float64(len(eye.Edges))
	// Random data: each of the uis-1 boundaries is an edge with probability 1/2.
	if math.Abs(n-(uis-1)/2.0) > 3*math.Sqrt(uis/4.0) {
		t.Errorf("%v edges in %d UIs", n, uis)
	}
	times := make([]float64, len(eye.Edges))
	rising := 0
	for i, e := range eye.Edges {
		times[i] = e.TimePs
		if e.Rising {
			rising++
		}
		if i > 0 && e.Rising == eye.Edges[i-1].Rising {
			t.Fatalf("edges %d and %d both rising=%v", i-1, i, e.Rising)
		}
	}
	mean, std := meanStd(times)
	if math.Abs(mean+400) > 3*60/math.Sqrt(n) || math.Abs(std/60-1) > 0.01 {
		t.Errorf("edge time mean %.2f std %.2f, want -400, 60", mean, std)
	}
	setup, hold := eye.Violations()
	if want := n * Q(100.0/60); math.Abs(float64(setup)-want) > 3*math.Sqrt(want) || hold != 0 {
		t.Errorf("violations: setup %d (want %.0f), hold %d", setup, want, hold)
	}
	again := b.Eye(rand.New(rand.NewPCG(1, 1)), 0, uis)
	if len(again.Edges) != len(eye.Edges) || again.Edges[1000] != eye.Edges[1000] {
		t.Errorf("same seed, different eye")
	}
	if got := b.Eye(nil, 0, 10); len(got.Edges) != 0 {
		t.Errorf("nil stream produced edges")
	}
}

func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}
