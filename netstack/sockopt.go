package netstack

import (
	"fmt"
	"net"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/socket"
)

// SockOpts applies iperf3's -w, -M, -N, -C and -S to a connection on a
// host's stack: socket buffer sizes, the MSS, no-delay, the congestion
// control, which must be one of CongestionControls, and the IP TOS byte
// (gVisor, like Linux, keeps a TCP socket's ECN bits out of it). gVisor's
// MSS is only what the SYN advertises, so it counts when set before the
// connect (DialFrom) or on the listener (SetListenerMSS).
func SockOpts(c net.Conn, o socket.Options) error {
	if u, ok := c.(*UDPConn); ok {
		u.SetBuffers(o.Window, o.Window)
		if err := setTOS(u.ep, o.TOS); err != nil {
			return err
		}
		return setDontFragment(u, o.DontFragment)
	}
	tc, ok := c.(*Conn)
	if !ok {
		return nil
	}
	preConnect(tc.ep, o)
	if o.MSS > 0 {
		tc.userMSS = o.MSS
	}
	if err := setTOS(tc.ep, o.TOS); err != nil {
		return err
	}
	if o.Congestion != "" {
		known := false
		for _, cc := range CongestionControls {
			known = known || cc == o.Congestion
		}
		cc := tcpip.CongestionControlOption(o.Congestion)
		if !known || tc.ep.SetSockOpt(&cc) != nil {
			return socket.ErrCongestion
		}
	}
	tc.h.settle()
	return nil
}

// SetSocketOptions is SockOpts for c (socket.OptionSetter).
func (c *Conn) SetSocketOptions(o socket.Options) error { return SockOpts(c, o) }

// SetSocketOptions is SockOpts for u (socket.OptionSetter).
func (u *UDPConn) SetSocketOptions(o socket.Options) error { return SockOpts(u, o) }

// CongestionName is the congestion control c runs (socket.CongestionNamer).
func (c *Conn) CongestionName() string { return ConnCongestion("")(c) }

// ConnCongestion names the congestion control a connection runs, or
// fallback when it is not a connection on a host's stack.
func ConnCongestion(fallback string) socket.CongestionFunc {
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

// preConnect sets what 3.12 sets on a TCP socket before it connects.
func preConnect(ep tcpip.Endpoint, o socket.Options) {
	so := ep.SocketOptions()
	if o.Window > 0 {
		so.SetSendBufferSize(int64(o.Window), true)
		so.SetReceiveBufferSize(int64(o.Window), true)
	}
	if o.NoDelay {
		so.SetDelayOption(false)
	}
	if o.MSS > 0 {
		_ = ep.SetSockOptInt(tcpip.MaxSegOption, o.MSS)
	}
	if o.UserTimeout > 0 {
		ut := tcpip.TCPUserTimeoutOption(o.UserTimeout)
		_ = ep.SetSockOpt(&ut)
	}
}

func setTOS(ep tcpip.Endpoint, tos int) error {
	if tos == 0 {
		return nil
	}
	if terr := ep.SetSockOptInt(tcpip.IPv4TOSOption, tos); terr != nil {
		return fmt.Errorf("IP TOS %d: %s", tos, terr)
	}
	// IPV6_TCLASS, as 3.12 sets it on an IPv6 socket: gVisor's UDP keeps it
	// apart from the IPv4 TOS (its TCP shares one byte).
	if terr := ep.SetSockOptInt(tcpip.IPv6TrafficClassOption, tos); terr != nil {
		return fmt.Errorf("IPv6 traffic class %d: %s", tos, terr)
	}
	return nil
}

// setDontFragment is --dont-fragment on an IPv4 UDP socket (3.12 skips
// IPv6 ones): DF on every datagram, and one the link's MTU cannot carry
// whole is refused, as Linux's IP_PMTUDISC_DO does.
func setDontFragment(u *UDPConn, on bool) error {
	if !on || !u.v4 {
		return nil
	}
	if terr := u.ep.SetSockOptInt(tcpip.MTUDiscoverOption, int(tcpip.PMTUDiscoveryDo)); terr != nil {
		return fmt.Errorf("IP_MTU_DISCOVER: %s", terr)
	}
	u.dontFragment = true
	return nil
}

// SetListenerMSS gives the connections l accepts from now on an advertised
// MSS of mss (0: the route's again), as a listener re-created with
// TCP_MAXSEG does (socket.ListenerMSSSetter).
func (l *Listener) SetListenerMSS(mss int) error {
	v := mss
	if v == 0 {
		// gVisor takes no 0; an MSS above the route's advertises the route's.
		v = header.TCPMaximumMSS
	}
	if terr := l.ep.SetSockOptInt(tcpip.MaxSegOption, v); terr != nil {
		return fmt.Errorf("listener MSS %d: %s", mss, terr)
	}
	l.userMSS = mss
	return nil
}

// SocketBuffers are the endpoint's send and receive buffer sizes
// (socket.BufferSizer): gVisor's own values, which Linux would report
// doubled for a size set with -w.
func (s *endpointSocket) SocketBuffers() (snd, rcv int) {
	so := s.ep.SocketOptions()
	return int(so.GetSendBufferSize()), int(so.GetReceiveBufferSize())
}

// SocketBuffers are the modelled send buffer and the endpoint's receive
// buffer (socket.BufferSizer).
func (u *UDPConn) SocketBuffers() (snd, rcv int) {
	return u.sndBuf, int(u.ep.SocketOptions().GetReceiveBufferSize())
}
