// Package netstack runs gVisor's TCP/IP stacks on the emulated hardware and the engine.
// Above the bus on both ends: the board's stack on the guest driver, the PC's on the far-end NIC.
//
// It joins gVisor's TCP/IP stack to the emulated hardware: the board's
// stack runs on the stmmac guest ring driver, the PC's stack on the far-end NIC, and
// both run on the machine's engine: their timers are engine events, every event
// that touched a stack ends with that stack's barrier, and the programs on them
// (iperf3) are engine tasks with connections that yield to the engine.
package netstack

import (
	"sync/atomic"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"
	"mesonemu/emu"
)

// Epoch is the wall-clock date the virtual clock's zero stands for. It only shows
// in iperf3's timestamps; a fixed value keeps runs reproducible.
var Epoch = time.Date(2019, time.December, 26, 12, 0, 0, 0, time.UTC)

// Clock is a tcpip.Clock on the machine's virtual time. Its timers are guest
// events, so they fire at their exact virtual instant, in the order they were
// armed when due together, and never in a goroutine of their own; after each
// callback the clock's settle function (a stack's barrier) runs.
type Clock struct {
	m      *emu.Machine
	settle func()
	// strict makes NowMonotonic strictly increasing, 1 ns per reading within
	// one virtual instant (a stack's clock; see strictNow).
	strict bool
	// next is the earliest the next strict reading may be (emu.Time). An
	// atomic rather than a mutex: gVisor reads its clock several times a
	// segment, and one compare-and-swap is half a lock's cost.
	next atomic.Int64
}

// NewClock makes a tcpip.Clock over the machine's virtual time.
func NewClock(m *emu.Machine) *Clock { return &Clock{m: m} }

var _ tcpip.Clock = (*Clock)(nil)

// Now implements tcpip.Clock.
func (c *Clock) Now() time.Time { return Epoch.Add(c.m.Now().Duration()) }

// NowMonotonic implements tcpip.Clock.
func (c *Clock) NowMonotonic() tcpip.MonotonicTime {
	if !c.strict {
		return tcpip.MonotonicTime{}.Add(c.m.Now().Duration())
	}
	return tcpip.MonotonicTime{}.Add(c.strictNow(true).Duration())
}

// strictNow is a stack's monotonic time: virtual time, but never the same
// reading twice. A host's clock advances between two transmissions, while the
// virtual clock stands still through a whole burst, and gVisor's RACK breaks
// ties between segments sent at one instant the wrong way round (rack.go
// detectLoss takes a same-instant segment *after* the most recently delivered
// one as sent before it), so it would mark the rest of a burst lost as soon
// as its first segment is acknowledged. One nanosecond per reading keeps the
// stack's order of events in its timestamps; readings are made by one
// goroutine at a time (the barrier), so the run stays a function of the seed.
// advance false reads without taking a nanosecond.
func (c *Clock) strictNow(advance bool) emu.Time {
	now := c.m.Now()
	for {
		next := emu.Time(c.next.Load())
		if !advance {
			return max(now, next-1)
		}
		t := max(now, next)
		if c.next.CompareAndSwap(int64(next), int64(t+1)) {
			return t
		}
	}
}

// AfterFunc implements tcpip.Clock.
func (c *Clock) AfterFunc(d time.Duration, f func()) tcpip.Timer {
	t := &clockTimer{m: c.m, c: c}
	t.ev = c.m.NewGuestEvent(func() {
		f()
		if c.settle != nil {
			c.settle()
		}
	})
	t.Reset(d)
	return t
}

type clockTimer struct {
	m  *emu.Machine
	c  *Clock
	ev *emu.Event // guarded by the machine lock
}

func (t *clockTimer) Stop() bool {
	t.m.Lock()
	defer t.m.Unlock()
	was := t.ev.Pending()
	t.m.Cancel(t.ev)
	return was
}

func (t *clockTimer) Reset(d time.Duration) {
	t.m.Lock()
	defer t.m.Unlock()
	at := t.m.Now()
	if t.c.strict {
		// From the stack's own reading, so that gVisor, looking at its
		// clock when the timer fires, finds it due and does not re-arm it.
		at = t.c.strictNow(false)
	}
	t.m.Schedule(t.ev, at+emu.Time(d))
}

// ToVirtual converts a time on the clock (Epoch-based) to virtual time; the
// zero time.Time is -1 (none), anything before Epoch is 0 (already past).
func ToVirtual(t time.Time) emu.Time {
	if t.IsZero() {
		return -1
	}
	return max(emu.Time(t.Sub(Epoch)), 0)
}

// Sched is the engine as a coop.Sched: a program's activities are engine
// tasks, its wakers the engine's.
type Sched struct{ M *emu.Machine }

// Go implements coop.Sched.
func (s Sched) Go(fn func()) { s.M.Go("app", fn) }

// NewWaker implements coop.Sched.
func (s Sched) NewWaker() coop.Waker { return s.M.NewWaker() }
