// Package emu is the machine core of mesonemu: one virtual clock with an event
// scheduler, the MMIO bus with guest RAM for DMA, interrupt lines, named seeded
// random streams and an optional register trace.
//
// Concurrency model. All hardware state lives behind one machine lock. Hardware
// code (device register handlers and scheduled events) always runs with the lock
// held and must not block. Guest code never holds the lock: it reaches hardware
// only through the Bus methods, which take the lock for the duration of one access,
// as a CPU's load or store reaches silicon. Interrupt handlers registered by the
// guest run outside the lock, from whoever drives the machine (Step, RunUntil or
// RunPaced), never from inside a device.
package emu

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"
)

// Time is virtual time in nanoseconds since the machine was powered on.
type Time int64

// Common durations in virtual time.
const (
	Nanosecond  Time = 1
	Microsecond Time = 1000
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// Seconds converts virtual time to float seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// Duration converts virtual time to a time.Duration of the same length.
func (t Time) Duration() time.Duration { return time.Duration(t) }

// Event is a scheduled hardware action. Cancel it with Machine.Cancel.
type Event struct {
	at    Time
	seq   uint64
	fn    func()
	index int // position in the heap; -1 when not queued
}

// Pending reports whether the event is still queued.
func (e *Event) Pending() bool { return e != nil && e.index >= 0 }

// At is the virtual time the event is due.
func (e *Event) At() Time { return e.at }

// eventHeap is a binary min-heap of events by (due time, sequence). It is
// written out rather than built on container/heap: the frame path pushes and
// pops an event per frame, and the interface calls were a visible cost.
type eventHeap []*Event

func (h eventHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h eventHeap) swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].index = i; h[j].index = j }

func (h eventHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down sifts element i towards the leaves; it reports whether it moved.
func (h eventHeap) down(i int) bool {
	start, n := i, len(h)
	for {
		left := 2*i + 1
		if left >= n {
			break
		}
		child := left
		if right := left + 1; right < n && h.less(right, left) {
			child = right
		}
		if !h.less(child, i) {
			break
		}
		h.swap(i, child)
		i = child
	}
	return i > start
}

func (h *eventHeap) push(e *Event) {
	e.index = len(*h)
	*h = append(*h, e)
	h.up(e.index)
}

// remove takes out the element at i and returns it (index -1).
func (h *eventHeap) remove(i int) *Event {
	old := *h
	last := len(old) - 1
	if i != last {
		old.swap(i, last)
	}
	e := old[last]
	old[last] = nil
	*h = old[:last]
	if i != last && !h.down(i) {
		h.up(i)
	}
	e.index = -1
	return e
}

// Machine is one emulated system: clock, scheduler, bus, RAM and interrupt lines.
type Machine struct {
	mu     sync.Mutex
	now    Time
	queue  eventHeap
	seq    uint64
	seed   uint64
	bus    *Bus
	irqs   []*IRQ
	pacing *pacing // nil: discrete-event mode, time jumps from event to event
	wake   chan struct{}

	pendingTimers []func() // expired guest timers, run outside the lock
	spareTimers   []func() // an emptied pendingTimers, kept to be reused
}

// NewMachine makes an empty machine whose random streams derive from seed.
func NewMachine(seed uint64) *Machine {
	m := &Machine{seed: seed, wake: make(chan struct{}, 1)}
	m.bus = newBus(m)
	return m
}

// Bus is the machine's physical address space.
func (m *Machine) Bus() *Bus { return m.bus }

// Seed is the seed the machine's random streams derive from.
func (m *Machine) Seed() uint64 { return m.seed }

// Rand returns a deterministic random stream for one named consumer. Two streams
// with different names are independent; the same seed and name give the same
// sequence in every run, which is what makes corrupted frames reproducible.
func (m *Machine) Rand(name string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return rand.New(rand.NewPCG(m.seed, h.Sum64()))
}

// Lock takes the machine lock and brings virtual time up to the paced clock.
// Hardware code never calls it (it already holds the lock); the bus and the run
// loops do.
func (m *Machine) Lock() {
	m.mu.Lock()
	if m.pacing != nil {
		if t := m.pacing.now(); t > m.now {
			m.now = t
		}
	}
}

// Unlock releases the machine lock.
func (m *Machine) Unlock() { m.mu.Unlock() }

// Now is the current virtual time. Hardware code calls it with the lock held;
// inside an event it is the event's due time.
func (m *Machine) Now() Time { return m.now }

// At schedules fn at virtual time t (or now, if t is in the past). Hardware only;
// the lock must be held. fn runs with the lock held.
func (m *Machine) At(t Time, fn func()) *Event {
	if t < m.now {
		t = m.now
	}
	m.seq++
	e := &Event{at: t, seq: m.seq, fn: fn}
	wasFirst := len(m.queue) == 0 || t < m.queue[0].at
	m.queue.push(e)
	if wasFirst {
		m.kick()
	}
	return e
}

// NewEvent makes an event that is not queued yet; Schedule queues it. A device
// that fires the same action again and again (a MAC's end of frame) keeps one
// event and re-queues it, so its frame path allocates nothing.
func (m *Machine) NewEvent(fn func()) *Event { return &Event{index: -1, fn: fn} }

// Schedule queues e at virtual time t (or now, if t is in the past), moving it if
// it is already pending. Hardware only; the lock must be held.
func (m *Machine) Schedule(e *Event, t Time) {
	m.Cancel(e)
	if t < m.now {
		t = m.now
	}
	m.seq++
	e.at, e.seq = t, m.seq
	wasFirst := len(m.queue) == 0 || t < m.queue[0].at
	m.queue.push(e)
	if wasFirst {
		m.kick()
	}
}

// After schedules fn d nanoseconds from now.
func (m *Machine) After(d Time, fn func()) *Event { return m.At(m.now+d, fn) }

// Cancel removes a pending event; it is a no-op for nil or already-run events.
func (m *Machine) Cancel(e *Event) {
	if e.Pending() {
		m.queue.remove(e.index)
	}
}

// NextEvent is the due time of the earliest pending event.
func (m *Machine) NextEvent() (Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.queue) == 0 {
		return 0, false
	}
	return m.queue[0].at, true
}

func (m *Machine) kick() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// runDue runs every event due at or before limit, in time order. Each event
// sees Now() as its own due time, even when a paced run loop reaches it late:
// a chain of events (a MAC sending frame after frame) then keeps its exact
// spacing instead of stretching to the loop's wake-ups. Afterwards the clock is
// never behind where it was. Lock held.
func (m *Machine) runDue(limit Time) int {
	n := 0
	for len(m.queue) > 0 && m.queue[0].at <= limit {
		e := m.queue.remove(0)
		// e.fn may queue e again (a re-used event): read its time first.
		was, at := m.now, e.at
		m.now = at
		e.fn()
		m.now = max(was, at)
		n++
	}
	return n
}

// Step runs the earliest pending event (and any due at the same instant), then
// delivers pending interrupts. It reports false when nothing is scheduled and no
// interrupt is pending. Discrete-event mode only.
func (m *Machine) Step() bool {
	m.mu.Lock()
	ran := 0
	if len(m.queue) > 0 {
		ran = m.runDue(m.queue[0].at)
	}
	m.mu.Unlock()
	delivered := m.DeliverInterrupts()
	return ran > 0 || delivered
}

// RunUntil runs events until virtual time reaches t, then sets the clock to t.
func (m *Machine) RunUntil(t Time) {
	for {
		m.mu.Lock()
		if len(m.queue) == 0 || m.queue[0].at > t {
			if t > m.now {
				m.now = t
			}
			m.mu.Unlock()
			m.DeliverInterrupts()
			return
		}
		m.runDue(m.queue[0].at)
		m.mu.Unlock()
		m.DeliverInterrupts()
	}
}

// Advance moves virtual time forward by d, running what falls due.
func (m *Machine) Advance(d Time) {
	m.mu.Lock()
	t := m.now + d
	m.mu.Unlock()
	m.RunUntil(t)
}

// RunPaced drives the machine against wall time until ctx ends: virtual time
// runs at scale × wall time (scale 1 is real time). Events run when their virtual
// time has come, and interrupts are delivered from this goroutine. It sleeps on
// Go's timers, which wake an idle process up to ~1 ms late: handlers then run late
// in virtual time (BenchmarkPacedWakeLateness; README, Known gaps).
func (m *Machine) RunPaced(ctx context.Context, scale float64) {
	m.mu.Lock()
	if scale <= 0 {
		scale = 1
	}
	m.pacing = &pacing{start: time.Now(), base: m.now, scale: scale}
	p := m.pacing
	m.mu.Unlock()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next, has := m.runPacedDue(p)
		if m.DeliverInterrupts() {
			continue
		}
		wait := time.Hour
		if has {
			wait = p.wallDuration(next - p.now())
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-m.wake:
		case <-timer.C:
		}
	}
}

// runPacedDue runs the events the paced clock has reached, brings virtual time
// up to it, and returns the next event's time (has: there is one).
func (m *Machine) runPacedDue(p *pacing) (next Time, has bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	limit := p.now()
	m.runDue(limit)
	m.now = max(m.now, limit)
	if len(m.queue) == 0 {
		return 0, false
	}
	return m.queue[0].at, true
}

// Paced reports whether a paced run loop owns the clock, and its scale.
func (m *Machine) Paced() (float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pacing == nil {
		return 0, false
	}
	return m.pacing.scale, true
}

// VirtualNow reads the virtual clock from any goroutine without running events.
func (m *Machine) VirtualNow() Time {
	m.Lock()
	defer m.Unlock()
	return m.now
}

// WallDuration converts a virtual duration to the wall time it takes under the
// current pacing (identity in discrete-event mode).
func (m *Machine) WallDuration(d Time) time.Duration {
	m.mu.Lock()
	p := m.pacing
	m.mu.Unlock()
	if p == nil {
		return d.Duration()
	}
	return p.wallDuration(d)
}

type pacing struct {
	start     time.Time
	base      Time
	scale     float64
	quiescent bool          // RunQuiescent: the clock may jump when the process is idle
	stopped   chan struct{} // RunQuiescent: closed when the loop ends
	// from is the virtual time the loop started at and skipped the virtual
	// time it jumped over while every other goroutine was blocked (machine
	// lock). The rest flowed with the wall clock at the scale.
	from, skipped Time
}

func (p *pacing) now() Time {
	return p.base + Time(float64(time.Since(p.start))*p.scale)
}

func (p *pacing) wallDuration(d Time) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(float64(d) / p.scale)
}
