package rgmiiwire

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"mesonemu/ether"
)

// fuzzMaxFrame bounds the frames the fuzzer sends (a jumbo frame and some).
const fuzzMaxFrame = 20000

// FuzzWireTiming feeds arbitrary timing (NaN, ±Inf, negative, huge, subnormal) and
// frames to the budget and the wire. Whatever the numbers:
//   - Validate, NewBudget, New and Configure agree on what is acceptable, and a
//     refused Configure keeps the old timing;
//   - every probability the package reports (per-sample Q, Eps, PredictedLoss for
//     any frame length, FrameLossProbability, bathtub BER) lies in [0, 1];
//   - Transmit never panics, keeps the frame length, reports FrameDamaged exactly
//     when a frame byte changed, counts at least the bits that changed, and Stats
//     follow its results; a wrong-half budget loses every frame.
func FuzzWireTiming(f *testing.F) {
	type seed struct {
		speed                                   int
		period, mac, phy, board, s0, s1, s2, s3 float64
		setup, hold, sigma                      float64
		frameLen                                int
		rngSeed                                 uint64
	}
	inf, nan := math.Inf(1), math.NaN()
	for _, s := range []seed{
		{1000, 8000, 2000, 0, 591, 0, 0, 0, 0, 300, 300, 60, 64, 1},           // Odroid-C1 fixed
		{1000, 8000, 4000, 0, 591, 0, 0, 0, 0, 300, 300, 60, 1514, 2},         // pre-fix: wrong half
		{1000, 8000.0096, 2000, 2000, 591, 0, 0, 0, 0, 300, 300, 60, 1518, 3}, // both delays
		{100, 40000, 0, 2000, 591, 0, 0, 900, 0, 1000, 1000, 200, 200, 4},
		{10, 400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 60, 5},          // no jitter: step
		{1000, 8000, 0, 0, 0, 0, 0, 0, 0, 5000, 5000, 1e6, 100, 6}, // aperture > UI
		{1000, 5e-324, 1e6, -1e6, 1e6, -1e6, 1e6, -1e6, 1e6, 1e6, 1e6, 5e-324, 10, 7},
		{1000, nan, inf, -inf, nan, 0, 0, 0, 0, -1, -1, -1, 0, 8},
		{0, 8000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9},
		{1000, 8000, 3999.999, 0, 0, 1e-9, -1e-9, 4000, -4000, 300, 300, 60, 9018, 10},
	} {
		frame := make([]byte, s.frameLen)
		for i := range frame {
			frame[i] = byte(i * 37)
		}
		f.Add(s.speed, s.period, s.mac, s.phy, s.board, s.s0, s.s1, s.s2, s.s3, s.setup, s.hold, s.sigma, frame, s.rngSeed)
	}
	f.Fuzz(func(t *testing.T, speed int, period, mac, phy, board, s0, s1, s2, s3, setup, hold, sigma float64,
		frame []byte, rngSeed uint64) {
		tm := Timing{
			Direction: "fuzz", SpeedMbps: speed, ClockPeriodPs: period,
			MACDelayPs: mac, PHYDelayPs: phy, BoardSkewPs: board,
			LineSkewPs: [Lines]float64{s0, s1, s2, s3},
			SetupPs:    setup, HoldPs: hold, JitterSigmaPs: sigma,
		}
		if len(frame) > fuzzMaxFrame {
			frame = frame[:fuzzMaxFrame]
		}
		checkTiming(t, tm, frame, rngSeed)
	})
}

func checkTiming(t *testing.T, tm Timing, frame []byte, rngSeed uint64) {
	valid := tm.Validate() == nil
	b, berr := NewBudget(tm)
	w, werr := New(tm, rand.New(rand.NewPCG(rngSeed, 1)))
	good := odroidTX(2000, 0)
	g := mustWire(t, good, 1)
	gerr := g.Configure(tm)
	if (berr == nil) != valid || (werr == nil) != valid || (gerr == nil) != valid || (werr != nil) != (w == nil) {
		t.Fatalf("Validate %v, NewBudget %v, New %v, Configure %v disagree", tm.Validate(), berr, werr, gerr)
	}
	if !valid {
		if g.Timing() != good {
			t.Fatal("a refused Configure changed the timing")
		}
		return
	}
	checkProbabilities(t, b, frame)
	checkTransmit(t, w, b, frame)
	_ = b.String()
	eye := b.Eye(rand.New(rand.NewPCG(rngSeed, 2)), int(rngSeed%6)-1, int(rngSeed%2000))
	_, _ = eye.Violations()
}

func inUnit(p float64) bool { return p >= 0 && p <= 1 } // false for NaN

func checkProbabilities(t *testing.T, b Budget, frame []byte) {
	t.Helper()
	for k, l := range b.Lines {
		if !inUnit(l.QSetup) || !inUnit(l.QHold) || !inUnit(l.Eps()) || math.IsNaN(l.Log10Eps()) ||
			l.LogQSetup > 0 || l.LogQHold > 0 || math.IsNaN(l.LogQSetup) || math.IsNaN(l.LogQHold) {
			t.Fatalf("line %d: %+v (eps %g)", k, l, l.Eps())
		}
	}
	for _, n := range []int{math.MinInt, -1, 0, 46, 1514, 9000, len(frame), math.MaxInt / 2, math.MaxInt} {
		if p := b.PredictedLoss(n); !inUnit(p) || b.WrongHalf && p != 1 {
			t.Fatalf("PredictedLoss(%d) = %g (wrong half %v)", n, p, b.WrongHalf)
		}
	}
	if p := b.FrameLossProbability(frame); !inUnit(p) || b.WrongHalf && p != 1 {
		t.Fatalf("FrameLossProbability = %g", p)
	}
	for _, pt := range b.Bathtub(0, 17).Points {
		if !inUnit(pt.BER) {
			t.Fatalf("bathtub point %+v", pt)
		}
	}
}

func checkTransmit(t *testing.T, w *Wire, b Budget, frame []byte) {
	t.Helper()
	for i := range 3 {
		sent := append([]byte(nil), frame...)
		before := w.Stats()
		res := w.Transmit(sent)
		after := w.Stats()
		if len(sent) != len(frame) {
			t.Fatalf("frame length %d became %d", len(frame), len(sent))
		}
		changed := 0
		for j := range sent {
			changed += bits.OnesCount8(sent[j] ^ frame[j])
		}
		maxBits := 8 * (ether.PreambleSFDLen + len(frame))
		if res.FrameDamaged != (changed > 0) || res.FlippedBits < changed || res.FlippedBits > maxBits || res.Misses < 0 {
			t.Fatalf("transmit %d: %+v with %d frame bits changed", i, res, changed)
		}
		if b.WrongHalf && (!res.NibbleShifted || res.Misses != 0) {
			t.Fatalf("wrong-half budget, result %+v", res)
		}
		if res.NibbleShifted && !b.WrongHalf {
			t.Fatalf("nibble shift without a wrong-half budget: %+v", res)
		}
		damaged := uint64(0)
		if res.Damaged() {
			damaged = 1
		}
		if after.Frames != before.Frames+1 || after.Damaged != before.Damaged+damaged ||
			after.FlippedBits != before.FlippedBits+uint64(res.FlippedBits) {
			t.Fatalf("stats %+v -> %+v for %+v", before, after, res)
		}
	}
}
