// Package socket is what a socket offers an application, whatever stack is under it.
// Above the bus: the interface between the stacks and their applications (iperf3).
//
// It is what a TCP or UDP socket offers an application, whatever
// stack is under it: the options set on it (SO_SNDBUF, TCP_MAXSEG, IP_TOS,
// ...), its TCP_INFO, and how a dial asks for a local port or pre-connect
// options. Stacks implement it (netstack's gVisor sockets, the host's sockets
// in host_linux.go); applications such as iperf3 use it. It imports no stack
// and no application.
package socket

import (
	"context"
	"errors"
	"net"
	"time"
)

// Options are the settings an application asks of a socket: SO_SNDBUF and
// SO_RCVBUF (Window), TCP_MAXSEG, TCP_NODELAY, TCP_CONGESTION,
// TCP_USER_TIMEOUT, IP_TOS and IP_MTU_DISCOVER. Zero values leave the
// socket as it is.
type Options struct {
	Window     int
	MSS        int
	NoDelay    bool
	Congestion string
	// UserTimeout is TCP_USER_TIMEOUT: how long sent data may stay
	// unacknowledged before the connection is dropped; 0: the stack's.
	UserTimeout time.Duration
	// TOS is the IP TOS byte (IPV6_TCLASS on IPv6) of what the socket sends.
	TOS int
	// DontFragment is IP_MTU_DISCOVER = IP_PMTUDISC_DO, meaningful on IPv4
	// UDP sockets only.
	DontFragment bool
}

// IsZero reports whether o asks for nothing.
func (o Options) IsZero() bool { return o == Options{} }

// PreConnect is the part of o that must be set between socket() and
// connect() to take effect: the MSS the SYN advertises, the buffers the
// window scale derives from, no-delay and the user timeout.
func (o Options) PreConnect() Options {
	return Options{Window: o.Window, MSS: o.MSS, NoDelay: o.NoDelay, UserTimeout: o.UserTimeout}
}

// ErrCongestion is what setting Options.Congestion returns for an algorithm
// the stack does not offer (Linux's ENOENT from TCP_CONGESTION).
var ErrCongestion = errors.New("congestion control algorithm not available")

// OptionsFunc sets Options on a connection.
type OptionsFunc func(c net.Conn, o Options) error

// TCPInfoFunc reads a connection's TCP_INFO; ok is false if it cannot.
type TCPInfoFunc func(c net.Conn) (TCPInfo, bool)

// CongestionFunc names a connection's congestion control ("cubic", "reno"),
// or returns "" if unknown.
type CongestionFunc func(c net.Conn) string

// DialFunc opens a connection to addr ("host:port"). A dialer that can bind
// honours LocalPort(ctx), and DialOptions(ctx) before it connects.
type DialFunc func(ctx context.Context, addr string) (net.Conn, error)

// OptionSetter is a connection that sets its own options (a user-space
// stack's socket); host sockets are set with setsockopt instead.
type OptionSetter interface {
	SetSocketOptions(Options) error
}

// CongestionNamer is a connection that knows its congestion control.
type CongestionNamer interface {
	CongestionName() string
}

// ListenerMSSSetter is a TCP listener whose future connections can be given
// an MSS (0: the stack's again), as TCP_MAXSEG on a listening socket is
// inherited by what it accepts.
type ListenerMSSSetter interface {
	SetListenerMSS(mss int) error
}

// BufferSizer is a socket that reports its buffer sizes (SO_SNDBUF and
// SO_RCVBUF as the socket holds them).
type BufferSizer interface {
	SocketBuffers() (snd, rcv int)
}

type localPortKey struct{}

// WithLocalPort returns a context asking the dialer to bind port.
func WithLocalPort(ctx context.Context, port int) context.Context {
	return context.WithValue(ctx, localPortKey{}, port)
}

// LocalPort reports the local port a dial should bind, if any.
func LocalPort(ctx context.Context) (int, bool) {
	p, ok := ctx.Value(localPortKey{}).(int)
	return p, ok && p > 0
}

type dialOptionsKey struct{}

// WithDialOptions returns a context asking the dialer to set o on the
// socket before it connects; a dialer that cannot still gets them after.
func WithDialOptions(ctx context.Context, o Options) context.Context {
	if o.IsZero() {
		return ctx
	}
	return context.WithValue(ctx, dialOptionsKey{}, o)
}

// DialOptions reports the options a dial should set before it connects.
func DialOptions(ctx context.Context) (Options, bool) {
	o, ok := ctx.Value(dialOptionsKey{}).(Options)
	return o, ok
}
