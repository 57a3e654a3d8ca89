package netstack

import (
	"encoding/binary"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
)

// frameTally records what a host's card sends: EtherType and length of each frame.
type frameTally struct {
	FrameNIC
	mu     sync.Mutex
	byType map[uint16]int
	lens   map[int]int // IPv6 frames by length
	synMSS []int       // the MSS options of IPv6 TCP SYNs
	syn4   []int       // and of IPv4 ones
}

func (f *frameTally) Transmit(frame []byte) error {
	f.mu.Lock()
	et := binary.BigEndian.Uint16(frame[12:14])
	f.byType[et]++
	if et == 0x86dd {
		f.lens[len(frame)]++
		f.synMSS = append(f.synMSS, synMSS(frame, 40)...)
	}
	if et == 0x0800 {
		f.syn4 = append(f.syn4, synMSS(frame, 20)...)
	}
	f.mu.Unlock()
	return f.FrameNIC.Transmit(frame)
}

// synMSS is the MSS option of an Ethernet/IP/TCP SYN behind an IP header of
// ipLen bytes (none otherwise).
func synMSS(frame []byte, ipLen int) []int {
	tcpOff := 14 + ipLen
	proto := frame[14+6] // IPv6's next header
	if ipLen == 20 {
		proto = frame[14+9]
	}
	if len(frame) < tcpOff+20 || proto != 6 || frame[tcpOff+13]&0x02 == 0 {
		return nil
	}
	opts := frame[tcpOff+20 : tcpOff+int(frame[tcpOff+12]>>4)*4]
	for i := 0; i+1 < len(opts) && opts[i] != 0; {
		if opts[i] == 1 {
			i++
			continue
		}
		if opts[i] == 2 && i+3 < len(opts) {
			return []int{int(binary.BigEndian.Uint16(opts[i+2:]))}
		}
		i += max(int(opts[i+1]), 2)
	}
	return nil
}

// pair6 is pair with IPv6 on both hosts (a 2001:2::2, b 2001:2::1) and a's
// frames logged.
func pair6(t testing.TB, seed int64) (*emu.Machine, *Host, *Host, *frameTally) {
	t.Helper()
	m := emu.NewMachine(1)
	w := NewIdealWire(m, 1000, 50*emu.Microsecond, 256)
	log := &frameTally{FrameNIC: w.A, byType: map[uint16]int{}, lens: map[int]int{}}
	a, err := NewHost(HostConfig{Name: "a", Machine: m, Addr: netip.MustParsePrefix("198.18.0.2/24"),
		Addr6: netip.MustParsePrefix("2001:2::2/64"),
		MAC:   tcpip.LinkAddress("\x02\x00\x00\x00\x00\x02"), NIC: log, Seeded: seed})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewHost(HostConfig{Name: "b", Machine: m, Addr: netip.MustParsePrefix("198.18.0.1/24"),
		Addr6: netip.MustParsePrefix("2001:2::1/64"),
		MAC:   tcpip.LinkAddress("\x02\x00\x00\x00\x00\x01"), NIC: w.B, Seeded: seed + 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Stop(); a.Close(); b.Close() })
	return m, a, b, log
}

// TestIPv6BulkTransfer: TCP over IPv6 between two stacks on an ideal cable.
// The SYNs offer an MSS of 1440 (1460 over IPv4). gVisor keeps room for 40
// bytes of TCP options in every segment, so its full data frame is 1486
// bytes over either family and carries 1400 bytes of data over IPv6 where
// IPv4 carries 1420: 20 bytes less, the IPv6 header's 40 against IPv4's 20.
// The goodput limit on the wire (1510 byte times a frame with FCS, preamble
// and gap) falls from 940.4 to 927.2 Mbit/s. The same hosts' IPv4 SYN offers
// 1460.
func TestIPv6BulkTransfer(t *testing.T) {
	const total = 20 << 20
	m, a, b, log := pair6(t, 1)
	r := transfer(t, m, a, b, "[2001:2::1]:5201", total)
	el, local, remote, info := r.el, r.local, r.remote, r.mss
	mbps := float64(total) * 8 / el.Seconds() / 1e6
	data := log.lens[1486]
	t.Logf("IPv6: %d bytes in %.6f s = %.1f Mbit/s; %d full frames of 1486 bytes; frames by type %v; SYN MSS %v; %s -> %s; tcp_info MSS %d",
		total, el.Seconds(), mbps, data, log.byType, log.synMSS, local, remote, info)
	if mbps < 915 || mbps > 927.2 {
		t.Errorf("goodput %.1f Mbit/s outside 915..927.2 (IPv6's limit)", mbps)
	}
	// 1400 data bytes a frame; each 128 KiB write ends in a shorter one
	// (gVisor does not coalesce writes here): 93 full frames a write.
	if writes, want := total/(128<<10), (128<<10)/1400; data != writes*want || log.lens[14+40+32+(128<<10)-want*1400] != writes {
		t.Errorf("IPv6 frames by length %v, want %d of 1486 bytes (1400 data bytes each) and %d shorter", log.lens, writes*want, writes)
	}
	if len(log.synMSS) != 1 || log.synMSS[0] != 1440 {
		t.Errorf("the SYN's MSS options %v, want [1440]", log.synMSS)
	}
	if log.byType[0x0800] != 0 || log.byType[0x0806] != 0 {
		t.Errorf("an IPv6 transfer sent IPv4 or ARP frames: %v", log.byType)
	}
	// The same hosts over IPv4: 1460.
	ln, err := b.Listen(5202)
	if err != nil {
		t.Fatal(err)
	}
	m.Go("accept", func() { _, _ = ln.Accept() })
	dial := m.Go("dial v4", func() {
		if c, err := a.Dial(t.Context(), "198.18.0.1:5202"); err == nil {
			_ = c.Close()
		}
	})
	if err := m.Run(nil, dial.Done); err != nil {
		t.Fatal(err)
	}
	if len(log.syn4) != 1 || log.syn4[0] != 1460 {
		t.Errorf("the IPv4 SYN's MSS options %v, want [1460]", log.syn4)
	}
	if info != 1428 {
		t.Errorf("tcp_info MSS %d, want 1428", info)
	}
	if !strings.HasPrefix(local, "[2001:2::2]:") || !strings.HasPrefix(remote, "[2001:2::2]:") {
		t.Errorf("addresses %s -> %s, want the sender's 2001:2::2 on both ends", local, remote)
	}
}

// TestListenFamilies: a host with IPv6 listens dual-stack by default, IPv4
// or IPv6 only when asked; a host without IPv6 refuses IPv6 with a reason.
func TestListenFamilies(t *testing.T) {
	for _, tc := range []struct {
		network, dial string
		ok            bool
	}{
		{"tcp", "198.18.0.1:5201", true},
		{"tcp", "[2001:2::1]:5201", true},
		{"tcp6", "[2001:2::1]:5201", true},
		{"tcp6", "198.18.0.1:5201", false},
		{"tcp4", "198.18.0.1:5201", true},
		{"tcp4", "[2001:2::1]:5201", false},
	} {
		t.Run(tc.network+" "+tc.dial, func(t *testing.T) {
			m, a, b, _ := pair6(t, 2)
			ln, err := b.ListenNet(tc.network, 5201)
			if err != nil {
				t.Fatal(err)
			}
			var accepted net.Addr
			m.Go("server", func() {
				if c, err := ln.Accept(); err == nil {
					accepted = c.RemoteAddr()
				}
			})
			var derr error
			cl := m.Go("client", func() {
				var c net.Conn
				if c, derr = a.Dial(t.Context(), tc.dial); derr == nil {
					_ = c.Close()
				}
			})
			if err := m.Run(nil, func() bool { return cl.Done() && (derr != nil || accepted != nil) }); err != nil {
				t.Fatal(err)
			}
			if (derr == nil) != tc.ok {
				t.Fatalf("dial %s to a %s listener: %v, want success %v", tc.dial, tc.network, derr, tc.ok)
			}
			if tc.ok {
				ip, _ := netip.ParseAddrPort(accepted.String())
				if want := map[bool]string{true: "2001:2::2", false: "198.18.0.2"}[strings.HasPrefix(tc.dial, "[")]; ip.Addr().Unmap().String() != want {
					t.Fatalf("accepted from %v, want %s", accepted, want)
				}
			}
		})
	}
	m := emu.NewMachine(1)
	w := NewIdealWire(m, 1000, 50*emu.Microsecond, 256)
	h, err := NewHost(HostConfig{Name: "v4", Machine: m, Addr: netip.MustParsePrefix("198.18.0.2/24"), NIC: w.A})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.ListenNet("tcp6", 5201); err == nil || !strings.Contains(err.Error(), "host v4 has no IPv6 address") {
		t.Fatalf("tcp6 on an IPv4-only host: %v", err)
	}
	if _, err := h.DialUDP(t.Context(), 0, "[2001:2::1]:5201"); err == nil || !strings.Contains(err.Error(), "no IPv6 address") {
		t.Fatalf("IPv6 UDP on an IPv4-only host: %v", err)
	}
}

// TestIPv6UDP: a datagram of 1452 bytes, the largest a 1500-byte MTU carries
// over IPv6 (1472 over IPv4), crosses in a 1514-byte frame; the dual-stack
// server socket answers IPv6 and IPv4 senders alike.
func TestIPv6UDP(t *testing.T) {
	m, a, b, log := pair6(t, 3)
	srv, err := b.ListenUDP(5201)
	if err != nil {
		t.Fatal(err)
	}
	m.Go("echo", func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := srv.ReadFrom(buf)
			if err != nil {
				return
			}
			if _, err := srv.WriteTo(buf[:n], from); err != nil {
				t.Error(err)
				return
			}
		}
	})
	got := map[string]int{}
	cl := m.Go("client", func() {
		for _, to := range []string{"[2001:2::1]:5201", "198.18.0.1:5201"} {
			u, err := a.DialUDP(t.Context(), 0, to)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := u.Write(make([]byte, 1452)); err != nil {
				t.Error(err)
				return
			}
			buf := make([]byte, 2048)
			_ = u.SetReadDeadline(NewClock(m).Now().Add(emu.Second.Duration()))
			n, err := u.Read(buf)
			if err != nil {
				t.Error(err)
				return
			}
			got[to] = n
			_ = u.Close()
		}
	})
	if err := m.Run(nil, func() bool { return cl.Done() }); err != nil {
		t.Fatal(err)
	}
	if got["[2001:2::1]:5201"] != 1452 || got["198.18.0.1:5201"] != 1452 {
		t.Fatalf("echoed %v, want 1452 bytes back from each address", got)
	}
	if log.lens[1514] != 1 {
		t.Fatalf("IPv6 frames by length %v, want one of 1514 (14+40+8+1452)", log.lens)
	}
	if _, err := srv.WriteTo(nil, &net.TCPAddr{}); err == nil {
		t.Fatal("WriteTo a TCP address succeeded")
	}
}

// TestAddr6Checked: a host takes only a global unicast IPv6 address with
// room for a peer; anything else is refused with a reason, no stack built.
func TestAddr6Checked(t *testing.T) {
	for _, a := range []string{"198.18.0.9/24", "::ffff:198.18.0.9/120", "fe80::2/64", "ff02::1/64", "::1/128", "2001:2::2/127"} {
		m := emu.NewMachine(1)
		w := NewIdealWire(m, 1000, 50*emu.Microsecond, 256)
		_, err := NewHost(HostConfig{Name: "h", Machine: m, Addr: netip.MustParsePrefix("198.18.0.2/24"),
			Addr6: netip.MustParsePrefix(a), NIC: w.A})
		if err == nil || !strings.Contains(err.Error(), "not a global unicast IPv6 address") {
			t.Errorf("Addr6 %s: %v", a, err)
		}
	}
}
