package emu

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// runQuiescent starts the loop and returns a function that stops it and waits.
func runQuiescent(m *Machine, scale float64) func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.RunQuiescent(ctx, scale); close(done) }()
	return func() { cancel(); <-done }
}

// closeAt schedules an event at t that closes the returned channel.
func closeAt(m *Machine, t Time) <-chan struct{} {
	ch := make(chan struct{})
	m.Lock()
	m.At(t, func() { close(ch) })
	m.Unlock()
	return ch
}

// within waits for ch up to d of wall time.
func within(t *testing.T, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not within %v of wall time", what, d)
	}
}

// TestQuiescentJumpsWhenIdle: with nothing else running the clock goes
// straight to the next event. Paced at 0.001 the 10 s would take 10,000 s.
func TestQuiescentJumpsWhenIdle(t *testing.T) {
	m := NewMachine(1)
	fired := closeAt(m, 10*Second)
	stop := runQuiescent(m, 0.001)
	defer stop()
	within(t, fired, 5*time.Second, "event at 10 s of virtual time")
	if now := m.VirtualNow(); now < 10*Second || now > 10*Second+Millisecond {
		t.Errorf("virtual time %v after the event at 10 s", now)
	}
	if skipped, flowed := m.ClockSplit(); skipped < 10*Second-Millisecond || flowed > Millisecond {
		t.Errorf("clock split: %v skipped, %v flowed; want the 10 s skipped", skipped, flowed)
	}
}

// TestQuiescentWaitsForWork: a goroutine woken by an event works for 50 ms of
// wall time. The next event, 1 ms of virtual time later, runs only after the
// work is done, and the virtual time that passed meanwhile is the fallback
// pace's (0.001 x 50 ms), not the host's 50 ms.
func TestQuiescentWaitsForWork(t *testing.T) {
	m := NewMachine(1)
	wake := make(chan struct{})
	var workStart, workEnd Time
	worked := make(chan struct{})
	go func() {
		<-wake
		workStart = m.VirtualNow()
		for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		}
		workEnd = m.VirtualNow()
		close(worked)
	}()
	second := make(chan struct{})
	var sawWorkDone bool
	m.Lock()
	m.At(Millisecond, func() { close(wake) })
	m.At(2*Millisecond, func() {
		select {
		case <-worked:
			sawWorkDone = true
		default:
		}
		close(second)
	})
	m.Unlock()
	stop := runQuiescent(m, 0.001)
	defer stop()
	within(t, second, 10*time.Second, "second event")
	if !sawWorkDone {
		// workEnd is not written yet: nothing below can be read safely.
		t.Fatalf("the event 1 ms later ran while the woken goroutine was still working")
	}
	// 50 ms of wall time at 0.001 is 50 µs; allow for a slow host.
	if d := workEnd - workStart; d > 500*Microsecond {
		t.Errorf("virtual time moved %v while the goroutine worked 50 ms of wall time; want <= 500 µs", d)
	}
	// The split counts that stretch as flowed (at least the 50 µs) and the
	// rest of the 2 ms as skipped.
	skipped, flowed := m.ClockSplit()
	if flowed < 40*Microsecond || flowed > 1*Millisecond || skipped < Millisecond || skipped > 2*Millisecond {
		t.Errorf("clock split: %v skipped, %v flowed; want ~1.95 ms and ~50 µs", skipped, flowed)
	}
}

// TestQuiescentProgressWhenNeverIdle: a goroutine that never blocks keeps the
// process busy for good; the clock still moves at the fallback pace, so the
// run loop reaches its events.
func TestQuiescentProgressWhenNeverIdle(t *testing.T) {
	m := NewMachine(1)
	var quit atomic.Bool
	defer quit.Store(true)
	go func() {
		for !quit.Load() { // busy, never blocked
		}
	}()
	fired := closeAt(m, 20*Millisecond)
	stop := runQuiescent(m, 1)
	defer stop()
	within(t, fired, 5*time.Second, "event at 20 ms with a goroutine always running")
}

// TestSleep: Machine.Sleep lets virtual time pass in each mode, and returns
// once the quiescent loop has stopped instead of waiting for ever.
func TestSleep(t *testing.T) {
	t.Run("discrete-event", func(t *testing.T) {
		m := NewMachine(1)
		m.Sleep(5 * Millisecond)
		if now := m.VirtualNow(); now != 5*Millisecond {
			t.Errorf("virtual time %v after Sleep(5 ms), want 5ms", now)
		}
	})
	t.Run("quiescent", func(t *testing.T) {
		m := NewMachine(1)
		stop := runQuiescent(m, 0.001)
		defer stop()
		slept := make(chan struct{})
		go func() { m.Sleep(2 * Second); close(slept) }()
		within(t, slept, 5*time.Second, "Sleep(2 s) at scale 0.001 with the clock free to jump")
		if now := m.VirtualNow(); now < 2*Second {
			t.Errorf("virtual time %v after Sleep(2 s)", now)
		}
	})
	t.Run("after the quiescent loop stopped", func(t *testing.T) {
		m := NewMachine(1)
		runQuiescent(m, 0.001)()
		slept := make(chan struct{})
		go func() { m.Sleep(Second); close(slept) }()
		within(t, slept, 5*time.Second, "Sleep after the loop stopped")
	})
}
