package iperf3

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"mesonemu/socket"
)

// Limits of src/iperf.h.
const (
	maxTCPBuffer = 512 * 1024 * 1024 // MAX_TCP_BUFFER
	maxMSS       = 9 * 1024          // MAX_MSS
)

// congestionOf names c's congestion control.
func congestionOf(f socket.CongestionFunc, c net.Conn) string {
	if n, ok := c.(socket.CongestionNamer); ok {
		return n.CongestionName()
	}
	if f != nil {
		return f(c)
	}
	return ""
}

// applySockOpts sets a stream's options, mapping failures to iperf3's errors.
func applySockOpts(f socket.OptionsFunc, c net.Conn, o socket.Options) error {
	if o.IsZero() {
		return nil
	}
	if f == nil {
		switch s := c.(type) {
		case socket.OptionSetter:
			f = func(net.Conn, socket.Options) error { return s.SetSocketOptions(o) }
		case *net.TCPConn, *net.UDPConn:
			f = socket.SetHostOptions
		default:
			return nil
		}
	}
	err := f(c, o)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, socket.ErrCongestion):
		return fail(CodeSetCongestion, nil)
	case o == socket.Options{DontFragment: true}:
		return fail(CodeSetDontFrag, err)
	case o == socket.Options{TOS: o.TOS, DontFragment: o.DontFragment}:
		return fail(CodeSetTOS, err)
	}
	return fail(CodeSetBuf, fmt.Errorf("socket options %+v: %w", o, err))
}

// sockOpts is what the parameters ask of the data streams as they connect;
// tosOpts comes once they are streams.
func (p testParams) sockOpts() socket.Options {
	return socket.Options{Window: p.Window, MSS: p.MSS, NoDelay: p.NoDelay, Congestion: p.Congestion, UserTimeout: p.SndTimeout}
}

func (p testParams) tosOpts() socket.Options {
	return socket.Options{TOS: p.TOS, DontFragment: p.UDP && p.DontFragment}
}

// setListenerMSS gives ln's next connections mss where it can; it reports
// whether it did.
func setListenerMSS(ln net.Listener, mss int) bool {
	switch l := ln.(type) {
	case socket.ListenerMSSSetter:
		return l.SetListenerMSS(mss) == nil
	case *net.TCPListener:
		return socket.SetHostListenerMSS(l, mss) == nil
	}
	return false
}

// socketBuffers reads what JSON start reports as sndbuf_actual and
// rcvbuf_actual; ok is false for a socket that cannot say.
func socketBuffers(c any) (snd, rcv int, ok bool) {
	switch s := c.(type) {
	case socket.BufferSizer:
		snd, rcv = s.SocketBuffers()
		return snd, rcv, true
	case *net.TCPConn, *net.UDPConn:
		return socket.HostBuffers(s.(syscall.Conn))
	}
	return 0, 0, false
}

// noteBuffers fills the Start's buffer sizes from a test's first data
// socket, as 3.12 reads them once the socket has its -w (iperf_tcp.c,
// iperf_udp.c); later streams do not change them.
func (s *session) noteBuffers(c any) {
	if s.buffersNoted {
		return
	}
	s.buffersNoted = true
	if snd, rcv, ok := socketBuffers(c); ok {
		s.res.Start.SndbufActual, s.res.Start.RcvbufActual = snd, rcv
	}
}

// setUDPBuffers gives the server's UDP socket the client's -w, as 3.12 sets
// it on each stream's socket (iperf_udp_accept's buffer check).
func (t *serverTest) setUDPBuffers(pc net.PacketConn) error {
	c, ok := pc.(net.Conn)
	if !ok || t.s.params.Window == 0 {
		return nil
	}
	return applySockOpts(t.o.SockOpts, c, socket.Options{Window: t.s.params.Window})
}

// setUDPTOS gives the server's UDP socket the client's -S once every stream
// has had its connect reply, which 3.12 sends before the stream exists.
func (t *serverTest) setUDPTOS() error {
	c, ok := t.udp.pc.(net.Conn)
	if !ok || t.s.params.tosOpts().IsZero() {
		return nil
	}
	return applySockOpts(t.o.SockOpts, c, t.s.params.tosOpts())
}
