package netstack

import (
	"net"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/netstack/iperf3"
)

// SockOpts applies iperf3's -w, -M, -N and -C to a connection on a host's
// stack: socket buffer sizes, the MSS (it shrinks an established
// connection's segments), no-delay and the congestion control, which must
// be one of CongestionControls.
func SockOpts(c net.Conn, o iperf3.SocketOptions) error {
	if u, ok := c.(*UDPConn); ok {
		u.SetBuffers(o.Window, o.Window)
		return nil
	}
	tc, ok := c.(*Conn)
	if !ok {
		return nil
	}
	so := tc.ep.SocketOptions()
	if o.Window > 0 {
		so.SetSendBufferSize(int64(o.Window), true)
		so.SetReceiveBufferSize(int64(o.Window), true)
	}
	if o.NoDelay {
		so.SetDelayOption(false)
	}
	if o.MSS > 0 {
		_ = tc.ep.SetSockOptInt(tcpip.MaxSegOption, o.MSS)
	}
	if o.UserTimeout > 0 {
		ut := tcpip.TCPUserTimeoutOption(o.UserTimeout)
		_ = tc.ep.SetSockOpt(&ut)
	}
	if o.Congestion != "" {
		known := false
		for _, cc := range CongestionControls {
			known = known || cc == o.Congestion
		}
		cc := tcpip.CongestionControlOption(o.Congestion)
		if !known || tc.ep.SetSockOpt(&cc) != nil {
			return iperf3.ErrCongestion
		}
	}
	tc.h.settle()
	return nil
}

// SetSocketOptions is SockOpts for c (iperf3.SockOptSetter).
func (c *Conn) SetSocketOptions(o iperf3.SocketOptions) error { return SockOpts(c, o) }

// SetSocketOptions is SockOpts for u (iperf3.SockOptSetter).
func (u *UDPConn) SetSocketOptions(o iperf3.SocketOptions) error { return SockOpts(u, o) }

// CongestionName is the congestion control c runs (iperf3.CongestionNamer).
func (c *Conn) CongestionName() string { return ConnCongestion("")(c) }

// ConnCongestion names the congestion control a connection runs, or
// fallback when it is not a connection on a host's stack.
func ConnCongestion(fallback string) iperf3.CongestionFunc {
	return func(c net.Conn) string {
		tc, ok := c.(*Conn)
		if !ok {
			return fallback
		}
		var cc tcpip.CongestionControlOption
		if tc.ep.GetSockOpt(&cc) != nil {
			return fallback
		}
		return string(cc)
	}
}
