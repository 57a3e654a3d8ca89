//go:build !linux

package socket

import (
	"context"
	"errors"
	"net"
	"syscall"
)

// SetHostOptions sets nothing off Linux.
func SetHostOptions(net.Conn, Options) error { return nil }

// SetHostListenerMSS is not offered off Linux.
func SetHostListenerMSS(*net.TCPListener, int) error { return errors.ErrUnsupported }

// HostBuffers reads nothing off Linux.
func HostBuffers(syscall.Conn) (int, int, bool) { return 0, 0, false }

// HostTCPInfo reads nothing off Linux.
func HostTCPInfo(net.Conn) (TCPInfo, bool) { return TCPInfo{}, false }

// HostCongestion reads nothing off Linux.
func HostCongestion(net.Conn) string { return "" }

func dialControl(context.Context) func(string, string, syscall.RawConn) error { return nil }
