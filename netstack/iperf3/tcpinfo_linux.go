//go:build linux

package iperf3

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// LinuxTCPInfo is a TCPInfoFunc for host sockets (*net.TCPConn or any
// syscall.Conn), reading TCP_INFO the way iperf3's tcp_info.c does: the
// congestion window in bytes is tcpi_snd_cwnd * tcpi_snd_mss.
func LinuxTCPInfo(c net.Conn) (TCPInfo, bool) {
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
		TotalRetransmits: uint64(info.Total_retrans),
		SndCwndBytes:     uint64(info.Snd_cwnd) * uint64(info.Snd_mss),
		SndWndBytes:      uint64(info.Snd_wnd),
		RTTMicros:        info.Rtt,
		RTTVarMicros:     info.Rttvar,
		PMTU:             info.Pmtu,
		SndMSS:           info.Snd_mss,
	}, true
}

// LinuxCongestion is a CongestionFunc for host sockets (TCP_CONGESTION).
func LinuxCongestion(c net.Conn) string {
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
