package iperf3

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// SocketOptions are the per-stream socket settings a test asks for: -w
// (SO_SNDBUF and SO_RCVBUF), -M (TCP_MAXSEG), -N (TCP_NODELAY) and -C
// (TCP_CONGESTION). Zero values leave the socket as it is.
type SocketOptions struct {
	Window     int
	MSS        int
	NoDelay    bool
	Congestion string
	// UserTimeout is --snd-timeout (TCP_USER_TIMEOUT): how long sent data may
	// stay unacknowledged before the connection is dropped; 0: the stack's.
	UserTimeout time.Duration
}

func (o SocketOptions) isZero() bool { return o == SocketOptions{} }

// SockOptFunc applies SocketOptions to a data stream's connection. It
// returns ErrCongestion for an algorithm the host does not offer.
type SockOptFunc func(c net.Conn, o SocketOptions) error

// ErrCongestion is what a SockOptFunc returns for an unknown -C algorithm.
var ErrCongestion = errors.New("congestion control algorithm not available")

// Limits of src/iperf.h.
const (
	maxTCPBuffer = 512 * 1024 * 1024 // MAX_TCP_BUFFER
	maxMSS       = 9 * 1024          // MAX_MSS
)

// SockOptSetter is implemented by connections that set their own options
// (netstack's); with no SockOptFunc given, they are asked, and host sockets
// get LinuxSockOpts.
type SockOptSetter interface {
	SetSocketOptions(SocketOptions) error
}

// CongestionNamer is implemented by connections that know their congestion
// control (netstack's); it wins over a CongestionFunc.
type CongestionNamer interface {
	CongestionName() string
}

// congestionOf names c's congestion control.
func congestionOf(f CongestionFunc, c net.Conn) string {
	if n, ok := c.(CongestionNamer); ok {
		return n.CongestionName()
	}
	if f != nil {
		return f(c)
	}
	return ""
}

// applySockOpts sets a stream's options, mapping failures to iperf3's errors.
func applySockOpts(f SockOptFunc, c net.Conn, o SocketOptions) error {
	if o.isZero() {
		return nil
	}
	if f == nil {
		switch s := c.(type) {
		case SockOptSetter:
			f = func(net.Conn, SocketOptions) error { return s.SetSocketOptions(o) }
		case *net.TCPConn, *net.UDPConn:
			f = LinuxSockOpts
		default:
			return nil
		}
	}
	err := f(c, o)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrCongestion):
		return fail(CodeSetCongestion, nil)
	}
	return fail(CodeSetBuf, fmt.Errorf("socket options %+v: %w", o, err))
}

// sockOpts is what the parameters ask of the data streams.
func (p testParams) sockOpts() SocketOptions {
	return SocketOptions{Window: p.Window, MSS: p.MSS, NoDelay: p.NoDelay, Congestion: p.Congestion, UserTimeout: p.SndTimeout}
}
