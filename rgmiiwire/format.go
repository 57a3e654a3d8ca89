package rgmiiwire

import (
	"fmt"
	"math"
	"strings"
)

// String prints the budget: the delay decomposition, phase, margins, z values,
// miss probabilities and the predicted loss of a minimum and a full frame.
func (b Budget) String() string {
	t := b.Timing
	var s strings.Builder
	dir := t.Direction
	if dir == "" {
		dir = "RGMII"
	}
	fmt.Fprintf(&s, "%s timing at %d Mbit/s: Tcyc %.3f ps, UI %.3f ps\n", dir, t.SpeedMbps, t.ClockPeriodPs, b.UnitIntervalPs)
	fmt.Fprintf(&s, "  delay = MAC %.3f + PHY %.3f + board %.3f ps = %.3f ps\n", t.MACDelayPs, t.PHYDelayPs, t.BoardSkewPs, b.DelayPs)
	fmt.Fprintf(&s, "  phase = delay mod Tcyc = %.3f ps", b.PhasePs)
	if b.WrongHalf {
		s.WriteString("  WRONG HALF: nibbles re-associated, every frame lost")
	}
	s.WriteString("\n")
	fmt.Fprintf(&s, "  aperture: setup %.3f ps, hold %.3f ps, jitter sigma %.3f ps\n", t.SetupPs, t.HoldPs, t.JitterSigmaPs)
	skews := t.LineSkewPs != [Lines]float64{}
	for k, l := range b.Lines {
		if k > 0 && !skews {
			break
		}
		label := "  all lines"
		if skews {
			label = fmt.Sprintf("  line %d (skew %.3f ps)", k, t.LineSkewPs[k])
		}
		shift := ""
		if l.Shift != 0 {
			shift = fmt.Sprintf(", nibble shift %+d", l.Shift)
		}
		fmt.Fprintf(&s, "%s: sample at %.3f ps into the UI%s\n", label, l.SamplePhasePs, shift)
		fmt.Fprintf(&s, "    setup margin %.3f ps (z %.2f, q_s %s), hold margin %.3f ps (z %.2f, q_h %s)\n",
			l.SetupMarginPs, l.ZSetup, formatLogProb(l.LogQSetup), l.HoldMarginPs, l.ZHold, formatLogProb(l.LogQHold))
		fmt.Fprintf(&s, "    eps per line-sample (a = %.1f) = %s\n", RandomPayloadDensity, formatLogProb(l.Log10Eps()*math.Ln10))
	}
	fmt.Fprintf(&s, "  predicted frame loss: 60 B %.3g, 1514 B %.3g\n", b.PredictedLoss(60), b.PredictedLoss(1514))
	return s.String()
}

// formatLogProb prints a probability given as its natural log, including values
// float64 cannot hold (1e-585).
func formatLogProb(lnP float64) string {
	switch {
	case math.IsInf(lnP, -1):
		return "0"
	case lnP > -700:
		return fmt.Sprintf("%.3g", math.Exp(lnP))
	}
	l10 := lnP / math.Ln10
	exp := math.Floor(l10)
	return fmt.Sprintf("%.3ge%d", math.Pow(10, l10-exp), int(exp))
}
