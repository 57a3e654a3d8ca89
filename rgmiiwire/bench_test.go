package rgmiiwire

import (
	"math/rand/v2"
	"testing"
)

func benchmarkTransmit(b *testing.B, tm Timing, frameLen int) {
	w := mustWire(b, tm, 1)
	frame := randomFrame(nil, rand.New(rand.NewPCG(2, 2)), frameLen)
	b.SetBytes(int64(len(frame)))
	b.ResetTimer()
	for range b.N {
		// The frame is not restored after a rare corruption: the data stays
		// random, which is all the sampler cares about.
		w.Transmit(frame)
	}
}

// Post-fix timing (MAC 2 ns): no miss is possible, so the cost must be O(1) and
// independent of the frame size.
func BenchmarkTransmitClean1514(b *testing.B) { benchmarkTransmit(b, odroidTX(2000, 0), 1514) }
func BenchmarkTransmitClean64(b *testing.B)   { benchmarkTransmit(b, odroidTX(2000, 0), 60) }

// Pre-fix timing: four skip draws per frame plus ~0.008 misses.
func BenchmarkTransmitPreFix1514(b *testing.B) { benchmarkTransmit(b, odroidTX(8000, 0), 1514) }
func BenchmarkTransmitPreFix64(b *testing.B)   { benchmarkTransmit(b, odroidTX(8000, 0), 60) }

// Wrong half: the deterministic O(len) nibble rebuild.
func BenchmarkTransmitWrongHalf1514(b *testing.B) { benchmarkTransmit(b, odroidTX(4000, 0), 1514) }
