package stmmac

import (
	"testing"

	"mesonemu/emu"
)

// txBench is a 256-entry ring whose buffers all hold a 1514-byte frame; a "frame" of
// work is: hand one descriptor back to the DMA, poll demand, run the machine until the
// transmitter hook has it.
type txBench struct {
	r    *rig
	tx   *ring
	sent int
	next int
}

func newTxBench(tb testing.TB) *txBench {
	r, tx := newTxRig(tb, 256, linuxCfg1000)
	r.w(offIntEnable, 0) // the line stays low: measure the engine, not IRQ delivery
	b := &txBench{r: r, tx: tx}
	r.mac.SetTransmitter(func(f []byte) { b.sent++ })
	for i := range 256 {
		tx.queueTx(i, testFrame(1514, peerMAC, byte(i)), false)
		r.setRAM32(tx.desc(i), 0) // buffers and control ready; OWN given per frame
	}
	return b
}

// frames queues n frames, rings the doorbell and runs until all have left.
func (b *txBench) frames(n int) {
	want := b.sent + n
	for range n {
		b.r.setRAM32(b.tx.desc(b.next), descOWN)
		b.next = (b.next + 1) % 256
	}
	_ = b.r.m.Bus().Write32(macBase+offTxPoll, 1)
	for b.sent < want {
		if !b.r.m.Step() {
			break
		}
	}
}

// BenchmarkTx1514 measures host speed of the TX path (poll demand -> descriptor walk ->
// gather -> FCS -> line event -> transmitter hook -> write-back), 64 frames a doorbell.
func BenchmarkTx1514(b *testing.B) {
	bench := newTxBench(b)
	b.ReportAllocs()
	b.SetBytes(1514)
	b.ResetTimer()
	for done := 0; done < b.N; done += 64 {
		bench.frames(min(64, b.N-done))
	}
	b.StopTimer()
	if bench.sent < b.N {
		b.Fatalf("sent %d of %d", bench.sent, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// TestTxPathAllocations: the engine allocates nothing per frame; the one allocation
// left is the *emu.Event that emu.Machine.At makes for each scheduled frame.
func TestTxPathAllocations(t *testing.T) {
	bench := newTxBench(t)
	bench.frames(64) // warm up slices and the event heap
	allocs := testing.AllocsPerRun(20, func() { bench.frames(64) })
	if perFrame := allocs / 64; perFrame > 1 {
		t.Fatalf("%.2f allocations per frame, want at most 1 (emu's event)", perFrame)
	}
	// The line was the limit: 64 frames back to back take 64 * 12304 ns.
	t0 := bench.r.m.VirtualNow()
	bench.frames(64)
	if d := bench.r.m.VirtualNow() - t0; d < 63*12304 || d > 64*12304+emu.Microsecond*2 {
		t.Fatalf("64 frames took %d ns of virtual time", d)
	}
}
