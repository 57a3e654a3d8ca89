package emu

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A watched fd is read on the loop: with nothing scheduled (the loop asleep
// on the pacer) and with an event an hour away, a byte written to a pipe
// reaches ready, whose Inject the loop then runs; after UnwatchFD it is not
// read.
func TestWatchFDReadsOnTheLoop(t *testing.T) {
	for _, far := range []bool{false, true} {
		m := NewMachineClock(1, WallPaced)
		var fds [2]int
		if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		if far {
			m.Lock()
			m.At(Time(time.Hour), func() {})
			m.Unlock()
		}
		got := make(chan byte, 1)
		reads := 0
		ready := func() bool {
			var b [1]byte
			if n, _ := unix.Read(fds[0], b[:]); n == 1 {
				reads++
				m.Inject(func() { got <- b[0] })
			}
			return true
		}
		if !m.WatchFD(fds[0], ready, func() { t.Error("watch lost") }) {
			t.Fatal("WatchFD refused on a wall-paced machine")
		}
		go func() { _, _ = unix.Write(fds[1], []byte{42}) }()
		var b byte
		if err := m.Run(nil, func() bool {
			select {
			case b = <-got:
				return true
			default:
				return false
			}
		}); err != nil || b != 42 {
			t.Errorf("far event %v: Run = %v, got byte %d; want nil, 42", far, err, b)
		}
		if err := m.UnwatchFD(fds[0]); err != nil {
			t.Error(err)
		}
		_, _ = unix.Write(fds[1], []byte{7})
		m.Lock()
		m.After(2*Millisecond, func() {})
		m.Unlock()
		m.Advance(3 * Millisecond)
		if reads != 1 {
			t.Errorf("far event %v: %d reads, want 1 (none after UnwatchFD)", far, reads)
		}
		m.Stop()
		unix.Close(fds[0])
		unix.Close(fds[1])
	}
}

// A virtual machine has no pacer to watch with: the caller reads fd itself.
func TestWatchFDRefusedInVirtualMode(t *testing.T) {
	m := NewMachine(1)
	if m.WatchFD(0, func() bool { return true }, func() {}) {
		t.Error("WatchFD accepted on a virtual machine")
	}
}
