package rgmiiwire

import (
	"math"
	"testing"
)

func TestQAndLogQ(t *testing.T) {
	// Reference values: log10 of the standard normal upper tail, from mpmath at 30 digits.
	tests := []struct {
		z      float64
		log10Q float64 // log10 Q(z)
	}{
		{-3, math.Log10(0.9986501019683699)},
		{0, math.Log10(0.5)},
		{1, math.Log10(0.15865525393145707)},
		{4.85, -6.2094985366},
		{18.48, -75.8250955272},
		{19.999, -88.5513880626}, // last point on the erfc branch
		{20, -88.5600953431},
		{38.2, -318.8513902921}, // below the smallest normal float64
		{51.8, -584.7717442089}, // Q underflows to 0; LogQ does not
	}
	for _, tc := range tests {
		got := LogQ(tc.z) / math.Ln10
		if math.Abs(got-tc.log10Q) > 1e-7 {
			t.Errorf("log10 Q(%g) = %.5f, want %.5f", tc.z, got, tc.log10Q)
		}
	}
	if q := Q(51.8); q != 0 {
		t.Errorf("Q(51.8) = %g, want underflow to 0 (LogQ exists for this)", q)
	}
	if !math.IsInf(LogQ(math.Inf(1)), -1) || LogQ(math.Inf(-1)) != 0 {
		t.Errorf("LogQ(±Inf) = %g, %g; want -Inf, 0", LogQ(math.Inf(1)), LogQ(math.Inf(-1)))
	}
}

func TestLogQIsContinuousAtTheSeriesSwitch(t *testing.T) {
	below := math.Log(Q(asymptoticFrom))
	above := LogQ(asymptoticFrom)
	if math.Abs(below-above) > 1e-8 {
		t.Errorf("erfc branch %.12f, series %.12f at z = %d", below, above, asymptoticFrom)
	}
}
