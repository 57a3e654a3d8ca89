package tap

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/farend"
)

// fakePort is a TAP stand-in: Read hands out queued frames, Write records (or
// fails, or waits at a gate), Close wakes both.
type fakePort struct {
	in       chan []byte
	closed   chan struct{}
	once     sync.Once
	gate     chan struct{} // if non-nil, Write waits for a token
	inWrite  chan struct{} // signalled when Write starts waiting
	writeErr error

	mu      sync.Mutex
	written [][]byte
}

func newFakePort() *fakePort {
	return &fakePort{in: make(chan []byte, 64), closed: make(chan struct{}), inWrite: make(chan struct{}, 64)}
}

func (p *fakePort) Read(b []byte) (int, error) {
	select {
	case f := <-p.in:
		return copy(b, f), nil
	case <-p.closed:
		return 0, os.ErrClosed
	}
}

func (p *fakePort) Write(b []byte) (int, error) {
	if p.gate != nil {
		p.inWrite <- struct{}{}
		select {
		case <-p.gate:
		case <-p.closed:
			return 0, os.ErrClosed
		}
	}
	if p.writeErr != nil {
		return 0, p.writeErr
	}
	p.mu.Lock()
	p.written = append(p.written, append([]byte(nil), b...))
	p.mu.Unlock()
	return len(b), nil
}

func (p *fakePort) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *fakePort) frames() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.written...)
}

// rig is a machine with a far-end NIC whose cable ends in a recording sink.
type rig struct {
	m    *emu.Machine
	nic  *farend.NIC
	sink [][]byte
}

func newRig(t *testing.T, cfg farend.Config) *rig {
	t.Helper()
	// Host frames enter as events: the machine runs, in real time, as under Run.
	r := newStillRig(t, cfg, emu.WallPaced)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { _ = r.m.Run(stop, func() bool { return false }); close(done) }()
	t.Cleanup(func() { close(stop); <-done })
	return r
}

// newStillRig is a rig whose machine runs only when the test drives it.
func newStillRig(t *testing.T, cfg farend.Config, mode emu.ClockMode) *rig {
	t.Helper()
	r := &rig{m: emu.NewMachineClock(1, mode)}
	t.Cleanup(r.m.Stop)
	var err error
	if r.nic, err = farend.New(r.m, cfg); err != nil {
		t.Fatal(err)
	}
	r.m.Lock()
	r.nic.SetSink(func(f []byte) { r.sink = append(r.sink, f) })
	r.m.Unlock()
	return r
}

// receive puts a frame on the far end's receiver, as the wire would.
func (r *rig) receive(frame []byte) farend.DropCause {
	r.m.Lock()
	defer r.m.Unlock()
	return r.nic.Receive(ether.AppendFCS(append([]byte(nil), frame...)), false)
}

func frameOf(n int, fill byte) []byte {
	f := bytes.Repeat([]byte{fill}, n)
	if n >= 14 {
		copy(f, []byte{0x02, 0xad, 0xc1, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00})
	}
	return f
}

// waitUntil polls cond for up to 5 s (goroutines hand frames over).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBridgeHostToBoardBoundsFrames(t *testing.T) {
	sizes := []struct {
		n       int
		outcome string
	}{
		{0, "runt"}, {13, "runt"}, {14, "sent"}, {42, "sent"}, {60, "sent"},
		{1514, "sent"}, {1518, "sent"}, {1519, "long"}, {9000, "long"}, {readBufLen + 100, "long"},
	}
	r := newRig(t, farend.Config{})
	port := newFakePort()
	b := NewBridge(r.m, r.nic, port, BridgeConfig{})
	want := Counters{}
	for i, s := range sizes {
		port.in <- frameOf(s.n, byte(i))
		want.TapRead++
		switch s.outcome {
		case "runt":
			want.Runt++
		case "long":
			want.TooLong++
		default:
			want.SentToBoard++
		}
	}
	waitUntil(t, "all frames read", func() bool { return b.Counters().TapRead == want.TapRead })
	b.Close()
	if got := b.Counters(); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	// The sent frames cross the line in order, padded to 60 bytes, with FCS.
	// The machine's loop runs them in real time (the test must not drive
	// the machine beside it).
	var wantLens []int
	for _, s := range sizes {
		if s.outcome == "sent" {
			wantLens = append(wantLens, max(s.n, 60)+4)
		}
	}
	waitUntil(t, "the sent frames on the cable", func() bool {
		r.m.Lock()
		defer r.m.Unlock()
		return len(r.sink) >= len(wantLens)
	})
	r.m.Lock()
	defer r.m.Unlock()
	if len(r.sink) != len(wantLens) {
		t.Fatalf("cable got %d frames, want %d", len(r.sink), len(wantLens))
	}
	for i, f := range r.sink {
		if len(f) != wantLens[i] || !ether.CheckFCS(f) {
			t.Errorf("frame %d: %d bytes (want %d), FCS ok %v", i, len(f), wantLens[i], ether.CheckFCS(f))
		}
	}
}

func TestBridgeHostToBoardSendFailures(t *testing.T) {
	for _, tc := range []struct {
		name        string
		queue       int
		linkDown    bool
		frames      int
		sent, full  uint64
		sendErrors  uint64
		cableFrames int
	}{
		// All frames enter at virtual time 0 (the machine is still while
		// they are read). At 10 Mbit/s a full frame holds the line for
		// 1.2 ms: the first two fill the queue and the rest give up after
		// RetryFor (1 ms), before the first has left.
		{"queue full", 2, false, 5, 2, 3, 0, 2},
		{"no link", 0, true, 3, 0, 0, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newStillRig(t, farend.Config{TxQueueLen: tc.queue}, emu.Virtual)
			r.m.Lock()
			_ = r.nic.SetSpeed(map[bool]int{false: 10, true: 0}[tc.linkDown])
			r.m.Unlock()
			port := newFakePort()
			b := NewBridge(r.m, r.nic, port, BridgeConfig{RetryEvery: 100 * time.Microsecond, RetryFor: time.Millisecond})
			for i := 0; i < tc.frames; i++ {
				port.in <- frameOf(MaxFrameLen-4, byte(i))
			}
			waitUntil(t, "frames read", func() bool { return b.Counters().TapRead == uint64(tc.frames) })
			// Each frame is injected just after it is counted as read:
			// step virtual time until every one is handled.
			waitUntil(t, "frames handled", func() bool {
				r.m.Advance(100 * emu.Microsecond)
				c := b.Counters()
				return c.SentToBoard+c.QueueFull+c.SendErrors == uint64(tc.frames)
			})
			b.Close()
			c := b.Counters()
			if c.TapRead != uint64(tc.frames) || c.SentToBoard != tc.sent || c.QueueFull != tc.full || c.SendErrors != tc.sendErrors {
				t.Errorf("counters %+v; want read %d, sent %d, queue full %d, send errors %d", c, tc.frames, tc.sent, tc.full, tc.sendErrors)
			}
			r.m.Advance(10 * emu.Millisecond)
			if len(r.sink) != tc.cableFrames {
				t.Errorf("cable got %d frames, want %d", len(r.sink), tc.cableFrames)
			}
		})
	}
}

func TestBridgeBoardToHost(t *testing.T) {
	r := newRig(t, farend.Config{})
	port := newFakePort()
	b := NewBridge(r.m, r.nic, port, BridgeConfig{})
	var want [][]byte
	for i, n := range []int{60, 1514, 64, 1000} {
		f := frameOf(n, byte(i+1))
		want = append(want, f)
		if c := r.receive(f); c != farend.Accepted {
			t.Fatalf("far end: %v", c)
		}
	}
	// A bad FCS never reaches the host.
	bad := ether.AppendFCS(frameOf(100, 9))
	bad[50] ^= 1
	r.m.Lock()
	cause := r.nic.Receive(bad, false)
	r.m.Unlock()
	if cause != farend.DropCRC {
		t.Fatalf("bad FCS: %v", cause)
	}
	waitUntil(t, "frames written", func() bool { return b.Counters().WrittenToHost == 4 })
	b.Close()
	got := port.frames()
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("host frame %d: %d bytes, want the %d bytes without FCS", i, len(got[i]), len(want[i]))
		}
	}
	if c := b.Counters(); c.FromBoard != 4 || c.WrittenToHost != 4 || c.WriterBusy+c.WriteErrors+c.Unwritten != 0 {
		t.Errorf("counters %+v", c)
	}
}

// The writer queue holds WriteQueue frames while a write is stuck; more are
// counted as writer busy, and Close counts what was never written.
func TestBridgeWriterOverflowAndClose(t *testing.T) {
	r := newRig(t, farend.Config{})
	port := newFakePort()
	port.gate = make(chan struct{})
	b := NewBridge(r.m, r.nic, port, BridgeConfig{WriteQueue: 2})
	r.receive(frameOf(100, 1))
	<-port.inWrite // the writer holds frame 1 at the gate
	for i := 2; i <= 6; i++ {
		r.receive(frameOf(100, byte(i)))
	}
	// Frames 2 and 3 wait in the queue, 4-6 find it full.
	port.gate <- struct{}{} // frame 1 goes out
	<-port.inWrite          // the writer holds frame 2
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	want := Counters{FromBoard: 6, WrittenToHost: 1, WriterBusy: 3, Unwritten: 2}
	if c := b.Counters(); c != want {
		t.Errorf("counters %+v, want %+v", c, want)
	}
	// Detached: the far end now has no consumer and says so.
	if c := r.receive(frameOf(100, 7)); c != farend.DropNoConsumer {
		t.Errorf("after Close the far end %v a frame, want no consumer", c)
	}
}

func TestBridgeWriteErrorsCounted(t *testing.T) {
	r := newRig(t, farend.Config{})
	port := newFakePort()
	port.writeErr = unix.EIO // a TAP whose host side is down
	b := NewBridge(r.m, r.nic, port, BridgeConfig{})
	for i := 0; i < 3; i++ {
		r.receive(frameOf(80, byte(i)))
	}
	waitUntil(t, "writes tried", func() bool { return b.Counters().WriteErrors == 3 })
	b.Close()
	if c := b.Counters(); c.FromBoard != 3 || c.WriteErrors != 3 || c.WrittenToHost != 0 {
		t.Errorf("counters %+v", c)
	}
}

// A port whose reads keep failing (not closed) is counted and abandoned, not spun on.
type failingPort struct{ fakePort }

func (p *failingPort) Read([]byte) (int, error) { return 0, unix.EIO }

func TestBridgeReaderGivesUpOnBrokenDevice(t *testing.T) {
	r := newRig(t, farend.Config{})
	p := &failingPort{*newFakePort()}
	b := NewBridge(r.m, r.nic, p, BridgeConfig{})
	waitUntil(t, "reader to give up", func() bool { return b.Counters().ReadErrors == 101 })
	b.Close()
	if c := b.Counters(); c.ReadErrors != 101 || c.TapRead != 0 {
		t.Errorf("counters %+v", c)
	}
}
