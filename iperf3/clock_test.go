package iperf3

import (
	"sync/atomic"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip/faketime"

	"mesonemu/coop"
)

// TestTimelineOrder checks which deadline is due first on a manual clock,
// including the tie rules: end beats a report due at the same instant, a
// report beats the omit reset.
func TestTimelineOrder(t *testing.T) {
	clk := faketime.NewManualClock()
	t0 := clk.NowMonotonic()
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	tests := []struct {
		name string
		set  map[event]time.Duration
		now  time.Duration
		want []event // due events in the order they are handled
	}{
		{"nothing due", map[event]time.Duration{evTick: at(1000)}, at(999), nil},
		{"tick due", map[event]time.Duration{evTick: at(1000)}, at(1000), []event{evTick}},
		{"end beats a tick at the same time", map[event]time.Duration{evTick: at(1000), evEnd: at(1000)}, at(1000), []event{evEnd, evTick}},
		{"tick before omit reset", map[event]time.Duration{evOmit: at(1000), evTick: at(1000)}, at(1000), []event{evTick, evOmit}},
		{"earlier deadline first", map[event]time.Duration{evOmit: at(500), evTick: at(1000)}, at(1500), []event{evOmit, evTick}},
		{"grace first", map[event]time.Duration{evGrace: at(41000), evTick: at(41000)}, at(41000), []event{evGrace, evTick}},
	}
	for _, tc := range tests {
		tl := newTimeline(clk, func(any) {})
		for e, d := range tc.set {
			tl.set(e, t0.Add(d))
		}
		var got []event
		for {
			e, ok := tl.next(t0.Add(tc.now))
			if !ok {
				break
			}
			got = append(got, e)
			tl.clear(e)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: due %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: due %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}

// TestTimelineWakesOnTestClock: the timer runs on the test clock, not the
// wall clock: nothing happens until the manual clock reaches the deadline.
func TestTimelineWakesOnTestClock(t *testing.T) {
	clk := faketime.NewManualClock()
	inbox := coop.NewInbox[any](nil)
	tl := newTimeline(clk, inbox.Post)
	now := clk.NowMonotonic()
	tl.set(evTick, now.Add(time.Second))
	tl.rearm(now)
	clk.Advance(999 * time.Millisecond)
	if n := inbox.Len(); n != 0 {
		t.Fatalf("woke %d times before the deadline", n)
	}
	clk.Advance(time.Millisecond)
	if v, ok := inbox.TryRecv(); !ok || v != (timersDue{}) {
		t.Fatalf("at the deadline it posted %v, %v; want timersDue", v, ok)
	}
	if e, ok := tl.next(clk.NowMonotonic()); !ok || e != evTick {
		t.Errorf("due %v %v", e, ok)
	}
}

// TestWatchdog: it fires once progress has stood still for the limit, on the
// test clock, and any progress restarts the wait.
func TestWatchdog(t *testing.T) {
	clk := faketime.NewManualClock()
	var idled atomic.Int32
	inbox := coop.NewInbox[any](nil)
	w := newWatchdog(clk, 4*time.Second, func() { idled.Add(1) }, inbox.Post)
	defer w.stop()
	clk.Advance(3 * time.Second)
	w.progress.Add(1) // seen at the 4 s check
	clk.Advance(4 * time.Second)
	if idled.Load() != 0 || w.expired.Load() {
		t.Fatal("fired although progress was made 4 s ago at most")
	}
	clk.Advance(time.Second) // 8 s: 4 s since the progress was seen
	if idled.Load() != 1 || !w.expired.Load() {
		t.Fatalf("did not fire after 4 s without progress (fired %d)", idled.Load())
	}
	if v, ok := inbox.TryRecv(); !ok || v != (idleFired{}) {
		t.Errorf("it posted %v, %v; want idleFired", v, ok)
	}
	clk.Advance(time.Minute)
	if idled.Load() != 1 {
		t.Errorf("fired %d times", idled.Load())
	}
}
