package emu

import (
	"context"
	"runtime"
	"runtime/metrics"
	"time"
)

// RunQuiescent drives the machine like RunPaced, with one difference: as soon
// as every other goroutine of the process is blocked, virtual time jumps to the
// next event. Nothing can happen before that event, so waiting for it in wall
// time would only let the host's timer resolution into the emulated timing
// (RunPaced's late wake-ups, BenchmarkPacedWakeLateness). While other
// goroutines work, virtual time runs at most at scale × wall time, so the
// host's own processing time barely counts; the time the emulated system
// spends working is charged in virtual time explicitly (netstack.CPU).
//
// The loop never sleeps while events are pending: it yields the processor to
// the goroutines that work and looks again, so it keeps one core busy.
//
// Only for a machine whose every observer reads the virtual clock (the
// in-process runs): a TAP's far side keeps real time, and goroutines waiting on
// wall-clock timers look blocked and are jumped over (Machine.Sleep is the
// virtual-time sleep).
func (m *Machine) RunQuiescent(ctx context.Context, scale float64) {
	m.mu.Lock()
	if scale <= 0 {
		scale = 1
	}
	m.pacing = &pacing{start: time.Now(), base: m.now, scale: scale, quiescent: true, stopped: make(chan struct{}), from: m.now}
	p := m.pacing
	m.mu.Unlock()
	// Sleepers wake when the loop stops: nothing would run their events.
	defer close(p.stopped)
	probe := newIdleProbe()
	for ctx.Err() == nil {
		next, has := m.runPacedDue(p)
		if m.DeliverInterrupts() {
			continue
		}
		m.settle(ctx, p, probe, next, has)
	}
}

// settle waits until the next event may run: every other goroutine is blocked
// (then the clock jumps to it), its paced time has come, a new event was
// scheduled, or ctx ended.
func (m *Machine) settle(ctx context.Context, p *pacing, probe *idleProbe, next Time, has bool) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.wake:
			return
		default:
		}
		idle := probe.othersIdle()
		if idle && !has {
			// Nothing to run and nobody working: only a new event (from a
			// goroutine woken by something outside) or ctx changes that.
			select {
			case <-ctx.Done():
			case <-m.wake:
			}
			return
		}
		m.mu.Lock()
		now := p.now()
		if idle && now < next {
			p.base += next - now
			p.skipped += next - now
		}
		due := idle || now >= next
		m.mu.Unlock()
		if due {
			return
		}
		runtime.Gosched()
	}
}

// ClockSplit tells how the virtual time of the current (or last) RunQuiescent
// loop came about: skipped is what the clock jumped over while every other
// goroutine was blocked, flowed what passed with the wall clock at the scale
// (which it does all along, between jumps: scale × the loop's wall time). The
// emulated system's own work is charged as events (Sleep), so it lands in
// skipped; flowed bounds how much host time can have leaked into the emulated
// timing, and it grows with the wall time a run takes. Both are zero without a
// RunQuiescent loop.
func (m *Machine) ClockSplit() (skipped, flowed Time) {
	m.Lock()
	defer m.Unlock()
	p := m.pacing
	if p == nil || !p.quiescent {
		return 0, 0
	}
	return p.skipped, m.now - p.from - p.skipped
}

// idleProbe reads the scheduler's goroutine counts (runtime/metrics).
type idleProbe struct {
	s []metrics.Sample
	// inSyscallFloor is the fewest goroutines seen in system calls: those
	// that sit in one for good (os/signal's receiver does) are not working.
	inSyscallFloor uint64
}

func newIdleProbe() *idleProbe {
	return &idleProbe{s: []metrics.Sample{
		{Name: "/sched/goroutines/running:goroutines"},
		{Name: "/sched/goroutines/runnable:goroutines"},
		{Name: "/sched/goroutines/not-in-go:goroutines"},
	}, inSyscallFloor: ^uint64(0)}
}

// othersIdle: no goroutine but the caller is running, waiting to run, or in a
// system call (beyond the ones that never leave theirs: iperf3 writing its
// report to a terminal is working). The running count is that of processors
// in use, so an idle processor still looking for work counts as running for a
// moment: the answer errs towards "busy", which only delays a jump.
func (q *idleProbe) othersIdle() bool {
	metrics.Read(q.s)
	inSyscall := q.s[2].Value.Uint64()
	q.inSyscallFloor = min(q.inSyscallFloor, inSyscall)
	return q.s[0].Value.Uint64() <= 1 && q.s[1].Value.Uint64() == 0 && inSyscall <= q.inSyscallFloor
}

// Sleep lets d of virtual time pass for the calling goroutine (never the run
// loop or hardware code). Under RunQuiescent it waits for an event, so the
// sleeper counts as blocked and the clock may jump to its wake-up; under
// RunPaced it sleeps the matching wall time; in discrete-event mode it runs the
// machine forward. It returns early once RunQuiescent has stopped.
func (m *Machine) Sleep(d Time) {
	if d <= 0 {
		return
	}
	m.Lock()
	p := m.pacing
	switch {
	case p == nil:
		m.Unlock()
		m.Advance(d)
	case !p.quiescent:
		m.Unlock()
		time.Sleep(p.wallDuration(d))
	default:
		done := make(chan struct{})
		m.After(d, func() { close(done) })
		m.Unlock()
		select {
		case <-done:
		case <-p.stopped:
		}
	}
}
