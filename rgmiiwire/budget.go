package rgmiiwire

import (
	"math"
)

// LineBudget is the sampling budget of one data line.
type LineBudget struct {
	// DelayPs is the line's total clock-to-data delay (common delay + line skew).
	DelayPs float64
	// Shift is how many samples the line's sampler is displaced from the frame
	// alignment the receiver takes from CTL: 0 when it samples the right nibble, 1
	// when its phase lies in the wrong half of the cycle (it captures the next
	// nibble). Only per-line skews can make it differ between lines or negative.
	Shift int
	// SamplePhasePs is where the sampling instant falls after the data transition
	// it follows, in [0, UI).
	SamplePhasePs float64
	// SetupMarginPs = SamplePhase - setup; HoldMarginPs = (UI - SamplePhase) - hold.
	SetupMarginPs, HoldMarginPs float64
	// ZSetup and ZHold are the margins in units of σ.
	ZSetup, ZHold float64
	// QSetup and QHold are the per-sample miss probabilities Q(z) on each side; a
	// setup miss captures the previous sample's bit, a hold miss the next one's.
	// They underflow to 0 far out in the tail; LogQSetup/LogQHold (natural logs)
	// keep the exponent.
	QSetup, QHold       float64
	LogQSetup, LogQHold float64
}

// Eps is the visible per-line-sample bit error probability on random payload:
// a·(q_s + q_h) with a = RandomPayloadDensity.
func (l LineBudget) Eps() float64 { return RandomPayloadDensity * (l.QSetup + l.QHold) }

// Log10Eps is log10 of Eps, finite even where Eps underflows (-Inf only when both
// sides are certain never to miss).
func (l LineBudget) Log10Eps() float64 {
	hi, lo := l.LogQSetup, l.LogQHold
	if lo > hi {
		hi, lo = lo, hi
	}
	if math.IsInf(hi, -1) {
		return math.Inf(-1)
	}
	sum := hi + math.Log1p(math.Exp(lo-hi)) // ln(q_s + q_h) without underflow
	return (math.Log(RandomPayloadDensity) + sum) / math.Ln10
}

// Budget is the analytic timing budget of one direction (docs/reference/rgmii-timing.md §2 steps 1-6).
type Budget struct {
	Timing Timing
	// UnitIntervalPs is the nibble time on a line (4000 ps at 125 MHz DDR).
	UnitIntervalPs float64
	// DelayPs is the common clock-to-data delay delta = MAC + PHY + s0.
	DelayPs float64
	// PhasePs is phi = delta mod Tcyc, in [0, Tcyc).
	PhasePs float64
	// WrongHalf is set when some line samples the wrong nibble (phi ≥ Tcyc/2 at
	// 1000 Mbit/s): every frame is lost, whatever the margins.
	WrongHalf bool
	// Lines are the per-line budgets; without line skews all four are equal.
	Lines [Lines]LineBudget
}

// NewBudget validates t and computes its budget.
func NewBudget(t Timing) (Budget, error) {
	if err := t.Validate(); err != nil {
		return Budget{}, err
	}
	return budgetOf(t), nil
}

// budgetOf computes the budget of a validated timing.
func budgetOf(t Timing) Budget {
	period := t.ClockPeriodPs
	ui := t.UnitIntervalPs()
	delta := t.DelayPs()
	// Whole cycles of delay only make the whole bus (data and CTL) late by a clock:
	// harmless. Assumption: CTL carries the common delay without line skew, so the
	// receiver's byte alignment follows the common delay's whole cycles and each
	// line's displacement is measured from there.
	cycles := math.Floor(delta / period)
	phi := delta - cycles*period
	if phi >= period { // rounding at an exact multiple
		phi -= period
	}
	if phi < 0 {
		phi = 0
	}
	b := Budget{Timing: t, UnitIntervalPs: ui, DelayPs: delta, PhasePs: phi}
	for k := range b.Lines {
		lineDelay := delta + t.LineSkewPs[k]
		b.Lines[k] = lineBudget(t, lineDelay, lineDelay-cycles*period, ui)
		if b.Lines[k].Shift != 0 {
			b.WrongHalf = true
		}
	}
	return b
}

// lineBudget computes one line's budget from its delay and its phase after the
// common frame alignment (phase may leave [0, Tcyc) through a line skew).
func lineBudget(t Timing, delay, phase, ui float64) LineBudget {
	shift := math.Floor(phase / ui)
	sample := phase - shift*ui
	if sample >= ui { // rounding at an exact multiple
		sample -= ui
		shift++
	}
	if sample < 0 {
		sample = 0
	}
	l := LineBudget{
		DelayPs:       delay,
		Shift:         int(shift), // |phase| ≤ a few µs (Validate), so shift is small
		SamplePhasePs: sample,
		SetupMarginPs: sample - t.SetupPs,
		HoldMarginPs:  (ui - sample) - t.HoldPs,
	}
	l.ZSetup = marginZ(l.SetupMarginPs, t.JitterSigmaPs)
	l.ZHold = marginZ(l.HoldMarginPs, t.JitterSigmaPs)
	l.QSetup, l.LogQSetup = Q(l.ZSetup), LogQ(l.ZSetup)
	l.QHold, l.LogQHold = Q(l.ZHold), LogQ(l.ZHold)
	return l
}

// missRates are the per-sample probabilities of a setup-side and a hold-side miss
// as the wire draws them: q_s and q_h, scaled down together when an aperture wider
// than the unit interval makes q_s + q_h exceed 1 (every sample then misses).
func (l LineBudget) missRates() (setup, hold float64) {
	sum := l.QSetup + l.QHold
	if sum <= 1 {
		return l.QSetup, l.QHold
	}
	// hold as the complement, not QHold/sum: the two quotients can round to a sum of
	// 1 + 2^-52, and ln(1 - q) is then NaN. s + fl(1 - s) never rounds above 1.
	setup = l.QSetup / sum
	return setup, 1 - setup
}

// marginZ is margin/σ; with no jitter a positive margin never misses (+Inf), a
// negative one always does (-Inf), and a sample exactly on the aperture edge is a
// coin toss (0).
func marginZ(margin, sigma float64) float64 {
	switch {
	case sigma > 0:
		return margin / sigma
	case margin > 0:
		return math.Inf(1)
	case margin < 0:
		return math.Inf(-1)
	}
	return 0
}

// wireSamples is the number of line-samples per data line for a frame of
// frameLen bytes without FCS: 2 per byte of preamble + SFD + frame + FCS.
func wireSamples(frameLen int) float64 {
	if frameLen < 0 {
		frameLen = 0
	}
	// In float64: frameLen+12 overflows int near math.MaxInt.
	return 2 * (float64(frameLen) + 12)
}

// PredictedLoss is the probability that a frame of frameLen bytes (without FCS;
// 1514 for a full frame) is damaged on random payload (docs/reference/rgmii-timing.md §2 step 5):
// 1 - Π_lines (1 - eps_line)^(2·(L+12)), i.e. 1 - (1-eps)^(8·(L+12)) with equal
// lines, and 1 when a line samples the wrong nibble. Computed with log1p/expm1,
// so 8.6e-73 comes out as 8.6e-73, not 0.
func (b Budget) PredictedLoss(frameLen int) float64 {
	if b.WrongHalf {
		return 1
	}
	n := wireSamples(frameLen)
	logSurvive := 0.0
	for _, l := range b.Lines {
		logSurvive += n * math.Log1p(-l.Eps())
	}
	return -math.Expm1(logSurvive)
}

// Limiting is the line with the highest error probability (the first on ties).
func (b Budget) Limiting() LineBudget {
	worst := b.Lines[0]
	for _, l := range b.Lines[1:] {
		if l.Log10Eps() > worst.Log10Eps() {
			worst = l
		}
	}
	return worst
}
