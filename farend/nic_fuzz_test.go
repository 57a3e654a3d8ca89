package farend

import (
	"encoding/binary"
	"testing"

	"mesonemu/emu"
	"mesonemu/ether"
)

// FuzzNIC drives the far-end NIC with what the cable and the PC's stack can hand
// it: frames of any length with good or bad FCS and framing flags, transmit
// requests of any length, speed changes (valid or not), moderation delays
// (negative and huge included) and passing time. Whatever the sequence:
//   - every received frame has exactly one outcome and the counters agree with
//     the outcomes Receive returned (conservation);
//   - the moderation ring and the transmit queue never exceed their bounds;
//   - every frame handed to the consumer is an accepted one, without FCS; every
//     frame on the cable has a valid FCS and at least 64 bytes;
//   - once the link is up and time has passed, every frame counted as sent has
//     reached the cable, and the consumer never got more than was accepted.
//
// Input: 10-byte operations: kind, selector, a (uint32), b (uint32).
func FuzzNIC(f *testing.F) {
	op := func(kind, sel byte, a, b uint32) []byte {
		o := []byte{kind, sel}
		o = binary.LittleEndian.AppendUint32(o, a)
		return binary.LittleEndian.AppendUint32(o, b)
	}
	join := func(ops ...[]byte) (b []byte) {
		for _, o := range ops {
			b = append(b, o...)
		}
		return b
	}
	f.Add(join(op(0, 0, 64, 1), op(0, 0, 1518, 2), op(0, 1, 1518, 3), op(0, 2, 40, 4), op(0, 0, 9000, 5), op(1, 0, 1514, 0), op(4, 0, 0, 1e6)))
	f.Add(join(op(3, 0, 100000, 0), op(0, 0, 64, 1), op(0, 0, 64, 1), op(0, 0, 64, 1), op(4, 0, 0, 200000)))
	f.Add(join(op(2, 0, 0, 0), op(1, 0, 100, 0), op(2, 2, 0, 0), op(1, 0, 100, 0), op(1, 0, 20000, 0), op(4, 0, 0, 1e6)))
	f.Add(join(op(3, 1, 0xffffffff, 0x7fffffff), op(0, 0, 64, 1), op(5, 0, 0, 0), op(0, 0, 64, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := emu.NewMachine(1)
		nic, err := New(m, Config{SpeedMbps: 1000, TxQueueLen: 8, RxRingSize: 4})
		if err != nil {
			t.Fatal(err)
		}
		var consumed, sunk uint64
		nic.SetConsumer(func(frame []byte) {
			consumed++
			if len(frame) < 60 || len(frame) > nic.Config().MaxFrameLen-ether.FCSLen {
				t.Errorf("consumer got %d bytes", len(frame))
			}
		})
		nic.SetSink(func(frame []byte) {
			sunk++
			if len(frame) < 64 || !ether.CheckFCS(frame) {
				t.Errorf("cable got %d bytes, FCS ok %v", len(frame), ether.CheckFCS(frame))
			}
		})
		var received uint64
		var byCause [numCauses]uint64
		consumer := true
		for len(data) >= 10 {
			kind, sel := data[0]%6, data[1]
			a, b := binary.LittleEndian.Uint32(data[2:]), binary.LittleEndian.Uint32(data[6:])
			data = data[10:]
			m.Lock()
			switch kind {
			case 0:
				frame := make([]byte, a%20000)
				for i := range frame {
					frame[i] = byte(b) + byte(i)
				}
				if len(frame) >= ether.FCSLen && sel&1 == 0 {
					binary.LittleEndian.PutUint32(frame[len(frame)-4:], ether.FCS(frame[:len(frame)-4]))
				}
				c := nic.Receive(frame, sel&2 != 0)
				if c < 0 || c >= numCauses {
					t.Fatalf("outcome %d", c)
				}
				received++
				byCause[c]++
			case 1:
				_ = nic.SendLocked(make([]byte, a%20000))
			case 2:
				_ = nic.SetSpeed([]int{0, 10, 100, 1000, 7, -1}[sel%6])
			case 3:
				d := emu.Time(int64(a) | int64(b)<<32)
				if sel&1 != 0 {
					d = -d
				}
				_ = nic.SetRxDelay(d)
			case 5:
				// The stack goes away and comes back.
				consumer = !consumer
				if consumer {
					nic.SetConsumer(func([]byte) { consumed++ })
				} else {
					nic.SetConsumer(nil)
				}
			}
			s := nic.StatsLocked()
			if nic.RxPending() > nic.Config().RxRingSize || nic.TxQueued() > nic.Config().TxQueueLen {
				t.Fatalf("%d frames pending, %d queued", nic.RxPending(), nic.TxQueued())
			}
			m.Unlock()
			checkConservation(t, s, received, byCause)
			if kind == 4 {
				m.Advance(emu.Time(b % uint32(10*emu.Millisecond)))
			}
		}
		m.Lock()
		if nic.Config().SpeedMbps == 0 {
			_ = nic.SetSpeed(1000)
		}
		_ = nic.SetRxDelay(0)
		m.Unlock()
		m.Advance(emu.Second)
		s := nic.Stats()
		checkConservation(t, s, received, byCause)
		if consumer && consumed > s.RxPackets {
			t.Fatalf("consumer got %d frames, %d accepted", consumed, s.RxPackets)
		}
		if sunk != s.TxPackets {
			t.Fatalf("%d frames reached the cable, %d counted", sunk, s.TxPackets)
		}
	})
}

// checkConservation: the counters agree with the outcomes Receive returned. One
// move is allowed: a frame Receive accepted into the moderation ring is counted
// again as rx_dropped when the stack detached before the moderated interrupt
// (flushRx), so rx_packets may be lower and rx_dropped higher by the same number.
func checkConservation(t *testing.T, s Stats, received uint64, byCause [numCauses]uint64) {
	t.Helper()
	if s.RxFrames() != received {
		t.Fatalf("%d frames received, counters account for %d: %+v", received, s.RxFrames(), s)
	}
	detachedWhileWaiting := byCause[Accepted] - min(s.RxPackets, byCause[Accepted])
	want := Stats{RxPackets: byCause[Accepted] - detachedWhileWaiting, RxAlignErrors: byCause[DropAlign],
		RxShortLengthErrors: byCause[DropRunt], RxLongLengthErrors: byCause[DropGiant], RxCRCErrors: byCause[DropCRC],
		RxMissedErrors: byCause[DropRingFull], RxDropped: byCause[DropNoConsumer] + detachedWhileWaiting}
	got := Stats{RxPackets: s.RxPackets, RxAlignErrors: s.RxAlignErrors, RxShortLengthErrors: s.RxShortLengthErrors,
		RxLongLengthErrors: s.RxLongLengthErrors, RxCRCErrors: s.RxCRCErrors, RxMissedErrors: s.RxMissedErrors,
		RxDropped: s.RxDropped}
	if got != want {
		t.Fatalf("counters %+v, outcomes say %+v", got, want)
	}
}
