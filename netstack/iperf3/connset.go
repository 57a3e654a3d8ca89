package iperf3

import (
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
