package link

import (
	"errors"
	"testing"
)

// oneSlot is a lower endpoint with room for one frame until it is emptied.
type oneSlot struct {
	frames [][]byte
	full   bool
	fail   bool // refuse every frame for good
	ready  func()
}

func (o *oneSlot) Transmit(f []byte) error {
	switch {
	case o.fail:
		return errors.New("gone")
	case o.full:
		return ErrBusy
	}
	o.frames = append(o.frames, f)
	o.full = true
	return nil
}
func (o *oneSlot) SetTxReady(fn func())     { o.ready = fn }
func (o *oneSlot) SetReceiver(func([]byte)) {}
func (o *oneSlot) empty()                   { o.full = false; o.ready() }

// TestQdiscHoldsWhileBusy: frames wait in order while the endpoint below is
// busy, go one per TxReady, are counted when refused for good, and what is
// left at close is returned.
func TestQdiscHoldsWhileBusy(t *testing.T) {
	lower := &oneSlot{}
	q := NewQdisc(lower)
	for i := range 4 {
		if err := q.Transmit([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if len(lower.frames) != 1 {
		t.Fatalf("%d frames below a busy endpoint, want 1", len(lower.frames))
	}
	lower.empty()
	lower.empty()
	if len(lower.frames) != 3 || lower.frames[1][0] != 1 || lower.frames[2][0] != 2 {
		t.Fatalf("frames below %v, want 0, 1, 2 in order", lower.frames)
	}
	lower.fail = true
	lower.empty() // frame 3 is refused for good
	if q.Errors() != 1 {
		t.Fatalf("%d errors, want 1", q.Errors())
	}
	lower.fail = false
	lower.full = true
	_ = q.Transmit([]byte{4})
	_ = q.Transmit([]byte{5})
	if n := q.Close(); n != 2 {
		t.Fatalf("Close returned %d frames, want 2", n)
	}
	if err := q.Transmit([]byte{6}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Transmit after Close: %v, want ErrClosed", err)
	}
}
