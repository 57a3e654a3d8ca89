package iperf3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
)

// SocketOptions are the per-stream socket settings a test asks for: -w
// (SO_SNDBUF and SO_RCVBUF), -M (TCP_MAXSEG), -N (TCP_NODELAY), -C
// (TCP_CONGESTION) and -S (IP_TOS). Zero values leave the socket as it is.
type SocketOptions struct {
	Window     int
	MSS        int
	NoDelay    bool
	Congestion string
	// UserTimeout is --snd-timeout (TCP_USER_TIMEOUT): how long sent data may
	// stay unacknowledged before the connection is dropped; 0: the stack's.
	UserTimeout time.Duration
	// TOS is the IP TOS byte of what the socket sends. 3.12 sets it once a
	// stream is made (iperf_init_stream), after the TCP cookie or the UDP
	// connect exchange, so those still go out with TOS 0.
	TOS int
	// DontFragment is --dont-fragment, set with TOS (iperf_init_stream) and
	// only on IPv4 UDP sockets: IP_MTU_DISCOVER = IP_PMTUDISC_DO.
	DontFragment bool
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
	case o == SocketOptions{DontFragment: true}:
		return fail(CodeSetDontFrag, err)
	case o == SocketOptions{TOS: o.TOS, DontFragment: o.DontFragment}:
		return fail(CodeSetTOS, err)
	}
	return fail(CodeSetBuf, fmt.Errorf("socket options %+v: %w", o, err))
}

// sockOpts is what the parameters ask of the data streams as they connect;
// tosOpts comes once they are streams.
func (p testParams) sockOpts() SocketOptions {
	return SocketOptions{Window: p.Window, MSS: p.MSS, NoDelay: p.NoDelay, Congestion: p.Congestion, UserTimeout: p.SndTimeout}
}

func (p testParams) tosOpts() SocketOptions {
	return SocketOptions{TOS: p.TOS, DontFragment: p.UDP && p.DontFragment}
}

// preConnect is what 3.12 sets on a TCP data socket between socket() and
// connect() (iperf_tcp_connect): the MSS the SYN advertises, the buffers
// the window scale derives from, no-delay and the user timeout.
func (o SocketOptions) preConnect() SocketOptions {
	return SocketOptions{Window: o.Window, MSS: o.MSS, NoDelay: o.NoDelay, UserTimeout: o.UserTimeout}
}

type dialOptionsKey struct{}

// WithDialOptions returns a context asking the dialer to set o on the
// socket before it connects, as 3.12 does for -M, -w, -N and
// --snd-timeout; a dialer that cannot still gets them after the connect.
func WithDialOptions(ctx context.Context, o SocketOptions) context.Context {
	if o.isZero() {
		return ctx
	}
	return context.WithValue(ctx, dialOptionsKey{}, o)
}

// DialOptions reports the options a dial should set before it connects.
func DialOptions(ctx context.Context) (SocketOptions, bool) {
	o, ok := ctx.Value(dialOptionsKey{}).(SocketOptions)
	return o, ok
}

// ListenerMSSSetter is a TCP listener whose future connections can be given
// an MSS (0: the stack's again): the server's half of -M, where 3.12
// re-creates its listener with TCP_MAXSEG so the data connections' SYN-ACKs
// advertise it.
type ListenerMSSSetter interface {
	SetListenerMSS(mss int) error
}

// setListenerMSS gives ln's next connections mss where it can; it reports
// whether it did.
func setListenerMSS(ln net.Listener, mss int) bool {
	switch l := ln.(type) {
	case ListenerMSSSetter:
		return l.SetListenerMSS(mss) == nil
	case *net.TCPListener:
		return linuxListenerMSS(l, mss) == nil
	}
	return false
}

// BufferSizer is implemented by sockets that know their buffer sizes
// (netstack's); host sockets are asked with getsockopt.
type BufferSizer interface {
	// SocketBuffers are SO_SNDBUF and SO_RCVBUF as the socket holds them.
	SocketBuffers() (snd, rcv int)
}

// socketBuffers reads what JSON start reports as sndbuf_actual and
// rcvbuf_actual; ok is false for a socket that cannot say.
func socketBuffers(c any) (snd, rcv int, ok bool) {
	switch s := c.(type) {
	case BufferSizer:
		snd, rcv = s.SocketBuffers()
		return snd, rcv, true
	case *net.TCPConn, *net.UDPConn:
		return linuxBuffers(s.(syscall.Conn))
	}
	return 0, 0, false
}

// noteBuffers fills the Start's buffer sizes from a test's first data
// socket, as 3.12 reads them once the socket has its -w (iperf_tcp.c,
// iperf_udp.c); later streams do not change them.
func (s *session) noteBuffers(c any) {
	if s.buffersNoted {
		return
	}
	s.buffersNoted = true
	if snd, rcv, ok := socketBuffers(c); ok {
		s.res.Start.SndbufActual, s.res.Start.RcvbufActual = snd, rcv
	}
}

// setUDPBuffers gives the server's UDP socket the client's -w, as 3.12 sets
// it on each stream's socket (iperf_udp_accept's buffer check).
func (t *serverTest) setUDPBuffers(pc net.PacketConn) error {
	c, ok := pc.(net.Conn)
	if !ok || t.s.params.Window == 0 {
		return nil
	}
	return applySockOpts(t.o.SockOpts, c, SocketOptions{Window: t.s.params.Window})
}

// setUDPTOS gives the server's UDP socket the client's -S once every stream
// has had its connect reply, which 3.12 sends before the stream exists.
func (t *serverTest) setUDPTOS() error {
	c, ok := t.udp.pc.(net.Conn)
	if !ok || t.s.params.tosOpts().isZero() {
		return nil
	}
	return applySockOpts(t.o.SockOpts, c, t.s.params.tosOpts())
}
