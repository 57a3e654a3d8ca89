package iperf3

import (
	"math/rand/v2"
	"net"
	"sync"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"
)

// connSet is a test's connections (control and data), so that the idle
// watchdog or a cancellation can unblock every one of them from any goroutine.
type connSet struct {
	mu    sync.Mutex
	conns []net.Conn
}

// testRuntime is what a running test owns on either side, client or server: its
// scheduler, the post function its activities report through, its control
// reader, idle watchdog, report timeline, data transfer, fault latch and
// connections. shutdown releases them in one order for both roles.
type testRuntime struct {
	sched  coop.Sched
	post   func(any)
	reader *ctrlReader
	wd     *watchdog
	tl     *timeline
	xfer   *transfer
	fault  *fault
	connSet
}

func newRuntime(sched coop.Sched, clock tcpip.Clock, post func(any), conns ...net.Conn) testRuntime {
	return testRuntime{sched: sched, post: post, tl: newTimeline(clock, post), fault: newFault(post), connSet: connSet{conns: conns}}
}

// step handles the messages both roles' loops treat alike: the idle
// watchdog, due timers (onTimers), a data-stream failure held for the
// control connection to explain, and the end of that hold. handled is false
// for any other message; a non-nil err ends the test.
func (r *testRuntime) step(v any, clock tcpip.Clock, onTimers func() error) (handled bool, err error) {
	switch m := v.(type) {
	case idleFired:
		return true, fail(CodeNoMsg, errIdle)
	case timersDue:
		return true, onTimers()
	case xferFailed:
		if r.wd.expired.Load() {
			return true, fail(CodeNoMsg, errIdle)
		}
		r.fault.hold(clock, m.err)
		return true, nil
	case faultDue:
		return true, r.fault.err // set by the hold that posted it
	}
	return false, nil
}

// loop is a test's event loop, both roles': each message from next goes to
// step or else to own; it ends at the first error, or when own says done.
func (r *testRuntime) loop(next func() any, clock tcpip.Clock, onTimers func() error, own func(any) (done bool, err error)) error {
	for {
		v := next()
		if handled, err := r.step(v, clock, onTimers); handled {
			if err != nil {
				return err
			}
			continue
		}
		if done, err := own(v); done || err != nil {
			return err
		}
	}
}

// heldFailure explains a failed control read that has a known cause: the
// idle watchdog fired, or a data stream failed first (the control
// connection died with it); nil otherwise.
func (r *testRuntime) heldFailure() error {
	if r.wd.expired.Load() {
		return fail(CodeNoMsg, errIdle)
	}
	return r.fault.err
}

// dueTimers hands each due deadline of the timeline to on, earliest first,
// then re-arms the timeline; on returning true or an error ends it there
// (the timeline is then stopped or the test over).
func (r *testRuntime) dueTimers(now tcpip.MonotonicTime, on func(event) (stop bool, err error)) error {
	for {
		e, ok := r.tl.next(now)
		if !ok {
			break
		}
		if stop, err := on(e); stop || err != nil {
			return err
		}
	}
	r.tl.rearm(now)
	return nil
}

// startTransferOf starts the data transfer on s's streams and returns the
// payload it sends.
func (r *testRuntime) startTransferOf(s *session, limit uint64, rng *rand.Rand) []byte {
	r.xfer = newTransfer(r.sched, r.post, limit, &r.wd.progress)
	r.xfer.configure(s.params, s.clock)
	payload := newPayload(s.params, rng)
	r.xfer.start(s.streams, payload, s.params.Len)
	return payload
}

// shutdown stops the timers, tells the transfer to stop, unblocks every
// connection and waits for the transfer's activities.
func (r *testRuntime) shutdown() {
	if r.wd != nil {
		r.wd.stop()
	}
	r.tl.stop()
	r.fault.stop()
	if r.xfer != nil {
		r.xfer.stop.Store(true)
	}
	r.closeAll()
	if r.reader != nil {
		r.reader.close()
	}
	if r.xfer != nil {
		r.xfer.all.Wait()
	}
}

func (s *connSet) addConn(conn net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns = append(s.conns, conn)
}

// closeAll unblocks every connection; safe from any goroutine.
func (s *connSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, conn := range s.conns {
		unblock(conn)
	}
}
