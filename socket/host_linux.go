//go:build linux

package socket

import (
	"context"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// SetHostOptions sets o on a host socket with setsockopt. An established
// connection's MSS can only shrink its segments, and Linux keeps a TCP
// socket's ECN bits out of IP_TOS.
func SetHostOptions(c net.Conn, o Options) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	_, tcp := c.(*net.TCPConn)
	return setRaw(raw, o, tcp)
}

// isIPv4Socket: DF applies only to an AF_INET socket.
func isIPv4Socket(fd int) bool {
	d, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	return err == nil && d == unix.AF_INET
}

// setRaw sets o on a socket; the TCP options only where tcp.
func setRaw(raw syscall.RawConn, o Options, tcp bool) error {
	var serr error
	cerr := raw.Control(func(fd uintptr) {
		set := func(level, opt, v int) {
			if serr == nil {
				serr = unix.SetsockoptInt(int(fd), level, opt, v)
			}
		}
		if o.Window > 0 {
			set(unix.SOL_SOCKET, unix.SO_SNDBUF, o.Window)
			set(unix.SOL_SOCKET, unix.SO_RCVBUF, o.Window)
		}
		if o.TOS > 0 {
			set(unix.IPPROTO_IP, unix.IP_TOS, o.TOS)
		}
		if o.DontFragment && !tcp && isIPv4Socket(int(fd)) {
			set(unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO)
		}
		if !tcp {
			return
		}
		if o.MSS > 0 {
			set(unix.IPPROTO_TCP, unix.TCP_MAXSEG, o.MSS)
		}
		if o.NoDelay {
			set(unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		}
		if o.UserTimeout > 0 {
			set(unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(o.UserTimeout/time.Millisecond))
		}
		if o.Congestion != "" && serr == nil {
			if err := unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, o.Congestion); err != nil {
				serr = ErrCongestion
			}
		}
	})
	if cerr != nil {
		return cerr
	}
	return serr
}

// dialControl is a net.Dialer Control setting DialOptions(ctx) on a TCP
// socket between socket() and connect(), or nil when there are none.
func dialControl(ctx context.Context) func(network, address string, c syscall.RawConn) error {
	o, ok := DialOptions(ctx)
	if !ok {
		return nil
	}
	return func(_, _ string, c syscall.RawConn) error { return setRaw(c, o, true) }
}

// SetHostListenerMSS sets TCP_MAXSEG on a host listening socket, which its
// connections inherit (0 clears it).
func SetHostListenerMSS(l *net.TCPListener, mss int) error {
	raw, err := l.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_MAXSEG, mss)
	}); err != nil {
		return err
	}
	return serr
}

// HostBuffers reads SO_SNDBUF and SO_RCVBUF of a host socket (the kernel's
// doubled values).
func HostBuffers(c syscall.Conn) (snd, rcv int, ok bool) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	var e1, e2 error
	if err := raw.Control(func(fd uintptr) {
		snd, e1 = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF)
		rcv, e2 = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF)
	}); err != nil || e1 != nil || e2 != nil {
		return 0, 0, false
	}
	return snd, rcv, true
}

// HostTCPInfo reads TCP_INFO of a host socket (*net.TCPConn or any
// syscall.Conn).
func HostTCPInfo(c net.Conn) (TCPInfo, bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return TCPInfo{}, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return TCPInfo{}, false
	}
	var info *unix.TCPInfo
	var gerr error
	if err := raw.Control(func(fd uintptr) {
		info, gerr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); err != nil || gerr != nil || info == nil {
		return TCPInfo{}, false
	}
	return TCPInfo{
		Total_retrans: info.Total_retrans,
		Snd_cwnd:      info.Snd_cwnd,
		Snd_mss:       info.Snd_mss,
		Snd_wnd:       info.Snd_wnd,
		Rtt:           info.Rtt,
		Rttvar:        info.Rttvar,
		Pmtu:          info.Pmtu,
	}, true
}

// HostCongestion reads TCP_CONGESTION of a host socket.
func HostCongestion(c net.Conn) string {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return ""
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return ""
	}
	var name string
	_ = raw.Control(func(fd uintptr) {
		name, _ = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	})
	return name
}
