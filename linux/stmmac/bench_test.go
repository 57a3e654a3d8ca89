package stmmac

import (
	"errors"
	"testing"

	"mesonemu/emu"
)

// benchXmit pushes b.N frames of n bytes through the driver and the real MAC model
// (optionally looped back into the RX ring), stepping the machine whenever the TX
// queue is stopped, and reports host cost per frame and the virtual line rate.
func benchXmit(b *testing.B, n int, loopback bool) {
	r := newHWRig(b, nil)
	r.loopback = loopback
	r.up(b)
	received := 0
	r.drv.SetReceiver(func([]byte) { received++ })
	// Keep the rig's wire log from growing with b.N.
	r.mac.SetTransmitter(func(f []byte) {
		if loopback {
			cp := append([]byte(nil), f...)
			r.m.After(0, func() { r.mac.Receive(cp) })
		}
	})
	f := testFrame(n, 1)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	t0 := r.m.VirtualNow()
	b.ResetTimer()
	for i := 0; i < b.N; {
		err := r.drv.Xmit(f)
		if err == nil {
			i++
			continue
		}
		if !errors.Is(err, ErrRingFull) {
			b.Fatal(err)
		}
		wake := r.drv.TxWake()
		for waiting := true; waiting; {
			if !r.m.Step() {
				b.Fatal("machine idle with the TX queue stopped")
			}
			select {
			case <-wake:
				waiting = false
			default:
			}
		}
	}
	r.runIdle(emu.Second)
	b.StopTimer()
	if got := stat(b, r.drv, "tx_pkt_n"); got != uint64(b.N) {
		b.Fatalf("tx_pkt_n %d, want %d", got, b.N)
	}
	if loopback && received != b.N {
		b.Fatalf("received %d of %d frames", received, b.N)
	}
	virt := r.m.VirtualNow() - t0
	b.ReportMetric(float64(b.N)*float64(n)*8/virt.Seconds()/1e6, "virt-Mbit/s")
}

// BenchmarkXmitCleanLoopback: 1514-byte frames out and back in through the model.
func BenchmarkXmitCleanLoopback(b *testing.B) { benchXmit(b, MaxFrameLen, true) }

// BenchmarkXmitCleanTxOnly: the TX path alone (Xmit, DMA, TX clean).
func BenchmarkXmitCleanTxOnly(b *testing.B) { benchXmit(b, MaxFrameLen, false) }

// BenchmarkXmitCleanSmall: 60-byte frames, where per-frame cost dominates.
func BenchmarkXmitCleanSmall(b *testing.B) { benchXmit(b, 60, true) }
