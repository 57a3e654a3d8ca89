package linktest

import (
	"errors"
	"testing"

	"mesonemu/linux/stmmac"
	"mesonemu/platform"
	"mesonemu/sim"
)

// BenchmarkFramePath measures the whole frame path — guest driver xmit, DMA,
// MAC, RGMII wire, PHY, far-end FCS check — for 1514-byte frames with the fixed
// driver, in host frames per second. Goal: 1,000,000 per second on one core.
// The default tree (v5.5-rc) interrupts every 25 frames; the v5.4 case, with an
// interrupt and a TX clean per frame, shows what the interrupt path costs.
func BenchmarkFramePath(b *testing.B) {
	for _, c := range []struct {
		name, tree string
		size       int
	}{{"1514B", "", 1514}, {"60B", "", 60}, {"1514B-v5.4", "v5.4", 1514}} {
		size := c.size
		b.Run(c.name, func(b *testing.B) {
			s, err := sim.New(sim.Options{Driver: "fixed", Seed: 1, Kernel: c.tree})
			if err != nil {
				b.Fatal(err)
			}
			var got uint64
			m := s.Machine()
			m.Lock()
			s.Hardware().FarEnd().SetConsumer(func([]byte) { got++ })
			m.Unlock()
			frame := make([]byte, size)
			makeFrame(frame, platform.FarEndMAC, s.Board.MAC, m.Rand("bench"), false)
			b.SetBytes(int64(size))
			b.ResetTimer()
			for sent := 0; sent < b.N; {
				switch err := s.Guest.MAC.Xmit(frame); {
				case err == nil:
					sent++
				case errors.Is(err, stmmac.ErrRingFull):
					m.Step()
				default:
					b.Fatal(err)
				}
			}
			for got < uint64(b.N) && m.Step() {
			}
			b.StopTimer()
			if got != uint64(b.N) {
				b.Fatalf("far end got %d of %d frames", got, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}
