package platform

import (
	"testing"

	"mesonemu/soc/board"
)

// TestBadBoardTimingIsItsOwnCause: a board whose TX electrical parameters the
// wire model refuses still powers on; the refusal is reported by
// WireConfigErr and every frame the MAC sends meanwhile is counted as lost
// for that reason, not as a gated clock.
func TestBadBoardTimingIsItsOwnCause(t *testing.T) {
	b, err := board.Lookup("odroid-c1")
	if err != nil {
		t.Fatal(err)
	}
	b.TX.JitterSigmaPs = -1
	p, err := New(Options{Board: b, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.WireConfigErr() == nil {
		t.Fatal("a negative jitter was accepted")
	}
	m := p.Machine()
	m.Lock()
	for range 3 {
		p.tx.carry(make([]byte, 64))
	}
	path := p.PathLocked()
	m.Unlock()
	if path.TxFromMAC != 3 || path.TxBadTiming != 3 || path.TxNoClock != 0 || path.TxAtFarEnd != 0 {
		t.Fatalf("path counters %+v; want 3 frames lost to bad timing", path)
	}
}
