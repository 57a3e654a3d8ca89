package rgmiiwire

import (
	"errors"
	"fmt"
	"math"
)

// Lines is the number of RGMII data lines (TD[3:0] or RD[3:0]).
const Lines = 4

// RandomPayloadDensity is the transition density a of random data: the chance
// that two successive samples on a line differ (docs/reference/rgmii-timing.md §2 step 4; iperf3 sends
// random bytes by default).
const RandomPayloadDensity = 0.5

// Timing is one direction's clock-to-data timing at the receiver's sampling flop,
// as the board assembly derives it from register state and board parameters. All
// times are in picoseconds. The delay is kept as its parts so a budget can print
// where it comes from.
type Timing struct {
	// Direction labels printouts only ("TX" for MAC→PHY, "RX" for PHY→MAC).
	Direction string
	// SpeedMbps is the link speed: 1000 samples both clock edges (DDR, unit
	// interval half a period); 100 and 10 sample the rising edge only.
	SpeedMbps int
	// ClockPeriodPs is the actual clock period, e.g. 1e12/124,999,850 Hz, not the
	// nominal 8000 ps: the phase is taken modulo this.
	ClockPeriodPs float64
	// MACDelayPs is the MAC's clock delay (PRG_ETH0 TXDLY × step, or RX ADJ).
	MACDelayPs float64
	// PHYDelayPs is the PHY's internal delay when enabled, else 0.
	PHYDelayPs float64
	// BoardSkewPs is s0: clock-path minus data-path delay on the board and pads,
	// common to the four data lines (calibrated; docs/reference/rgmii-timing.md §5.2).
	BoardSkewPs float64
	// LineSkewPs is each data line's extra trace skew, added to the total delay of
	// that line (data earlier is positive, as for s0).
	LineSkewPs [Lines]float64
	// SetupPs and HoldPs are the receiver's aperture before and after its edge.
	SetupPs, HoldPs float64
	// JitterSigmaPs is the lumped Gaussian σ between clock and data edges.
	JitterSigmaPs float64
}

// UnitIntervalPs is the time one nibble occupies a data line: half the period at
// 1000 Mbit/s (DDR), the whole period at 10/100.
func (t Timing) UnitIntervalPs() float64 {
	return t.ClockPeriodPs / float64(t.samplesPerCycle())
}

// DelayPs is the total clock-to-data delay common to all lines: MAC + PHY + s0.
func (t Timing) DelayPs() float64 { return t.MACDelayPs + t.PHYDelayPs + t.BoardSkewPs }

func (t Timing) samplesPerCycle() int {
	if t.SpeedMbps == 1000 {
		return 2
	}
	return 1
}

// maxAbsPs bounds every time parameter: a microsecond is far beyond any clock
// period or delay RGMII knows, and it keeps the nibble arithmetic in range.
const maxAbsPs = 1e6

// minClockPeriodPs is the shortest clock the phase arithmetic can take: delays up
// to a few µs divided by it stay exact in float64 (a subnormal period gave NaN
// phases). RGMII clocks are 8000 to 400000 ps, so 1 ps (1 THz) refuses nothing real.
const minClockPeriodPs = 1

// Validate reports parameters the model cannot use. It never judges whether the
// timing is good: a bad delay is what the model is for.
func (t Timing) Validate() error {
	var errs []error
	switch t.SpeedMbps {
	case 10, 100, 1000:
	default:
		errs = append(errs, fmt.Errorf("speed %d Mbit/s: want 10, 100 or 1000", t.SpeedMbps))
	}
	check := func(name string, v float64, nonNegative bool) {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxAbsPs:
			errs = append(errs, fmt.Errorf("%s %g ps: not a finite time within ±%g ps", name, v, float64(maxAbsPs)))
		case nonNegative && v < 0:
			errs = append(errs, fmt.Errorf("%s %g ps: negative", name, v))
		}
	}
	check("clock period", t.ClockPeriodPs, true)
	if t.ClockPeriodPs == 0 {
		errs = append(errs, errors.New("clock period 0 ps: no clock"))
	} else if t.ClockPeriodPs > 0 && t.ClockPeriodPs < minClockPeriodPs {
		errs = append(errs, fmt.Errorf("clock period %g ps: shorter than %d ps", t.ClockPeriodPs, minClockPeriodPs))
	}
	check("MAC delay", t.MACDelayPs, false)
	check("PHY delay", t.PHYDelayPs, false)
	check("board skew", t.BoardSkewPs, false)
	for i, s := range t.LineSkewPs {
		check(fmt.Sprintf("line %d skew", i), s, false)
	}
	check("setup", t.SetupPs, true)
	check("hold", t.HoldPs, true)
	check("jitter sigma", t.JitterSigmaPs, true)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rgmii %s timing: %w", t.Direction, err)
	}
	return nil
}
