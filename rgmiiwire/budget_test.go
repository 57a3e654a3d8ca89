package rgmiiwire

import (
	"math"
	"strings"
	"testing"
)

// docs/reference/rgmii-timing.md §5.2 defaults (mechanism A): s0 = +591 ps calibrated, ts = th = 300 ps,
// σ = 60 ps, 125 MHz.
func odroidTX(macPs, phyPs float64) Timing {
	return Timing{
		Direction:     "TX",
		SpeedMbps:     1000,
		ClockPeriodPs: 8000,
		MACDelayPs:    macPs,
		PHYDelayPs:    phyPs,
		BoardSkewPs:   591,
		SetupPs:       300,
		HoldPs:        300,
		JitterSigmaPs: 60,
	}
}

func mustBudget(t *testing.T, tm Timing) Budget {
	t.Helper()
	b, err := NewBudget(tm)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func within(got, lo, hi float64) bool { return got >= lo && got <= hi }

func TestBudgetReproducesReferenceTable(t *testing.T) {
	// docs/reference/rgmii-timing.md §5.3 (mechanism A predictions) and §2 step 6.
	tests := []struct {
		name          string
		mac, phy      float64
		phi           float64
		wrongHalf     bool
		zSetup, zHold float64 // ignored when wrong half
		lossLo        float64 // P(1514) bounds
		lossHi        float64
	}{
		{"pre-fix TXDLY 2 (8 ns)", 8000, 0, 591, false, 4.85, 51.82, 3.5e-3, 4.1e-3},
		{"pre-fix TXDLY 1 (4 ns)", 4000, 0, 4591, true, 0, 0, 1, 1},
		{"post-fix TXDLY 1 (2 ns)", 2000, 0, 2591, false, 38.18, 18.48, 8.0e-73, 9.2e-73},
		{"post-fix MAC 0 + PHY 2 ns", 0, 2000, 2591, false, 38.18, 18.48, 8.0e-73, 9.2e-73},
		{"MAC 2 ns + PHY 2 ns", 2000, 2000, 4591, true, 0, 0, 1, 1},
		{"post-fix TXDLY 3 (6 ns)", 6000, 0, 6591, true, 0, 0, 1, 1},
		{"no delay anywhere", 0, 0, 591, false, 4.85, 51.82, 3.5e-3, 4.1e-3},
	}
	for _, tc := range tests {
		b := mustBudget(t, odroidTX(tc.mac, tc.phy))
		if math.Abs(b.PhasePs-tc.phi) > 1e-6 || b.WrongHalf != tc.wrongHalf {
			t.Errorf("%s: phi %.3f wrong half %v, want %.3f %v", tc.name, b.PhasePs, b.WrongHalf, tc.phi, tc.wrongHalf)
		}
		l := b.Lines[0]
		if !tc.wrongHalf && (math.Abs(l.ZSetup-tc.zSetup) > 0.01 || math.Abs(l.ZHold-tc.zHold) > 0.01) {
			t.Errorf("%s: z %.3f / %.3f, want %.2f / %.2f", tc.name, l.ZSetup, l.ZHold, tc.zSetup, tc.zHold)
		}
		if p := b.PredictedLoss(1514); !within(p, tc.lossLo, tc.lossHi) {
			t.Errorf("%s: P(1514) = %.4g, want in [%g, %g]", tc.name, p, tc.lossLo, tc.lossHi)
		}
	}
}

func TestPreFixMarginsAndProbabilities(t *testing.T) {
	l := mustBudget(t, odroidTX(8000, 0)).Lines[0]
	// Ms = 591 - 300, Mh = 4000 - 591 - 300; q_s = Q(4.85) = 6.1731e-7.
	if l.SetupMarginPs != 291 || l.HoldMarginPs != 3109 {
		t.Errorf("margins %.3f / %.3f ps, want 291 / 3109", l.SetupMarginPs, l.HoldMarginPs)
	}
	if math.Abs(l.QSetup/6.1731e-7-1) > 1e-3 || l.QHold != 0 {
		t.Errorf("q_s %.5g q_h %g, want 6.1731e-7 and underflow 0", l.QSetup, l.QHold)
	}
	if math.Abs(l.LogQHold/math.Ln10+585.1469) > 1e-3 {
		t.Errorf("log10 q_h = %.4f, want -585.1469 (Q(3109/60), mpmath)", l.LogQHold/math.Ln10)
	}
	if math.Abs(l.Eps()/3.0866e-7-1) > 1e-3 {
		t.Errorf("eps = %.5g, want 3.0866e-7 (docs/reference/rgmii-timing.md §2 step 6: 3.19e-7 for 0.388 %%)", l.Eps())
	}
}

func TestFrameSizeScaling(t *testing.T) {
	// docs/reference/rgmii-timing.md §2 step 7, pre-fix operating point.
	b := mustBudget(t, odroidTX(8000, 0))
	for _, tc := range []struct {
		len  int
		want float64
	}{{60, 1.78e-4}, {66, 1.93e-4}, {100, 2.77e-4}, {576, 1.45e-3}, {1000, 2.50e-3}, {1514, 3.76e-3}} {
		if p := b.PredictedLoss(tc.len); math.Abs(p/tc.want-1) > 0.01 {
			t.Errorf("P(%d) = %.4g, want %.3g", tc.len, p, tc.want)
		}
	}
}

func TestTinyLossIsNotRoundedToZero(t *testing.T) {
	b := mustBudget(t, odroidTX(2000, 0))
	p := b.PredictedLoss(1514)
	// 12,208 samples × 0.5 × Q(1109/60) = 12208 × 0.5 × 1.40628e-76 = 8.584e-73
	// (docs/reference/rgmii-timing.md §5.3: 8.6e-73).
	if math.Abs(p/8.584e-73-1) > 1e-3 {
		t.Errorf("P(1514) = %g, want 8.584e-73", p)
	}
	if got := b.Lines[0].Log10Eps(); math.Abs(got+76.15296) > 1e-4 {
		t.Errorf("log10 eps = %.3f", got)
	}
}

func TestSlowSpeedsHaveNoLossAtPreFixDelays(t *testing.T) {
	// docs/reference/rgmii-timing.md §7: 10/100 sample the rising edge of a 40 / 400 ns clock.
	for _, speed := range []int{100, 10} {
		for _, mac := range []float64{8000, 4000} {
			tm := odroidTX(mac, 0)
			tm.SpeedMbps = speed
			tm.ClockPeriodPs = 40000
			if speed == 10 {
				tm.ClockPeriodPs = 400000
			}
			b := mustBudget(t, tm)
			if b.WrongHalf || b.PredictedLoss(1514) != 0 || b.UnitIntervalPs != tm.ClockPeriodPs {
				t.Errorf("%d Mbit/s, MAC %g ps: wrong half %v, P = %g, UI %g", speed, mac, b.WrongHalf, b.PredictedLoss(1514), b.UnitIntervalPs)
			}
		}
	}
}

func TestActualClockPeriodSetsThePhase(t *testing.T) {
	// Pre-fix: MAC delay is exactly one period of the real TX clock
	// (1e12/124,999,850 Hz = 8000.0096 ps), so phi = s0 exactly.
	period := 1e12 / 124999850
	tm := odroidTX(period, 0)
	tm.ClockPeriodPs = period
	b := mustBudget(t, tm)
	if math.Abs(b.PhasePs-591) > 1e-6 {
		t.Errorf("phi = %.6f, want 591", b.PhasePs)
	}
	// A nominal 8000 ps MAC delay against the real period lands 0.0096 ps earlier.
	tm.MACDelayPs = 8000
	if b := mustBudget(t, tm); math.Abs(b.PhasePs-(591-(period-8000))) > 1e-6 {
		t.Errorf("phi = %.6f", b.PhasePs)
	}
}

func TestMechanismBRows(t *testing.T) {
	// docs/reference/rgmii-timing.md §6.3: s0 = -591 ps, PHY 2.2 ns.
	tests := []struct {
		name          string
		mac, phy      float64
		wrongHalf     bool
		zSetup, zHold float64
	}{
		{"pre-fix TXDLY 2", 4000, 0, false, 51.82, 4.85},
		{"pre-fix TXDLY 1 (0.39 ns)", 392, 0, true, 0, 0},
		{"post-fix MAC 2 ns + PHY", 2000, 2200, false, 55.15, 1.52},
		{"no delay anywhere", 0, 0, true, 0, 0},
	}
	for _, tc := range tests {
		tm := odroidTX(tc.mac, tc.phy)
		tm.BoardSkewPs = -591
		b := mustBudget(t, tm)
		l := b.Lines[0]
		if b.WrongHalf != tc.wrongHalf || (!tc.wrongHalf && (math.Abs(l.ZSetup-tc.zSetup) > 0.01 || math.Abs(l.ZHold-tc.zHold) > 0.01)) {
			t.Errorf("%s: wrong half %v z %.2f/%.2f", tc.name, b.WrongHalf, l.ZSetup, l.ZHold)
		}
	}
}

func TestPerLineSkews(t *testing.T) {
	tm := odroidTX(2000, 0)
	tm.LineSkewPs = [Lines]float64{0, -2000, 1500, 100}
	b := mustBudget(t, tm)
	// Line 1: phase 591 -> the pre-fix setup-limited point; line 2: 4091 -> next nibble.
	want := []struct {
		shift  int
		sample float64
	}{{0, 2591}, {0, 591}, {1, 91}, {0, 2691}}
	for k, w := range want {
		l := b.Lines[k]
		if l.Shift != w.shift || math.Abs(l.SamplePhasePs-w.sample) > 1e-9 {
			t.Errorf("line %d: shift %d sample %.3f, want %d %.3f", k, l.Shift, l.SamplePhasePs, w.shift, w.sample)
		}
	}
	if !b.WrongHalf || b.PredictedLoss(64) != 1 {
		t.Errorf("a shifted line must lose every frame")
	}
	tm.LineSkewPs[2] = 0
	b = mustBudget(t, tm)
	// Only line 1 at the pre-fix phase: a quarter of the samples at the pre-fix rate.
	if p := b.PredictedLoss(1514); math.Abs(p/(1-math.Pow(1-3.0866e-7, 2*1526))-1) > 2e-3 {
		t.Errorf("P(1514) with one bad line = %.4g", p)
	}
	if b.Limiting().SamplePhasePs != 591 {
		t.Errorf("limiting line at %.1f ps, want the 591 ps line", b.Limiting().SamplePhasePs)
	}
}

func TestValidate(t *testing.T) {
	good := odroidTX(2000, 0)
	tests := []struct {
		name   string
		modify func(*Timing)
		ok     bool
	}{
		{"defaults", func(*Timing) {}, true},
		{"zero jitter", func(t *Timing) { t.JitterSigmaPs = 0 }, true},
		{"speed 2500", func(t *Timing) { t.SpeedMbps = 2500 }, false},
		{"no clock", func(t *Timing) { t.ClockPeriodPs = 0 }, false},
		{"negative period", func(t *Timing) { t.ClockPeriodPs = -8000 }, false},
		{"NaN skew", func(t *Timing) { t.BoardSkewPs = math.NaN() }, false},
		{"infinite line skew", func(t *Timing) { t.LineSkewPs[3] = math.Inf(1) }, false},
		{"negative hold", func(t *Timing) { t.HoldPs = -1 }, false},
		{"absurd delay", func(t *Timing) { t.MACDelayPs = 1e12 }, false},
		{"negative delay", func(t *Timing) { t.MACDelayPs = -500 }, true},
	}
	for _, tc := range tests {
		tm := good
		tc.modify(&tm)
		if err := tm.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestZeroJitterIsAStepFunction(t *testing.T) {
	tm := odroidTX(8000, 0)
	tm.JitterSigmaPs = 0
	if p := mustBudget(t, tm).PredictedLoss(1514); p != 0 {
		t.Errorf("positive margins without jitter: P = %g, want 0", p)
	}
	tm.BoardSkewPs = 200 // sample 100 ps inside the setup window
	if p := mustBudget(t, tm).PredictedLoss(1514); p != 1 {
		t.Errorf("violated setup without jitter: P = %g, want 1", p)
	}
}

func TestBudgetString(t *testing.T) {
	s := mustBudget(t, odroidTX(8000, 0)).String()
	for _, want := range []string{
		"TX timing at 1000 Mbit/s", "MAC 8000.000 + PHY 0.000 + board 591.000 ps = 8591.000 ps",
		"phase = delay mod Tcyc = 591.000 ps", "z 4.85", "q_h 7.13e-586", "1514 B 0.00376",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("budget printout lacks %q:\n%s", want, s)
		}
	}
	if s := mustBudget(t, odroidTX(4000, 0)).String(); !strings.Contains(s, "WRONG HALF") {
		t.Errorf("wrong half not shown:\n%s", s)
	}
}
