//go:build !linux

package iperf3

import (
	"context"
	"errors"
	"net"
	"syscall"
)

// LinuxTCPInfo reads nothing off Linux.
func LinuxTCPInfo(net.Conn) (TCPInfo, bool) { return TCPInfo{}, false }

// LinuxCongestion reads nothing off Linux.
func LinuxCongestion(net.Conn) string { return "" }

// LinuxSockOpts sets nothing off Linux.
func LinuxSockOpts(net.Conn, SocketOptions) error { return nil }

func linuxListenerMSS(*net.TCPListener, int) error { return errors.ErrUnsupported }

func linuxBuffers(syscall.Conn) (int, int, bool) { return 0, 0, false }

func dialControl(context.Context) func(string, string, syscall.RawConn) error { return nil }
