package iperf3

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip/faketime"
)

// pipeListener is a net.Listener over net.Pipe: every dial hands the server one
// end. Pipes are synchronous and close at once, so a test can tell without any
// wall-clock wait whether the server still holds a connection open: a write to a
// closed pipe fails immediately, a write to an open one is read by the server.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial connects to the server; it fails once the listener is closed.
func (l *pipeListener) dial() (net.Conn, error) {
	server, client := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		server.Close()
		client.Close()
		return nil, net.ErrClosed
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "127.0.0.1:5201" }

// TestServerClosesPendingStreamsWhenTestEnds: a data connection whose cookie is
// still incomplete when the test ends (here: the client drops the control
// connection) must be closed with the test. It used to stay open, its reader
// goroutine blocked, until the per-connection idle timer fired on the test clock
// (120 s by default; never, on a clock that no longer advances), after Serve had
// returned.
func TestServerClosesPendingStreamsWhenTestEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		sent int // cookie bytes the pending connection sends
	}{
		{"silent connection", 0},
		{"partial cookie", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln := newPipeListener()
			done := make(chan error, 1)
			go func() {
				_, err := ServeOne(context.Background(), ln, ServerOptions{Clock: faketime.NewManualClock(), IdleTimeout: time.Minute})
				done <- err
			}()
			c, err := ln.dial()
			if err != nil {
				t.Fatal(err)
			}
			ctrl := fakePeer{t, c}
			ctrl.send(testCookie...)
			ctrl.expect(stateParamExchange)
			ctrl.sendJSON([]byte(goodParams))
			ctrl.expect(stateCreateStreams)
			pending, err := ln.dial()
			if err != nil {
				t.Fatal(err)
			}
			defer pending.Close()
			if _, err := pending.Write(testCookie[:tc.sent]); err != nil {
				t.Fatal(err)
			}
			ctrl.conn.Close()
			if err := <-done; CodeOf(err) != CodeCtrlClose {
				t.Fatalf("server: %v, want the control connection closed", err)
			}
			// The server has returned: nobody may still read the pending connection.
			if _, err := pending.Write([]byte{'x'}); !errors.Is(err, io.ErrClosedPipe) {
				t.Fatalf("write to the pending stream after the test: %v, want it closed", err)
			}
		})
	}
}
