package iperf3

import (
	"context"
	"fmt"
	"net"
	"runtime"
)

// DialFunc opens a TCP connection to addr ("host:port"). Data-stream dials
// carry the --cport local port in ctx (see LocalPort); a dialer that can
// bind should honour it.
type DialFunc func(ctx context.Context, addr string) (net.Conn, error)

// TCPInfo is the sender-side TCP state iperf3 reports (Linux TCP_INFO).
type TCPInfo struct {
	TotalRetransmits uint64 // tcpi_total_retrans
	SndCwndBytes     uint64 // tcpi_snd_cwnd * tcpi_snd_mss
	SndWndBytes      uint64 // tcpi_snd_wnd
	RTTMicros        uint32 // tcpi_rtt
	RTTVarMicros     uint32 // tcpi_rttvar
	PMTU             uint32 // tcpi_pmtu
	SndMSS           uint32 // tcpi_snd_mss
}

// TCPInfoFunc reads a connection's TCP statistics; ok=false if it cannot.
// Without one, the sender reports no retransmits (no Retr/Cwnd columns),
// like an iperf3 built without TCP_INFO.
type TCPInfoFunc func(c net.Conn) (TCPInfo, bool)

// CongestionFunc names a connection's congestion control ("cubic", "reno"),
// or returns "" if unknown.
type CongestionFunc func(c net.Conn) string

type localPortKey struct{}

// WithLocalPort returns a context asking the dialer to bind the given local
// port (iperf3's --cport; stream i of a -P test gets cport+i).
func WithLocalPort(ctx context.Context, port int) context.Context {
	return context.WithValue(ctx, localPortKey{}, port)
}

// LocalPort reports the local port a dial should bind, if any.
func LocalPort(ctx context.Context) (int, bool) {
	p, ok := ctx.Value(localPortKey{}).(int)
	return p, ok && p > 0
}

// HostDial dials with the host's TCP stack, binding LocalPort(ctx) if set
// and setting DialOptions(ctx) before the connect.
func HostDial(ctx context.Context, addr string) (net.Conn, error) {
	return hostDial(ctx, "tcp", func(p int) net.Addr { return &net.TCPAddr{Port: p} }, "dial ", addr)
}

// hostDial dials network with the host's stack, from local(LocalPort(ctx))
// if a port is set; errors start with prefix.
func hostDial(ctx context.Context, network string, local func(port int) net.Addr, prefix, addr string) (net.Conn, error) {
	var d net.Dialer
	if network == "tcp" {
		d.Control = dialControl(ctx) // -M, -w, -N before the SYN
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

// defaultSystemInfo stands in for iperf3's uname line in the JSON output.
func defaultSystemInfo() string {
	return fmt.Sprintf("Go %s %s/%s (mesonemu iperf3)", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
