package iperf3

import (
	"net"
	"sync"
)

// connSet is a test's connections (control and data), so that the idle
// watchdog or a cancellation can unblock every one of them from any goroutine.
type connSet struct {
	mu    sync.Mutex
	conns []net.Conn
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
