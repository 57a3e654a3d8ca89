package netstack

import (
	"context"
	"encoding/binary"
	"sync"
	"testing"

	"mesonemu/iperf3"
)

// frameLog records the IPv4 frames a host sends and receives.
type frameLog struct {
	FrameNIC
	mu     sync.Mutex
	frames []ipFrame
}

func (l *frameLog) keep(f []byte) {
	if len(f) >= 42 && binary.BigEndian.Uint16(f[12:]) == 0x0800 {
		l.mu.Lock()
		l.frames = append(l.frames, parseFrame(f))
		l.mu.Unlock()
	}
}

func (l *frameLog) Transmit(f []byte) error {
	err := l.FrameNIC.Transmit(f)
	if err == nil {
		l.keep(f)
	}
	return err
}

func (l *frameLog) SetReceiver(fn func([]byte)) {
	l.FrameNIC.SetReceiver(func(f []byte) {
		l.keep(f)
		fn(f)
	})
}

// ipFrame is what the tests look at in a frame.
type ipFrame struct {
	tos, proto   byte
	sport, dport uint16
	syn          bool
	payload      int
}

func parseFrame(f []byte) ipFrame {
	ip := f[14:]
	ihl := int(ip[0]&0xf) * 4
	total := int(binary.BigEndian.Uint16(ip[2:]))
	l4 := ip[ihl:]
	fr := ipFrame{tos: ip[1], proto: ip[9], sport: binary.BigEndian.Uint16(l4), dport: binary.BigEndian.Uint16(l4[2:])}
	switch fr.proto {
	case 6:
		fr.syn = l4[13]&0x02 != 0
		fr.payload = total - ihl - int(l4[12]>>4)*4
	case 17:
		fr.payload = total - ihl - 8
	}
	return fr
}

// runPair runs one iperf3 test from host a (198.18.0.2) to host b's server
// with netstack's socket options on both ends, and returns both results
// and every frame a saw.
func runPair(t *testing.T, o iperf3.ClientOptions) (client, server *iperf3.Result, frames []ipFrame) {
	t.Helper()
	log := &frameLog{}
	m, a, b := pair(t, 7, func(n FrameNIC) FrameNIC { log.FrameNIC = n; return log })
	ln, err := b.Listen(iperf3.DefaultPort)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sched := Sched{M: m}
	var srvErr, cliErr error
	srv := m.Go("server", func() {
		server, srvErr = iperf3.ServeOne(ctx, ln, iperf3.ServerOptions{Clock: b.Clock(), Seed: 3, Sched: sched, SockOpts: SockOpts, TCPInfo: TCPInfo})
	})
	o.Host, o.Dial, o.Clock, o.Seed, o.Sched, o.SockOpts, o.TCPInfo = "198.18.0.1", a.Dial, a.Clock(), 4, sched, SockOpts, TCPInfo
	if o.Seconds == 0 {
		// A second at 50 Mbit/s: thousands of segments, which -n would not
		// give (the sender's 4 MiB buffer takes it at once).
		o.Seconds, o.Bandwidth = 1, 50e6
	}
	cli := m.Go("client", func() { client, cliErr = iperf3.Run(ctx, o) })
	if err := m.Run(nil, func() bool { return cli.Done() && srv.Done() }); err != nil {
		t.Fatal(err)
	}
	if cliErr != nil || srvErr != nil {
		t.Fatalf("client: %v, server: %v", cliErr, srvErr)
	}
	return client, server, log.frames
}

// clientPort is a frame's port on the client's side.
func clientPort(f ipFrame) uint16 {
	if f.sport == iperf3.DefaultPort {
		return f.dport
	}
	return f.sport
}

// controlPort is the client's port of the first TCP connection, the
// control one.
func controlPort(frames []ipFrame) uint16 {
	for _, f := range frames {
		if f.proto == 6 && f.syn {
			return clientPort(f)
		}
	}
	return 0
}

// TestTOSOnTheWire: -S reaches the IPv4 header of every data segment or
// datagram in both directions, after the stream's set-up (the TCP SYN and
// cookie, the UDP connect datagrams go out as 3.12 sends them, with TOS 0),
// and never the control connection's.
func TestTOSOnTheWire(t *testing.T) {
	tests := []struct {
		name string
		o    iperf3.ClientOptions
		tos  byte // on the wire; test_start says o.TOS
	}{
		{"tcp -S 0x10", iperf3.ClientOptions{TOS: 0x10}, 0x10},
		{"tcp -S 0x13", iperf3.ClientOptions{TOS: 0x13}, 0x10}, // TCP keeps its ECN bits, as Linux's
		{"tcp -R --dscp ef", iperf3.ClientOptions{TOS: 0xb8, Reverse: true}, 0xb8},
		{"tcp -P 2 -S 0x28", iperf3.ClientOptions{TOS: 0x28, Parallel: 2}, 0x28},
		{"udp -S 0x11", iperf3.ClientOptions{TOS: 0x11, UDP: true}, 0x11},
		{"udp -R -S 0x20", iperf3.ClientOptions{TOS: 0x20, UDP: true, Reverse: true}, 0x20},
		{"tcp default", iperf3.ClientOptions{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client, server, frames := runPair(t, tc.o)
			for _, r := range []*iperf3.Result{client, server} {
				if got := r.Start.TestStart.TOS; got != tc.o.TOS {
					t.Errorf("test_start tos %d, want %d", got, tc.o.TOS)
				}
			}
			ctrl := controlPort(frames)
			var ctrlN, dataN, setupN int
			tosN := map[byte]int{}
			for _, f := range frames {
				switch {
				case f.proto == 6 && clientPort(f) == ctrl:
					ctrlN++
					if f.tos != 0 {
						t.Fatalf("control connection frame with TOS %#x", f.tos)
					}
				case f.proto == 6 && f.syn, f.proto == 6 && f.payload == 37, f.proto == 17 && f.payload == 4:
					setupN++ // SYN, cookie, UDP connect and reply: before the stream is made
					if f.tos != 0 {
						t.Errorf("set-up frame %+v with TOS %#x", f, f.tos)
					}
				case f.payload > 100:
					dataN++
					tosN[f.tos]++
				}
			}
			if ctrlN < 10 || dataN < 500 || setupN < 2 {
				t.Fatalf("saw %d control, %d set-up, %d data frames", ctrlN, setupN, dataN)
			}
			if len(tosN) != 1 || tosN[tc.tos] != dataN {
				t.Errorf("data frames by TOS %v, want all %d at %#x", tosN, dataN, tc.tos)
			}
		})
	}
}

// TestMSSBeforeConnect: -M reaches the SYNs of the data connections (the
// client's before its connect, the server's from its listener), so the data
// segments of either direction carry at most that many bytes less options.
func TestMSSBeforeConnect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       iperf3.ClientOptions
		maxData int
	}{
		{"-M 1000", iperf3.ClientOptions{MSS: 1000}, 1000},
		{"-M 1000 -R", iperf3.ClientOptions{MSS: 1000, Reverse: true}, 1000},
		{"-M 600 -P 2", iperf3.ClientOptions{MSS: 600, Parallel: 2}, 600},
		{"no -M", iperf3.ClientOptions{}, 1460},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, server, frames := runPair(t, tc.o)
			ctrl := controlPort(frames)
			most := 0
			n := 0
			for _, f := range frames {
				if f.proto == 6 && clientPort(f) != ctrl && f.payload > 0 {
					most = max(most, f.payload)
					n++
				}
			}
			// gVisor takes off the MSS the most its options can fill with
			// timestamps and SACK blocks (40 bytes), where Linux takes the
			// timestamps' 12 (RFC 6691 allows either).
			if want := tc.maxData - 40; n < 1000 || most != want {
				t.Errorf("%d data segments, largest payload %d bytes, want %d", n, most, want)
			}
			// The sender's tcp_info snd_mss is Linux's for that MSS (less
			// the timestamps), which the reported cwnd bytes are counted in.
			samples := 0
			for _, r := range []*iperf3.Result{client, server} {
				for _, iv := range r.Intervals {
					for _, st := range iv.Streams {
						if st.IntervalTCPInfo == nil {
							continue
						}
						samples++
						if st.SndCwnd == 0 || st.SndCwnd%uint64(tc.maxData-12) != 0 {
							t.Errorf("snd_cwnd %d is no whole number of %d-byte segments", st.SndCwnd, tc.maxData-12)
						}
					}
				}
			}
			if samples == 0 {
				t.Error("no sender interval has TCP statistics")
			}
		})
	}
}

// TestBuffersActual: JSON start's sndbuf_actual and rcvbuf_actual are the
// first data socket's buffer sizes, with -w the asked size, on both ends.
func TestBuffersActual(t *testing.T) {
	tcpDef := LinuxTCP()
	for _, tc := range []struct {
		name     string
		o        iperf3.ClientOptions
		snd, rcv int
	}{
		{"tcp", iperf3.ClientOptions{}, tcpDef.SendBuffer.Default, tcpDef.ReceiveBuffer.Default},
		{"tcp -w 64K", iperf3.ClientOptions{Window: 64 << 10}, 64 << 10, 64 << 10},
		{"udp", iperf3.ClientOptions{UDP: true}, DefaultUDPSndBuf, DefaultUDPRcvBuf},
		{"udp -w 100K", iperf3.ClientOptions{UDP: true, Window: 100 << 10}, 100 << 10, 100 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, server, _ := runPair(t, tc.o)
			c := client.Start
			if c.SockBufsize != tc.o.Window || c.SndbufActual != tc.snd || c.RcvbufActual != tc.rcv {
				t.Errorf("client sock_bufsize %d sndbuf_actual %d rcvbuf_actual %d, want %d %d %d",
					c.SockBufsize, c.SndbufActual, c.RcvbufActual, tc.o.Window, tc.snd, tc.rcv)
			}
			s := server.Start
			if s.SockBufsize != tc.o.Window || s.SndbufActual != tc.snd || s.RcvbufActual != tc.rcv {
				t.Errorf("server sock_bufsize %d sndbuf_actual %d rcvbuf_actual %d, want %d %d %d",
					s.SockBufsize, s.SndbufActual, s.RcvbufActual, tc.o.Window, tc.snd, tc.rcv)
			}
		})
	}
}
