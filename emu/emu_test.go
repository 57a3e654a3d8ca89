package emu

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type regs struct{ v [4]uint32 }

func (r *regs) Name() string                  { return "blk" }
func (r *regs) ReadReg(off uint32) uint32     { return r.v[(off/4)%4] }
func (r *regs) WriteReg(off uint32, v uint32) { r.v[(off/4)%4] = v }
func (r *regs) RegName(off uint32) string     { return []string{"A", "B", "C", "D"}[(off/4)%4] }

func TestEventsRunInTimeThenFIFOOrder(t *testing.T) {
	m := NewMachine(1)
	var got []string
	m.Lock()
	m.At(30, func() { got = append(got, "c30") })
	m.At(10, func() { got = append(got, "a10") })
	m.At(10, func() { got = append(got, "b10") })
	e := m.At(20, func() { got = append(got, "cancelled") })
	m.Cancel(e)
	m.Unlock()
	m.RunUntil(25)
	if strings.Join(got, ",") != "a10,b10" || m.VirtualNow() != 25 {
		t.Fatalf("got %v at %d", got, m.VirtualNow())
	}
	for m.Step() {
	}
	if strings.Join(got, ",") != "a10,b10,c30" || m.VirtualNow() != 30 {
		t.Fatalf("got %v at %d", got, m.VirtualNow())
	}
}

// TestEventQueueOrderUnderChurn schedules, moves and cancels many events at
// random and checks they run in (time, scheduling order), each at most once.
func TestEventQueueOrderUnderChurn(t *testing.T) {
	m := NewMachine(7)
	r := m.Rand("churn")
	type ran struct {
		at  Time
		seq uint64
	}
	var got []ran
	events := make([]*Event, 200)
	m.Lock()
	for i := range events {
		e := m.NewEvent(nil)
		e.fn = func() { got = append(got, ran{m.Now(), e.seq}) }
		events[i] = e
	}
	want := map[*Event]bool{}
	for range 5000 {
		e := events[r.IntN(len(events))]
		switch r.IntN(3) {
		case 0, 1:
			m.Schedule(e, Time(r.IntN(1000)))
			want[e] = true
		case 2:
			m.Cancel(e)
			delete(want, e)
		}
	}
	m.Unlock()
	for m.Step() {
	}
	if len(got) != len(want) {
		t.Fatalf("%d events ran, %d were pending", len(got), len(want))
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if a.at > b.at || a.at == b.at && a.seq > b.seq {
			t.Fatalf("event %d (%d, seq %d) ran before (%d, seq %d)", i, a.at, a.seq, b.at, b.seq)
		}
	}
}

// TestEventRequeuedByItself: an event that queues itself again from its own
// action (a MAC walking a ring) runs on schedule, and the clock stops where it
// was asked to, not at the re-queued time.
func TestEventRequeuedByItself(t *testing.T) {
	m := NewMachine(1)
	var runs []Time
	var e *Event
	e = m.NewEvent(func() {
		runs = append(runs, m.Now())
		m.Schedule(e, m.Now()+10)
	})
	m.Lock()
	m.Schedule(e, 0)
	m.Unlock()
	m.RunUntil(35)
	if len(runs) != 4 || runs[3] != 30 || m.VirtualNow() != 35 {
		t.Fatalf("runs %v, clock %d; want 0,10,20,30 and 35", runs, m.VirtualNow())
	}
}

func TestBusMapsDevicesRAMAndReportsErrors(t *testing.T) {
	m := NewMachine(1)
	b := m.Bus()
	if _, err := b.AddRAM(0, 4096); err != nil {
		t.Fatal(err)
	}
	dev := &regs{}
	if err := b.Map(0xc1108140, 0x10, dev); err != nil {
		t.Fatal(err)
	}
	if err := b.Map(0xc1108148, 4, dev); err == nil {
		t.Fatal("overlapping map accepted")
	}
	var trace bytes.Buffer
	b.SetTrace(&trace)
	if err := b.Write32(0xc1108144, 0x74c1); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Read32(0xc1108144); err != nil || v != 0x74c1 {
		t.Fatalf("read back %#x, %v", v, err)
	}
	want := "W 0xc1108144 blk.B = 0x000074c1\nR 0xc1108144 blk.B = 0x000074c1\n"
	if trace.String() != want {
		t.Fatalf("trace %q, want %q", trace.String(), want)
	}
	if err := b.Write32(0x10, 0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	if v, _ := b.Read32(0x10); v != 0xdeadbeef {
		t.Fatalf("RAM read %#x", v)
	}
	if !strings.Contains(trace.String(), "blk.B") || strings.Count(trace.String(), "\n") != 2 {
		t.Fatalf("RAM accesses must not be traced: %q", trace.String())
	}
	cases := []struct {
		name string
		err  error
	}{
		{"unmapped read", func() error { _, err := b.Read32(0x20000000); return err }()},
		{"unmapped write", b.Write32(0xfffffffc, 1)},
		{"unaligned", b.Write32(0xc1108142, 1)},
		{"RAM overrun", b.WriteRAM(4094, make([]byte, 4))},
		{"RAM wrap", b.ReadRAM(0xffffffff, make([]byte, 2))},
	}
	for _, c := range cases {
		var be *BusError
		if !errors.As(c.err, &be) {
			t.Errorf("%s: got %v, want a *BusError", c.name, c.err)
		}
	}
	if p, ok := b.RAM().Slice(4090, 10); ok || p != nil {
		t.Fatal("DMA slice past the end of RAM allowed")
	}
}

func TestStuckInterruptIsDisabledNotSpun(t *testing.T) {
	m := NewMachine(1)
	q := m.NewIRQ("macirq")
	calls := 0
	q.Handle(func() { calls++ }) // never clears the cause
	m.Lock()
	q.Set(true)
	m.Unlock()
	for i := 0; i < 2*stuckLimit && m.DeliverInterrupts(); i++ {
	}
	if calls != stuckLimit || !q.Disabled() {
		t.Fatalf("handler ran %d times (disabled %v), want %d then disabled", calls, q.Disabled(), stuckLimit)
	}
}

func TestGuestTimerAndDelayRunInVirtualTime(t *testing.T) {
	m := NewMachine(1)
	var firedAt Time = -1
	m.GuestAfterFunc(5*Millisecond, func() { firedAt = m.VirtualNow() })
	stopped := m.GuestAfterFunc(6*Millisecond, func() { t.Error("stopped timer fired") })
	if !stopped.Stop() {
		t.Fatal("Stop on a pending timer returned false")
	}
	m.GuestDelay(10 * Millisecond)
	if firedAt != 5*Millisecond || m.VirtualNow() != 10*Millisecond {
		t.Fatalf("timer fired at %d, clock %d", firedAt, m.VirtualNow())
	}
}

func TestRandStreamsAreSeededAndIndependent(t *testing.T) {
	a, b := NewMachine(7).Rand("wire.tx"), NewMachine(7).Rand("wire.tx")
	c := NewMachine(7).Rand("wire.rx")
	d := NewMachine(8).Rand("wire.tx")
	x, y, z, w := a.Uint64(), b.Uint64(), c.Uint64(), d.Uint64()
	if x != y || x == z || x == w {
		t.Fatalf("streams: same %x %x, other name %x, other seed %x", x, y, z, w)
	}
}
