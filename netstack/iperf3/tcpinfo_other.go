//go:build !linux

package iperf3

import "net"

// LinuxTCPInfo reads nothing off Linux.
func LinuxTCPInfo(net.Conn) (TCPInfo, bool) { return TCPInfo{}, false }

// LinuxCongestion reads nothing off Linux.
func LinuxCongestion(net.Conn) string { return "" }

// LinuxSockOpts sets nothing off Linux.
func LinuxSockOpts(net.Conn, SocketOptions) error { return nil }
