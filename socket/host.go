package socket

import (
	"context"
	"fmt"
	"net"
)

// HostDial dials TCP with the host's stack, binding LocalPort(ctx) if set and
// setting DialOptions(ctx) before the connect.
func HostDial(ctx context.Context, addr string) (net.Conn, error) {
	return hostDial(ctx, "tcp", func(p int) net.Addr { return &net.TCPAddr{Port: p} }, "dial ", addr)
}

// HostDialUDP dials UDP with the host's stack, binding LocalPort(ctx) if set.
func HostDialUDP(ctx context.Context, addr string) (net.Conn, error) {
	return hostDial(ctx, "udp", func(p int) net.Addr { return &net.UDPAddr{Port: p} }, "dial udp ", addr)
}

// HostListenUDP opens a host UDP socket on port.
func HostListenUDP(ctx context.Context, port int) (net.PacketConn, error) {
	var lc net.ListenConfig
	return lc.ListenPacket(ctx, "udp", fmt.Sprintf(":%d", port))
}

// hostDial dials network with the host's stack, from local(LocalPort(ctx))
// if a port is set; errors start with prefix.
func hostDial(ctx context.Context, network string, local func(port int) net.Addr, prefix, addr string) (net.Conn, error) {
	var d net.Dialer
	if network == "tcp" {
		d.Control = dialControl(ctx)
	}
	if p, ok := LocalPort(ctx); ok {
		d.LocalAddr = local(p)
	}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("%s%s: %w", prefix, addr, err)
	}
	return c, nil
}
