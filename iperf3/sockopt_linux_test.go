//go:build linux

package iperf3

import (
	"context"
	"net"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"mesonemu/socket"
)

// loopbackPair dials ln with socket.HostDial under ctx and returns both ends.
func loopbackPair(t *testing.T, ctx context.Context, ln net.Listener) (client, server net.Conn) {
	t.Helper()
	acc := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(acc)
			return
		}
		acc <- c
	}()
	c, err := socket.HostDial(ctx, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, ok := <-acc
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { _ = c.Close(); _ = s.Close() })
	return c, s
}

func sndMSS(t *testing.T, c net.Conn) uint32 {
	t.Helper()
	info, ok := socket.HostTCPInfo(c)
	if !ok {
		t.Fatal("no TCP_INFO")
	}
	return info.Snd_mss
}

// TestHostSocketMSS: on host sockets -M reaches the SYN through socket.HostDial's
// context, and the server's listener passes its MSS to the connections it
// accepts, so the peer's sending MSS is Linux's for 1000 (less the 12 bytes
// of timestamps); loopback's own is ~65 KB.
func TestHostSocketMSS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx := context.Background()

	_, s := loopbackPair(t, socket.WithDialOptions(ctx, socket.Options{MSS: 1000}), ln)
	if got := sndMSS(t, s); got != 988 {
		t.Errorf("dialled with -M 1000: the server's snd_mss %d, want 988", got)
	}
	_, s = loopbackPair(t, ctx, ln)
	if got := sndMSS(t, s); got <= 9000 {
		t.Errorf("dialled without -M: the server's snd_mss %d, want loopback's", got)
	}
	if !setListenerMSS(ln, 1000) {
		t.Fatal("setListenerMSS failed")
	}
	c, _ := loopbackPair(t, ctx, ln)
	if got := sndMSS(t, c); got != 988 {
		t.Errorf("listener with -M 1000: the client's snd_mss %d, want 988", got)
	}
	if !setListenerMSS(ln, 0) {
		t.Fatal("setListenerMSS 0 failed")
	}
	c, _ = loopbackPair(t, ctx, ln)
	if got := sndMSS(t, c); got <= 9000 {
		t.Errorf("listener cleared: the client's snd_mss %d, want loopback's", got)
	}
}

// TestHostSocketTOSAndBuffers: socket.SetHostOptions sets IP_TOS (a TCP socket
// drops the ECN bits, as Linux does) and socketBuffers reads back the
// kernel's doubled -w.
func TestHostSocketTOSAndBuffers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, _ := loopbackPair(t, context.Background(), ln)
	u, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	for _, tc := range []struct {
		name     string
		c        net.Conn
		tos, got int
	}{{"tcp", c, 0x11, 0x10}, {"udp", u, 0x11, 0x11}} {
		if err := socket.SetHostOptions(tc.c, socket.Options{TOS: tc.tos, Window: 64 << 10}); err != nil {
			t.Fatal(err)
		}
		var tos int
		var gerr error
		raw, _ := tc.c.(syscall.Conn).SyscallConn()
		_ = raw.Control(func(fd uintptr) { tos, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS) })
		if gerr != nil || tos != tc.got {
			t.Errorf("%s: IP_TOS %#x (%v), want %#x", tc.name, tos, gerr, tc.got)
		}
		if snd, rcv, ok := socketBuffers(tc.c); !ok || snd != 128<<10 || rcv != 128<<10 {
			t.Errorf("%s: buffers %d/%d (%v), want the kernel's doubled 64 KiB", tc.name, snd, rcv, ok)
		}
	}
}
