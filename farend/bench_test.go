package farend

import (
	"testing"

	"mesonemu/ether"
)

func BenchmarkReceive1514(b *testing.B) {
	_, n := newNIC(b, Config{})
	n.SetConsumer(func([]byte) {})
	frame := ether.AppendFCS(frameOf(1514, 7))
	b.SetBytes(int64(len(frame)))
	for range b.N {
		if n.Receive(frame, false) != Accepted {
			b.Fatal("good frame dropped")
		}
	}
}

func BenchmarkReceiveBadFCS1514(b *testing.B) {
	_, n := newNIC(b, Config{})
	n.SetConsumer(func([]byte) {})
	frame := ether.AppendFCS(frameOf(1514, 7))
	frame[500] ^= 1
	b.SetBytes(int64(len(frame)))
	for range b.N {
		n.Receive(frame, false)
	}
}

func BenchmarkSend1514(b *testing.B) {
	m, n := newNIC(b, Config{TxQueueLen: 1 << 20})
	n.SetSink(func([]byte) {})
	frame := frameOf(1514, 7)
	b.SetBytes(int64(len(frame)))
	m.Lock()
	defer m.Unlock()
	for i := range b.N {
		if err := n.SendLocked(frame); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 { // keep the event queue short
			m.Unlock()
			m.RunUntil(n.lineFreeAt)
			m.Lock()
		}
	}
}
