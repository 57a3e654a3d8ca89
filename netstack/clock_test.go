package netstack

import (
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
)

// TestStackClockReadsDistinct: a stack's clock gives every reading its own
// nanosecond, in order, within one virtual instant and across the next; a
// timer armed after some readings fires when the stack, looking at the clock,
// finds it due (gVisor re-arms a timer that it finds early); the plain clock
// stays on virtual time.
func TestStackClockReadsDistinct(t *testing.T) {
	m := emu.NewMachine(1)
	c := &Clock{m: m, strict: true}
	plain := NewClock(m)
	var prev tcpip.MonotonicTime
	for i := range 5 {
		now := c.NowMonotonic()
		if i > 0 && !prev.Before(now) {
			t.Fatalf("reading %d: %v after %v", i, now, prev)
		}
		prev = now
	}
	if got := prev.Sub(tcpip.MonotonicTime{}); got != 4 {
		t.Fatalf("fifth reading at the instant 0: %v, want 4ns", got)
	}
	if p := plain.NowMonotonic(); p != (tcpip.MonotonicTime{}) {
		t.Fatalf("the plain clock reads %v at the instant 0", p)
	}
	const d = 10 * time.Microsecond
	target := c.NowMonotonic().Add(d) // as gVisor's timer.enable computes it
	fired := false
	c.AfterFunc(d, func() {
		fired = true
		if now := c.NowMonotonic(); now.Before(target) {
			t.Errorf("timer fired at %v, before the stack's target %v", now, target)
		}
	})
	m.RunUntil(emu.Time(time.Millisecond))
	if !fired {
		t.Fatal("timer never fired")
	}
	// A later instant starts from virtual time again.
	if got := c.NowMonotonic().Sub(tcpip.MonotonicTime{}); got != time.Millisecond {
		t.Fatalf("at 1 ms the stack clock reads %v", got)
	}
}
