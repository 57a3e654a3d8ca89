package netstack

import (
	"io"
	"net/netip"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
)

// pair builds two gVisor hosts on an ideal 1 Gbit/s cable, on one engine.
func pair(t testing.TB, seed int64, wrapA func(FrameNIC) FrameNIC) (*emu.Machine, *Host, *Host) {
	t.Helper()
	m := emu.NewMachine(1)
	w := NewIdealWire(m, 1000, 50*emu.Microsecond, 256)
	var nicA FrameNIC = w.A
	if wrapA != nil {
		nicA = wrapA(w.A)
	}
	a, err := NewHost(HostConfig{Name: "a", Machine: m, Addr: netip.MustParsePrefix("198.18.0.2/24"),
		MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x02"), NIC: nicA, Seeded: seed})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewHost(HostConfig{Name: "b", Machine: m, Addr: netip.MustParsePrefix("198.18.0.1/24"),
		MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x01"), NIC: w.B, Seeded: seed + 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Stop(); a.Close(); b.Close() })
	return m, a, b
}

// bulk sends total bytes from a to b, both programs engine tasks, and returns
// the virtual time it took and the sender's retransmits.
func bulk(t testing.TB, seed int64, total int) (emu.Time, uint64) {
	m, a, b := pair(t, seed, nil)
	r := transfer(t, m, a, b, "198.18.0.1:5201", total)
	return r.el, r.retrans
}

// transferResult is what one bulk transfer showed.
type transferResult struct {
	el            emu.Time // from the first write to the last byte's arrival
	retrans       uint64
	local, remote string // the sender's address as the sender and the receiver saw it
	mss           uint32 // the sender's tcp_info MSS
}

// transfer sends total bytes from a to b's port 5201 at addr, in 128 KiB
// writes.
func transfer(t testing.TB, m *emu.Machine, a, b *Host, addr string, total int) transferResult {
	t.Helper()
	ln, err := b.Listen(5201)
	if err != nil {
		t.Fatal(err)
	}
	var r transferResult
	var got int64 = -1
	recv := m.Go("receiver", func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		r.remote = c.RemoteAddr().String()
		got, _ = io.Copy(io.Discard, c)
	})
	var start emu.Time
	send := m.Go("sender", func() {
		c, err := a.Dial(t.Context(), addr)
		if err != nil {
			t.Error(err)
			return
		}
		r.local = c.LocalAddr().String()
		buf := make([]byte, 128<<10)
		start = m.Now()
		for sent := 0; sent < total; sent += len(buf) {
			if _, err := c.Write(buf); err != nil {
				t.Error(err)
				return
			}
		}
		r.retrans = c.(*Conn).Retransmits()
		if ti, ok := TCPInfo(c); ok {
			r.mss = ti.Snd_mss
		}
		_ = c.Close()
	})
	if err := m.Run(nil, func() bool { return recv.Done() && send.Done() }); err != nil {
		t.Fatal(err)
	}
	r.el = m.Now() - start
	if got != int64(total) {
		t.Fatalf("received %d bytes, want %d", got, total)
	}
	return r
}

func TestIdealWireBulkTransferNearLineRate(t *testing.T) {
	const total = 20 << 20
	el, retrans := bulk(t, 1, total)
	mbps := float64(total) * 8 / el.Seconds() / 1e6
	t.Logf("ideal wire: %d bytes in %.6f virtual s = %.1f Mbit/s, retransmits %d", total, el.Seconds(), mbps, retrans)
	// The TCP goodput limit of 1 Gbit/s Ethernet with a 1500-byte MTU and
	// timestamps is 941.5 Mbit/s; slow start costs a little on a short transfer.
	if mbps < 930 || mbps > 941.5 {
		t.Fatalf("goodput %.1f Mbit/s outside 930..941.5", mbps)
	}
}

// TestBulkTransferRepeatsExactly: two stacks on the engine are a function of
// the seed: the same transfer takes the same virtual nanoseconds every time.
func TestBulkTransferRepeatsExactly(t *testing.T) {
	first, _ := bulk(t, 3, 4<<20)
	for range 3 {
		if el, _ := bulk(t, 3, 4<<20); el != first {
			t.Fatalf("the same transfer took %d ns, then %d ns", first, el)
		}
	}
}

// BenchmarkBulkTransfer is the engine's cost per full-size frame for two
// stacks on an ideal cable (barriers, timers, tasks, no hardware models).
func BenchmarkBulkTransfer(b *testing.B) {
	const total = 8 << 20
	for range b.N {
		bulk(b, 1, total)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*total/1448), "ns/data-frame")
}
