package rgmiiwire

import "math"

// Q is the Gaussian tail probability P(X > z) for a standard normal X:
// ½·erfc(z/√2). It underflows to 0 beyond z ≈ 38.5; LogQ keeps those values.
func Q(z float64) float64 {
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// asymptoticFrom is where LogQ switches from erfc to the asymptotic series; at
// z = 20 the series' first omitted term is 10395/z^10 ≈ 1e-9 relative, and erfc
// itself (Q(20) ≈ 2.8e-89) is still far from underflow.
const asymptoticFrom = 20

// LogQ is ln Q(z), accurate where Q itself underflows (z = 51.8 gives
// Q ≈ 10^-585), so budgets can report hold-side miss probabilities far below the
// float64 range.
func LogQ(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return math.NaN()
	case math.IsInf(z, 1):
		return math.Inf(-1)
	case z < 0:
		// Q(z) = 1 - Q(-z); Q(-z) < 1/2 here, so log1p is accurate.
		return math.Log1p(-Q(-z))
	case z < asymptoticFrom:
		return math.Log(Q(z))
	}
	// Q(z) = φ(z)/z · (1 - 1/z² + 3/z⁴ - 15/z⁶ + 105/z⁸ - ...), φ the normal density.
	inv2 := 1 / (z * z)
	series := 1 + inv2*(-1+inv2*(3+inv2*(-15+inv2*105)))
	return -z*z/2 - math.Log(z) - 0.5*math.Log(2*math.Pi) + math.Log(series)
}
