package netstack

import (
	"fmt"
	"math"
	"math/rand"
	"net/netip"
	"sync"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
	"mesonemu/netstack/tcpseg"
)

// The lossy link: the in-process counterpart of tools/lossyrelay,
// which measured Linux's own TCP on this machine. Frames from the sender are
// lost with a probability that scales with their length (loss is that of a
// full 1518-byte frame), the way the relay and the RGMII wire lose them; the
// ACK direction loses nothing. Both ends are hosts as NewHost builds them:
// the sender the board's TCP, the receiver the PC's (with Linux's delayed
// ACKs), on an ideal 1 Gbit/s cable with a fixed one-way delay.

// lossyLink is one run's configuration.
type lossyLink struct {
	loss   float64       // per full 1518-byte frame
	oneWay emu.Time      // each direction's propagation delay
	dur    time.Duration // of the bulk transfer, virtual
	cc     string
	seed   int64
}

// lossyResult is what a run measured, in the units docs/linux-k-grid.sh prints.
type lossyResult struct {
	mbps        float64 // goodput at the receiver over dur
	retrans     uint64
	srttMicros  float64 // time-weighted mean of the link-layer srtt
	frameLoss   float64 // measured: dropped / sent data frames
	lost        uint64  // data frames dropped
	timeouts    uint64
	tlps        uint64 // recoveries a tail loss probe set off
	sackRecover uint64
	maxCwnd     uint32 // segments
}

// K is Mbit/s x srtt(ms) x sqrt(loss): for a loss-limited flow it depends on
// neither the loss nor the round trip (Mathis), so it compares TCPs.
func (r lossyResult) K() float64 {
	return r.mbps * r.srttMicros / 1000 * math.Sqrt(r.frameLoss)
}

func (r lossyResult) String() string {
	return fmt.Sprintf("%.0f Mbit/s, %d retr, srtt %.0f us, loss %.3f %%, K %.1f; timeouts %d, TLPs %d, SACK recoveries %d, max cwnd %d",
		r.mbps, r.retrans, r.srttMicros, 100*r.frameLoss, r.K(), r.timeouts, r.tlps, r.sackRecover, r.maxCwnd)
}

// dropper loses frames on their way into a card, as a receiving MAC drops
// one with a bad FCS: each is counted, dropped or passed.
type dropper struct {
	FrameNIC
	loss            float64
	rng             *rand.Rand
	mu              sync.Mutex
	dataSent, lost  uint64 // data frames (the measured loss)
	dropped, passed uint64
}

// SendLocked passes the PC's delayed ACKs to the wire (link.LockedSender).
func (d *dropper) SendLocked(frame []byte) error { return d.FrameNIC.(*IdealPort).sendLocked(frame) }

func (d *dropper) SetReceiver(fn func([]byte)) {
	d.FrameNIC.SetReceiver(func(b []byte) {
		d.mu.Lock()
		drop := d.rng.Float64() < d.loss*float64(len(b)+4)/1518
		data := len(b) >= 100 // not an ACK (66 bytes)
		if data {
			d.dataSent++
		}
		if drop {
			d.dropped++
			if data {
				d.lost++
			}
		} else {
			d.passed++
		}
		d.mu.Unlock()
		if !drop {
			fn(b)
		}
	})
}

// rttMeter is the sender's srtt as Linux's tcp_clean_rtx_queue takes it: on
// each ACK that advances, from the oldest newly acknowledged segment unless
// that one was retransmitted (Karn), smoothed by 1/8; microsecond resolution,
// where gVisor's own comes from millisecond timestamps. mean is its average
// over time.
type rttMeter struct {
	FrameNIC
	m        *emu.Machine
	mu       sync.Mutex
	sent     []rttMark // in sequence order
	nxt, una uint32
	started  bool
	srtt     emu.Time
	from     emu.Time // start of the measured interval
	last     emu.Time // when srtt last changed
	area     float64  // integral of srtt over time since from
}

type rttMark struct {
	end    uint32
	at     emu.Time
	resent bool
}

func (r *rttMeter) Transmit(frame []byte) error {
	if seg, ok := tcpseg.Parse(frame); ok && seg.Payload > 0 {
		r.mu.Lock()
		end := seg.Seq + uint32(seg.Payload)
		switch {
		case !r.started:
			r.started, r.una, r.nxt = true, seg.Seq, end
			r.sent = append(r.sent, rttMark{end: end, at: r.m.Now()})
		case tcpseg.SeqAfter(end, r.nxt):
			r.nxt = end
			r.sent = append(r.sent, rttMark{end: end, at: r.m.Now()})
		default: // a retransmission: its marks give no sample
			for i := range r.sent {
				if tcpseg.SeqAfter(r.sent[i].end, seg.Seq) && !tcpseg.SeqAfter(r.sent[i].end, end) {
					r.sent[i].resent = true
				}
			}
		}
		r.mu.Unlock()
	}
	return r.FrameNIC.Transmit(frame)
}

func (r *rttMeter) SetReceiver(fn func([]byte)) {
	r.FrameNIC.SetReceiver(func(b []byte) {
		if seg, ok := tcpseg.Parse(b); ok && seg.HasACK {
			r.ack(seg.Ack)
		}
		fn(b)
	})
}

func (r *rttMeter) ack(ack uint32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || !tcpseg.SeqAfter(ack, r.una) || tcpseg.SeqAfter(ack, r.nxt) {
		return
	}
	r.una = ack
	n := 0
	for n < len(r.sent) && !tcpseg.SeqAfter(r.sent[n].end, ack) {
		n++
	}
	if n == 0 {
		return
	}
	if !r.sent[0].resent {
		now := r.m.Now()
		rtt := now - r.sent[0].at
		r.accumulate(now)
		if r.srtt == 0 {
			r.srtt = rtt
		} else {
			r.srtt += (rtt - r.srtt) / 8
		}
	}
	r.sent = r.sent[n:]
}

// accumulate adds srtt's time since the last change (mu held).
func (r *rttMeter) accumulate(now emu.Time) {
	if r.from > 0 && now > r.last {
		r.area += float64(r.srtt) * float64(now-max(r.last, r.from))
	}
	r.last = now
}

// startMean starts the averaging interval.
func (r *rttMeter) startMean(at emu.Time) {
	r.mu.Lock()
	r.from, r.last, r.area = at, at, 0
	r.mu.Unlock()
}

// mean is srtt's average since startMean, in microseconds.
func (r *rttMeter) mean(until emu.Time) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.accumulate(until)
	if until <= r.from {
		return 0
	}
	return r.area / float64(until-r.from) / float64(emu.Microsecond)
}

// run sends from the board's TCP to the PC's for l.dur of virtual time.
func (l lossyLink) run(t testing.TB) lossyResult {
	t.Helper()
	m := emu.NewMachine(uint64(l.seed))
	w := NewIdealWire(m, 1000, l.oneWay, 256)
	meter := &rttMeter{FrameNIC: w.A, m: m}
	drop := &dropper{FrameNIC: w.B, loss: l.loss, rng: rand.New(rand.NewSource(l.seed))}
	a, err := NewHost(HostConfig{Name: "board", Machine: m, Addr: netip.MustParsePrefix("198.18.0.2/24"),
		MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x02"), NIC: meter, Seeded: l.seed, CC: l.cc})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewHost(HostConfig{Name: "pc", Machine: m, Addr: netip.MustParsePrefix("198.18.0.1/24"),
		MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x01"), NIC: drop, Seeded: l.seed + 1, CC: l.cc,
		DelayedAcks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { m.Stop(); a.Close(); b.Close() }()
	ln, err := b.Listen(5201)
	if err != nil {
		t.Fatal(err)
	}
	var (
		res        lossyResult
		start, end emu.Time
		got        int64
	)
	recv := m.Go("receiver", func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 128<<10)
		for {
			n, err := c.Read(buf)
			if end > 0 && m.Now() <= end {
				got += int64(n)
			}
			if err != nil {
				return
			}
		}
	})
	send := m.Go("sender", func() {
		c, err := a.Dial(t.Context(), "198.18.0.1:5201")
		if err != nil {
			t.Error(err)
			return
		}
		buf := make([]byte, 128<<10)
		start = m.Now()
		end = start + emu.Time(l.dur)
		meter.startMean(start)
		for m.Now() < end {
			if _, err := c.Write(buf); err != nil {
				t.Error(err)
				return
			}
			if cw := c.(*Conn).Info().SndCwnd; cw > res.maxCwnd {
				res.maxCwnd = cw
			}
		}
		res.srttMicros = meter.mean(m.Now())
		res.retrans = c.(*Conn).Retransmits()
		_ = c.Close()
	})
	if err := m.Run(nil, func() bool { return recv.Done() && send.Done() }); err != nil {
		t.Fatal(err)
	}
	st := a.Stack.Stats().TCP
	res.timeouts, res.tlps, res.sackRecover = st.Timeouts.Value(), st.TLPRecovery.Value(), st.SACKRecovery.Value()
	res.mbps = float64(got) * 8 / time.Duration(end-start).Seconds() / 1e6
	drop.mu.Lock()
	if drop.dataSent > 0 {
		res.frameLoss = float64(drop.lost) / float64(drop.dataSent)
	}
	res.lost = drop.lost
	drop.mu.Unlock()
	return res
}

// BenchmarkLossyLink runs the board's TCP over the lossy link on the grid
// docs/linux-k-grid.sh measured Linux on: losses 0.1, 0.388 and 1 % per full frame,
// one-way delays of 150, 350 and 650 us (round trips of ~0.35, ~0.75 and
// ~1.4 ms under load), 10 virtual seconds each. Runs are deterministic, so
// -benchtime 1x is enough; docs/tcp.md has the numbers beside Linux's:
//
//	go test -run '^$' -bench LossyLink -benchtime 1x -timeout 0 ./netstack/
func BenchmarkLossyLink(b *testing.B) {
	for _, cc := range CongestionControls {
		for _, loss := range []float64{0.001, 0.00388, 0.01} {
			for _, owd := range []emu.Time{150 * emu.Microsecond, 350 * emu.Microsecond, 650 * emu.Microsecond} {
				name := fmt.Sprintf("cc=%s/loss=%.3f%%/owd=%dus", cc, 100*loss, owd/emu.Microsecond)
				b.Run(name, func(b *testing.B) {
					var r lossyResult
					for range b.N {
						r = lossyLink{loss: loss, oneWay: owd, dur: 10 * time.Second, cc: cc, seed: 1}.run(b)
					}
					b.ReportMetric(r.mbps, "Mbit/s")
					b.ReportMetric(float64(r.retrans), "retr")
					b.ReportMetric(r.srttMicros, "srtt-us")
					b.ReportMetric(r.K(), "K")
					b.ReportMetric(float64(r.timeouts), "RTOs")
					b.Logf("%s: %v", name, r)
				})
			}
		}
	}
}

// TestLossyLinkKNearLinux: at 0.388 % loss and round trips of 0.75 and
// 1.4 ms, K of the board's TCP lies within 20 % of the range Linux's gave
// on this machine (docs/linux-k-grid.sh over tools/lossyrelay: CUBIC 9.6-13.3 over
// srtt 0.4-1.2 ms), with no retransmission timeout. The 0.35 ms point
// fails without third_party/patches/gvisor/0001 (gVisor's srtt floored at
// 1 ms: K 7.6; docs/tcp.md). Reno is held to Linux's own Reno at this loss
// (12.1-13.5); it fails without 0005 (every other increase free: K 20.9).
func TestLossyLinkKNearLinux(t *testing.T) {
	for _, c := range []struct {
		cc         string
		oneWay     emu.Time
		minK, maxK float64
	}{
		{"cubic", 150 * emu.Microsecond, 0.8 * 9.6, 1.2 * 13.3},
		{"cubic", 350 * emu.Microsecond, 0.8 * 9.6, 1.2 * 13.3},
		{"cubic", 650 * emu.Microsecond, 0.8 * 9.6, 1.2 * 13.3},
		{"reno", 150 * emu.Microsecond, 0.8 * 12.1, 1.2 * 13.5},
	} {
		r := lossyLink{loss: 0.00388, oneWay: c.oneWay, dur: 4 * time.Second, cc: c.cc, seed: 1}.run(t)
		t.Logf("%s, one way %v: %v", c.cc, time.Duration(c.oneWay), r)
		if k := r.K(); k < c.minK || k > c.maxK || r.timeouts != 0 {
			t.Errorf("%s, one way %v: K %.1f with %d timeouts; want %.1f-%.1f and none",
				c.cc, time.Duration(c.oneWay), k, r.timeouts, c.minK, c.maxK)
		}
	}
}

// TestRACKKeepsABurstsOrder: gVisor's RACK (on, as in Linux) retransmits
// what the wire lost and little else. The virtual clock stands still while a
// stack sends a burst; without the stack clock's distinct readings RACK took
// the burst's later segments as sent before the one just acknowledged and
// "recovered" them: 964 retransmits for 34 lost frames (Reno, this run).
func TestRACKKeepsABurstsOrder(t *testing.T) {
	for _, cc := range CongestionControls {
		r := lossyLink{loss: 0.001, oneWay: 150 * emu.Microsecond, dur: time.Second, cc: cc, seed: 1}.run(t)
		if r.lost == 0 || r.retrans > r.lost+r.lost/10+2 || r.timeouts != 0 {
			t.Errorf("%s: %v; %d frames lost: want about as many retransmits and no timeout", cc, r, r.lost)
		}
	}
}
