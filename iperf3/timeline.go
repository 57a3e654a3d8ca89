package iperf3

import (
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// event is a deadline kind. When two fall due at the same instant the lower
// value wins: the test's end takes the place of a report due then (so a 10 s
// test ends with a 9-10 s interval, not an empty 10.00-10.00 one), and a
// report closes the omit period's last interval before the omit reset.
type event int

const (
	evGrace event = iota // server: the test outlived duration+omit+40 s
	evEnd                // client: -t elapsed
	evTick               // interval report due
	evOmit               // omit period over
	numEvents
)

// timeline keeps the test's deadlines on the test clock and a single timer
// armed for the earliest. The timer only posts timersDue; the loop asks which
// deadline is due, so timer callbacks never block or race the loop.
type timeline struct {
	clock tcpip.Clock
	post  func(any)
	at    [numEvents]tcpip.MonotonicTime
	on    [numEvents]bool

	mu    sync.Mutex
	timer tcpip.Timer
}

func newTimeline(clock tcpip.Clock, post func(any)) *timeline {
	return &timeline{clock: clock, post: post}
}

func (t *timeline) set(e event, at tcpip.MonotonicTime) { t.at[e], t.on[e] = at, true }
func (t *timeline) clear(e event)                       { t.on[e] = false }

// next returns the deadline due at now, earliest first, ties by event order.
func (t *timeline) next(now tcpip.MonotonicTime) (event, bool) {
	best, found := event(0), false
	for e := event(0); e < numEvents; e++ {
		if !t.on[e] || t.at[e].After(now) {
			continue
		}
		if !found || t.at[e].Before(t.at[best]) {
			best, found = e, true
		}
	}
	return best, found
}

// rearm points the timer at the earliest pending deadline.
func (t *timeline) rearm(now tcpip.MonotonicTime) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	var earliest tcpip.MonotonicTime
	found := false
	for e := event(0); e < numEvents; e++ {
		if t.on[e] && (!found || t.at[e].Before(earliest)) {
			earliest, found = t.at[e], true
		}
	}
	if !found {
		return
	}
	d := max(earliest.Sub(now), time.Duration(0))
	t.timer = t.clock.AfterFunc(d, func() { t.post(timersDue{}) })
}

// stop cancels every deadline.
func (t *timeline) stop() {
	t.on = [numEvents]bool{}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
}
