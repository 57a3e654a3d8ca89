//go:build linux

package iperf3

import (
	"context"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// LinuxSockOpts is a SockOptFunc for host sockets (setsockopt, as iperf3
// does; the MSS can only shrink an established connection's segments, and
// Linux keeps a TCP socket's ECN bits out of IP_TOS).
func LinuxSockOpts(c net.Conn, o SocketOptions) error {
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

// isIPv4Socket: 3.12 sets DF only on an AF_INET socket (getsockdomain).
func isIPv4Socket(fd int) bool {
	d, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	return err == nil && d == unix.AF_INET
}

// setRaw sets o on a socket; the TCP options only where tcp.
func setRaw(raw syscall.RawConn, o SocketOptions, tcp bool) error {
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

// linuxListenerMSS sets TCP_MAXSEG on a listening socket, which its
// connections inherit (0 clears it).
func linuxListenerMSS(l *net.TCPListener, mss int) error {
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

// linuxBuffers reads SO_SNDBUF and SO_RCVBUF of a host socket (the kernel's
// doubled values, as 3.12 reports them).
func linuxBuffers(c syscall.Conn) (snd, rcv int, ok bool) {
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
