package rgmiiwire

import (
	"math"

	"mesonemu/ether"
)

// FrameLossProbability is the exact probability, for this particular frame's
// bits, that crossing the wire damages it (Result.Damaged): a sample j turns
// visibly wrong with probability q_s·[b_j ≠ b_(j-1)] + q_h·[b_j ≠ b_(j+1)],
// independently of the others. Where PredictedLoss assumes random payload
// (a = 0.5), this counts the transitions actually present, so it also predicts
// all-zero or repeating payloads. The preamble's own samples are left out (a
// damaged preamble alone does not lose the frame; see Result.PreambleDamaged).
// O(len); for tests and reports, not the frame path.
func (b Budget) FrameLossProbability(frameWithFCS []byte) float64 {
	if b.WrongHalf {
		return 1
	}
	n := samplesPerLine(len(frameWithFCS))
	logSurvive := 0.0
	for k, l := range b.Lines {
		setup, hold := l.missRates()
		for j := 2 * ether.PreambleLen; j < n; j++ {
			bit := sampleBit(frameWithFCS, j, k)
			p := 0.0
			if sampleBit(frameWithFCS, j-1, k) != bit {
				p += setup
			}
			if sampleBit(frameWithFCS, j+1, k) != bit {
				p += hold
			}
			if p > 0 {
				logSurvive += math.Log1p(-min(p, 1))
			}
		}
	}
	return -math.Expm1(logSurvive)
}
