//go:build linux

package iperf3

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// LinuxSockOpts is a SockOptFunc for host sockets (setsockopt, as iperf3
// does; the MSS can only shrink an established connection's segments).
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
