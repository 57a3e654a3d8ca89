package rgmiiwire

import (
	"math"
	"testing"
)

// TestPredictedLossHugeFrameLength: the sample count of a frame length near
// math.MaxInt overflowed int and turned the loss negative (-Inf for a lossy
// timing). Any length must give a probability, 1 in the limit. (Found by
// FuzzWireTiming.)
func TestPredictedLossHugeFrameLength(t *testing.T) {
	lossy := odroidTX(2000, 0)
	lossy.JitterSigmaPs = 300 // eps about 1e-3: a huge frame is surely lost
	clean := odroidTX(2000, 0)
	// With four equal lines: 1 - (1-eps)^(4 * 2 * (L + 12)).
	formula := func(tm Timing, n float64) float64 {
		return -math.Expm1(4 * 2 * (n + 12) * math.Log1p(-mustBudget(t, tm).Lines[0].Eps()))
	}
	tests := []struct {
		name   string
		timing Timing
		n      int
		want   float64
	}{
		{"lossy timing, MaxInt bytes", lossy, math.MaxInt, 1},
		{"lossy timing, MaxInt-11 bytes", lossy, math.MaxInt - 11, 1},
		{"clean timing, MaxInt bytes", clean, math.MaxInt, formula(clean, math.MaxInt)},
		{"negative length counts as empty", lossy, math.MinInt, formula(lossy, 0)},
	}
	for _, tt := range tests {
		b := mustBudget(t, tt.timing)
		if got := b.PredictedLoss(tt.n); got != tt.want {
			t.Errorf("%s: PredictedLoss = %g, want %g", tt.name, got, tt.want)
		}
	}
}

// TestValidateRefusesSubPicosecondClock: a clock period so short that the
// delay-to-phase arithmetic breaks down (5e-324 ps gave NaN phases and
// probabilities, and a sampler displaced by math.MinInt nibbles) is not a clock
// the model can use. (Found by FuzzWireTiming.)
func TestValidateRefusesSubPicosecondClock(t *testing.T) {
	for _, period := range []float64{5e-324, 1e-300, 0.999} {
		tm := odroidTX(2000, 0)
		tm.ClockPeriodPs = period
		if _, err := NewBudget(tm); err == nil {
			t.Errorf("clock period %g ps accepted", period)
		}
	}
	tm := odroidTX(2000, 0)
	tm.ClockPeriodPs = 1
	if _, err := NewBudget(tm); err != nil {
		t.Errorf("1 ps clock refused: %v", err)
	}
}

// wideAperture is a 100 Mbit/s timing whose setup + hold (8136 ps) exceed the
// 4000 ps unit interval, with line skews that round line 0's normalised miss
// rates to 1 + 2^-52 (the numbers FuzzWireTiming found).
func wideAperture() Timing {
	return Timing{Direction: "RX", SpeedMbps: 100, ClockPeriodPs: 4000, MACDelayPs: -18, PHYDelayPs: 16000,
		BoardSkewPs: 591, LineSkewPs: [Lines]float64{-15, 0, 900, 0},
		SetupPs: 109.11111111111111, HoldPs: 8027, JitterSigmaPs: 85.71428571428572}
}

// TestWideApertureMissRatesStayProbabilities: normalising q_s + q_h > 1 must give
// rates summing to at most 1. At 1 + 2^-52, ln(1 - q) was NaN: FrameLossProbability
// returned NaN, and the skip walk never reached its end condition (a NaN skip
// compares false), so Transmit looped forever under the machine lock. Every
// sample misses here, so every frame is damaged.
func TestWideApertureMissRatesStayProbabilities(t *testing.T) {
	b := mustBudget(t, wideAperture())
	for k, l := range b.Lines {
		if s, h := l.missRates(); s < 0 || h < 0 || s+h > 1 {
			t.Fatalf("line %d: miss rates %g + %g = %g", k, s, h, s+h)
		}
	}
	if p := b.FrameLossProbability(make([]byte, 64)); !(p >= 0 && p <= 1) {
		t.Fatalf("FrameLossProbability = %g", p)
	}
	w := mustWire(t, wideAperture(), 1)
	for k, l := range w.lines {
		if math.IsNaN(l.logNoMiss) || l.missRate > 1 {
			t.Fatalf("line %d walk %+v", k, l)
		}
	}
	for i := range 20 {
		frame := make([]byte, 64)
		for j := range frame {
			frame[j] = byte(i*31 + j*7)
		}
		if res := w.Transmit(frame); !res.FrameDamaged || res.Misses < 4*samplesPerLine(64)-4 {
			t.Fatalf("frame %d: %+v, want damaged with (nearly) every sample missed", i, res)
		}
	}
}
