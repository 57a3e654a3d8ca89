package iperf3

import (
	"sync"
	"sync/atomic"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// DefaultIdleTimeout is how long a test may make no progress at all (no byte
// read on the control connection, none moved on any data stream) before it
// is abandoned and its connections closed. It is iperf3's --rcv-timeout
// default (DEFAULT_NO_MSG_RCVD_TIMEOUT, 120 s). iperf3 3.12 applies it only
// while a receiving side waits during a test and blocks forever on a silent
// client's cookie; here it covers every phase of both roles.
const DefaultIdleTimeout = 120 * time.Second

// watchdog fires once progress has stood still for limit on the test clock.
// It samples every limit/4, so it fires between limit and 1.25*limit after
// the last progress. onIdle runs in the timer's callback and should only
// close connections; then idleFired is posted.
type watchdog struct {
	clock    tcpip.Clock
	limit    time.Duration
	progress atomic.Uint64
	onIdle   func()
	post     func(any)
	// expired is set before onIdle runs, so whoever sees a connection
	// fail because of it can tell an idle timeout from a broken peer.
	expired atomic.Bool

	mu         sync.Mutex
	last       uint64
	lastChange tcpip.MonotonicTime
	timer      tcpip.Timer
	stopped    bool
}

func newWatchdog(clock tcpip.Clock, limit time.Duration, onIdle func(), post func(any)) *watchdog {
	w := &watchdog{clock: clock, limit: limit, onIdle: onIdle, post: post}
	w.mu.Lock()
	w.lastChange = clock.NowMonotonic()
	w.timer = clock.AfterFunc(w.period(), w.check)
	w.mu.Unlock()
	return w
}

func (w *watchdog) period() time.Duration { return max(w.limit/4, time.Millisecond) }

func (w *watchdog) check() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	now := w.clock.NowMonotonic()
	if p := w.progress.Load(); p != w.last {
		w.last, w.lastChange = p, now
	} else if now.Sub(w.lastChange) >= w.limit {
		w.stopped = true
		w.mu.Unlock()
		w.expired.Store(true)
		w.onIdle()
		w.post(idleFired{})
		return
	}
	w.timer = w.clock.AfterFunc(w.period(), w.check)
	w.mu.Unlock()
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}
