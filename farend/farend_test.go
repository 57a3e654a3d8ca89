package farend

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"mesonemu/emu"
	"mesonemu/ether"
)

func newNIC(t testing.TB, cfg Config) (*emu.Machine, *NIC) {
	t.Helper()
	m := emu.NewMachine(1)
	n, err := New(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, n
}

// frameOf is a frame of n bytes (without FCS) with recognisable content.
func frameOf(n int, fill byte) []byte {
	f := make([]byte, n)
	for i := range f {
		f[i] = fill + byte(i)
	}
	return f
}

func TestReceiveClassifiesAndCounts(t *testing.T) {
	good := ether.AppendFCS(frameOf(1514, 1))
	badCRC := bytes.Clone(good)
	badCRC[100] ^= 0x08
	tests := []struct {
		name  string
		frame []byte
		align bool
		want  DropCause
	}{
		{"full frame", good, false, Accepted},
		{"minimum frame", ether.AppendFCS(frameOf(60, 2)), false, Accepted},
		{"VLAN maximum 1522", ether.AppendFCS(frameOf(1518, 3)), false, Accepted},
		{"bit error", badCRC, false, DropCRC},
		{"lost SFD, good FCS", good, true, DropAlign},
		{"runt 63 bytes", ether.AppendFCS(frameOf(59, 4)), false, DropRunt},
		{"runt with bad FCS", frameOf(20, 5), false, DropRunt},
		{"empty", nil, false, DropRunt},
		{"giant 1523", ether.AppendFCS(frameOf(1519, 6)), false, DropGiant},
	}
	_, n := newNIC(t, Config{})
	var got [][]byte
	n.SetConsumer(func(f []byte) { got = append(got, bytes.Clone(f)) })
	for _, tc := range tests {
		if c := n.Receive(tc.frame, tc.align); c != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, c, tc.want)
		}
	}
	if len(got) != 3 || !bytes.Equal(got[0], good[:1514]) || len(got[1]) != 60 || len(got[2]) != 1518 {
		t.Fatalf("consumer got %d frames", len(got))
	}
	s := n.StatsLocked()
	want := Stats{RxPackets: 3, RxBytes: 1514 + 60 + 1518, RxCRCErrors: 1, RxAlignErrors: 1, RxShortLengthErrors: 3, RxLongLengthErrors: 1}
	if s != want {
		t.Errorf("stats %+v\nwant  %+v", s, want)
	}
	if s.RxFrames() != uint64(len(tests)) {
		t.Errorf("conservation: %d frames accounted, %d received", s.RxFrames(), len(tests))
	}
}

func TestCountersHaveStableEthtoolNames(t *testing.T) {
	s := Stats{RxPackets: 1, RxBytes: 2, RxCRCErrors: 3, RxAlignErrors: 4, RxShortLengthErrors: 5, RxLongLengthErrors: 6,
		RxMissedErrors: 7, RxDropped: 8, TxPackets: 9, TxBytes: 10, TxDropped: 11, TxErrors: 12, TxCarrierErrors: 13}
	want := []Counter{
		{"rx_packets", 1}, {"rx_bytes", 2}, {"rx_crc_errors", 3}, {"rx_align_errors", 4},
		{"rx_length_errors", 11}, {"rx_short_length_errors", 5}, {"rx_long_length_errors", 6},
		{"rx_missed_errors", 7}, {"rx_dropped", 8}, {"tx_packets", 9}, {"tx_bytes", 10},
		{"tx_dropped", 11}, {"tx_errors", 12}, {"tx_carrier_errors", 13},
	}
	got := s.Counters()
	if len(got) != len(want) {
		t.Fatalf("%d counters, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("counter %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestNoConsumerDropsAndCounts(t *testing.T) {
	_, n := newNIC(t, Config{})
	if c := n.Receive(ether.AppendFCS(frameOf(100, 0)), false); c != DropNoConsumer || n.StatsLocked().RxDropped != 1 {
		t.Errorf("cause %v, stats %+v", c, n.StatsLocked())
	}
}

type delivery struct {
	at    emu.Time
	frame []byte
}

func TestTransmitSerialisesAtLineRate(t *testing.T) {
	tests := []struct {
		speed int
		sizes []int // frames from the stack, without FCS
		want  []emu.Time
	}{
		// 1514 + 4 FCS: last bit after (8 + 1518) * 8 = 12208 bit times; the next
		// frame starts 12 byte times later, 12304 after the first.
		{1000, []int{1514, 1514, 1514}, []emu.Time{12208, 24512, 36816}},
		{100, []int{1514, 1514}, []emu.Time{122080, 245120}},
		// A 42-byte ARP request is padded to 60 + FCS: (8 + 64) * 8 = 576 bits.
		{1000, []int{42, 42}, []emu.Time{576, 576 + 672}},
		{10, []int{42}, []emu.Time{57600}},
	}
	for _, tc := range tests {
		m, n := newNIC(t, Config{SpeedMbps: tc.speed})
		var got []delivery
		n.SetSink(func(f []byte) { got = append(got, delivery{m.Now(), f}) })
		for i, size := range tc.sizes {
			if err := n.Send(frameOf(size, byte(i))); err != nil {
				t.Fatal(err)
			}
		}
		m.RunUntil(emu.Second)
		if len(got) != len(tc.want) {
			t.Fatalf("%d Mbit/s: %d deliveries, want %d", tc.speed, len(got), len(tc.want))
		}
		for i, d := range got {
			wantLen := max(tc.sizes[i], 60) + 4
			if d.at != tc.want[i] || len(d.frame) != wantLen || !ether.CheckFCS(d.frame) {
				t.Errorf("%d Mbit/s frame %d: at %d len %d FCS ok %v; want at %d len %d",
					tc.speed, i, d.at, len(d.frame), ether.CheckFCS(d.frame), tc.want[i], wantLen)
			}
			if !bytes.Equal(d.frame[:tc.sizes[i]], frameOf(tc.sizes[i], byte(i))) {
				t.Errorf("frame %d content changed", i)
			}
		}
		s := n.Stats()
		var bytesSent uint64
		for _, size := range tc.sizes {
			bytesSent += uint64(size)
		}
		if s.TxPackets != uint64(len(tc.sizes)) || s.TxBytes != bytesSent || n.TxQueued() != 0 {
			t.Errorf("%d Mbit/s: stats %+v, queued %d", tc.speed, s, n.TxQueued())
		}
	}
}

func TestTransmitAfterIdleStartsNow(t *testing.T) {
	m, n := newNIC(t, Config{})
	var at []emu.Time
	n.SetSink(func([]byte) { at = append(at, m.Now()) })
	if err := n.Send(frameOf(1514, 0)); err != nil {
		t.Fatal(err)
	}
	m.RunUntil(100 * emu.Microsecond)
	if err := n.Send(frameOf(1514, 0)); err != nil {
		t.Fatal(err)
	}
	m.RunUntil(emu.Millisecond)
	if len(at) != 2 || at[0] != 12208 || at[1] != 100*emu.Microsecond+12208 {
		t.Errorf("deliveries at %v", at)
	}
}

func TestTransmitRefusals(t *testing.T) {
	m, n := newNIC(t, Config{TxQueueLen: 2})
	if err := n.Send(frameOf(100, 0)); !errors.Is(err, ErrNoCable) {
		t.Errorf("no sink: %v", err)
	}
	delivered := 0
	n.SetSink(func([]byte) { delivered++ })
	errs := []error{}
	for _, size := range []int{1514, 1514, 1514, 1519, 1518} {
		errs = append(errs, n.Send(frameOf(size, 0)))
	}
	want := []error{nil, nil, ErrTxQueueFull, ErrFrameTooLong, ErrTxQueueFull}
	for i := range want {
		if !errors.Is(errs[i], want[i]) {
			t.Errorf("send %d: %v, want %v", i, errs[i], want[i])
		}
	}
	m.Lock()
	if err := n.SetSpeed(0); err != nil {
		t.Fatal(err)
	}
	m.Unlock()
	if err := n.Send(frameOf(60, 0)); !errors.Is(err, ErrNoLink) {
		t.Errorf("link down: %v", err)
	}
	m.RunUntil(emu.Second)
	s := n.Stats()
	if delivered != 2 || s.TxPackets != 2 || s.TxDropped != 2 || s.TxErrors != 1 || s.TxCarrierErrors != 2 {
		t.Errorf("delivered %d, stats %+v", delivered, s)
	}
	if err := n.SetSpeed(2500); err == nil {
		t.Errorf("speed 2500 accepted")
	}
}

// TestRxDelayBatchesFrames: a 50 us throttle. The first frame finds no recent
// interrupt and goes at once; the next ones wait for the interrupt 50 us after
// it and go together; with two of them waiting the ring of 2 is full; the frame
// at 60 us waits for 100 us.
func TestRxDelayBatchesFrames(t *testing.T) {
	m, n := newNIC(t, Config{RxDelay: 50 * emu.Microsecond, RxRingSize: 2})
	var got []delivery
	n.SetConsumer(func(f []byte) { got = append(got, delivery{m.Now(), bytes.Clone(f)}) })
	frames := [][]byte{}
	for i := range 5 {
		frames = append(frames, ether.AppendFCS(frameOf(200, byte(i))))
	}
	receive := func(at emu.Time, f []byte) DropCause {
		m.RunUntil(at)
		m.Lock()
		defer m.Unlock()
		buf := bytes.Clone(f)
		c := n.Receive(buf, false)
		clear(buf) // the NIC must not keep the caller's buffer
		return c
	}
	causes := []DropCause{
		receive(0, frames[0]),
		receive(10*emu.Microsecond, frames[1]),
		receive(20*emu.Microsecond, frames[2]),
		receive(30*emu.Microsecond, frames[3]), // ring of 2 full
		receive(60*emu.Microsecond, frames[4]), // after the second interrupt
	}
	m.RunUntil(emu.Millisecond)
	want := []DropCause{Accepted, Accepted, Accepted, DropRingFull, Accepted}
	for i := range want {
		if causes[i] != want[i] {
			t.Errorf("frame %d: %v, want %v", i, causes[i], want[i])
		}
	}
	wantAt := []emu.Time{0, 50000, 50000, 100000}
	wantFrame := []int{0, 1, 2, 4}
	if len(got) != len(wantAt) {
		t.Fatalf("%d hand-overs, want %d", len(got), len(wantAt))
	}
	for i, d := range got {
		if d.at != wantAt[i] || !bytes.Equal(d.frame, frames[wantFrame[i]][:200]) {
			t.Errorf("hand-over %d at %d (want %d), frame match %v", i, d.at, wantAt[i], bytes.Equal(d.frame, frames[wantFrame[i]][:200]))
		}
	}
	if s := n.Stats(); s.RxPackets != 4 || s.RxMissedErrors != 1 || s.RxFrames() != 5 {
		t.Errorf("stats %+v", s)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", Config{}, true},
		{"100 Mbit/s jumbo", Config{SpeedMbps: 100, MaxFrameLen: 9220}, true},
		{"speed 2500", Config{SpeedMbps: 2500}, false},
		{"negative queue", Config{TxQueueLen: -1}, false},
		{"max below 64", Config{MaxFrameLen: 63}, false},
		{"max beyond jumbo", Config{MaxFrameLen: 1 << 20}, false},
		{"negative delay", Config{RxDelay: -1}, false},
		{"huge ring", Config{RxRingSize: 1 << 20}, false},
	}
	for _, tc := range tests {
		_, err := New(emu.NewMachine(1), tc.cfg)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := New(nil, Config{}); err == nil {
		t.Errorf("nil machine accepted")
	}
	_, n := newNIC(t, Config{})
	if c := n.Config(); c.SpeedMbps != 1000 || c.TxQueueLen != 1000 || c.MaxFrameLen != 1522 || c.RxRingSize != 256 || c.RxDelay != 0 {
		t.Errorf("defaults %+v", c)
	}
	if DropCause(99).String() != "unknown" || DropCRC.String() != "crc" {
		t.Errorf("cause names")
	}
}

// TestRxThrottleRate: frames every 77 us (a 150 Mbit/s stream of full frames)
// under igb's 192 us interval reach the stack in batches 192 us apart; a frame
// after a quiet 500 us goes at once.
func TestRxThrottleRate(t *testing.T) {
	tests := []struct {
		name     string
		delay    emu.Time
		arrivals []emu.Time
		wantAt   []emu.Time
	}{
		{"no moderation", 0, []emu.Time{0, 77, 154, 231}, []emu.Time{0, 77, 154, 231}},
		{"igb 192 us", 192, []emu.Time{0, 77, 154, 231, 308, 385, 462}, []emu.Time{0, 192, 192, 384, 384, 576, 576}},
		{"after a quiet line", 192, []emu.Time{0, 700}, []emu.Time{0, 700}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, n := newNIC(t, Config{RxDelay: tt.delay * emu.Microsecond})
			var got []emu.Time
			n.SetConsumer(func([]byte) { got = append(got, m.Now()/emu.Microsecond) })
			f := ether.AppendFCS(frameOf(1514, 1))
			for _, at := range tt.arrivals {
				m.RunUntil(at * emu.Microsecond)
				m.Lock()
				if c := n.Receive(bytes.Clone(f), false); c != Accepted {
					t.Fatalf("frame at %d us: %v", at, c)
				}
				m.Unlock()
			}
			m.RunUntil(emu.Second)
			if fmt.Sprint(got) != fmt.Sprint(tt.wantAt) {
				t.Fatalf("handed over at %v us, want %v", got, tt.wantAt)
			}
		})
	}
}
