// Package emu is the machine core: virtual clock and events, MMIO bus and RAM, IRQ lines.
// The medium between the sides: the bus the guest drives and the hardware models answer on.
//
// It is the machine core of mesonemu: one virtual clock with an event
// scheduler, the MMIO bus with guest RAM for DMA, interrupt lines, named seeded
// random streams and an optional register trace.
//
// One engine. Everything that happens is an event in one queue ordered by
// (virtual time, sequence number), and virtual time moves only when the loop
// takes the next event, so a run is a function of the model and the seed. Exactly
// one piece of emulated code runs at a time: a hardware event (with the machine
// lock held; it must not block), a guest event, guest timer or interrupt handler
// (without the lock, on the loop's goroutine), or a Task (a goroutine the loop
// resumes and waits for until it blocks on the engine again). Guest code reaches
// hardware only through the Bus, which takes the lock for one access, as a load
// or store reaches silicon. The clock mode (Virtual or WallPaced) is fixed when
// the machine is made; the guest cannot tell which runs.
package emu

import (
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"mesonemu/emu/pace"
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
	index int  // position in the heap; -1 when not queued
	guest bool // fn runs without the machine lock (guest, host or task code)
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

// ClockMode is how virtual time relates to the host's clock, fixed when a
// machine is made.
type ClockMode int

const (
	// Virtual: the loop jumps from event to event as fast as the host runs
	// them; a run is a function of the model and the seed alone.
	Virtual ClockMode = iota
	// WallPaced: an event runs no earlier than its virtual time on the wall
	// clock (virtual zero is the moment the machine was made), and the loop
	// sleeps while none is due. For a far end that keeps real time (a TAP);
	// what the host does then reaches the run by nature.
	WallPaced
)

func (c ClockMode) String() string {
	if c == WallPaced {
		return "wall-paced"
	}
	return "virtual"
}

// Machine is one emulated system: clock, scheduler, bus, RAM and interrupt lines.
type Machine struct {
	mu    sync.Mutex
	now   atomic.Int64 // virtual time; written by the loop with mu held
	queue eventHeap
	seq   uint64
	seed  uint64
	bus   *Bus
	irqs  []*IRQ
	// raised counts the lines at level high (set with mu held, read without
	// it by the loop after each event): none up, and the loop skips the scan.
	raised atomic.Int32
	mode   ClockMode
	wall0  time.Time     // WallPaced: the wall time of virtual zero
	wake   chan struct{} // WallPaced: a sleeping loop looks again
	late   time.Duration // WallPaced: the most an event ran behind its wall time
	// WallPaced: the kernel timer the loop sleeps on (nil: Go's timers),
	// what it sleeps on for the report, virtual zero on the pacer's clock,
	// and how late events ran.
	pacer   *pace.Pacer
	sleepOn string
	mono0   int64
	slept   bool           // the loop slept for the event it runs next
	pacing  pace.Recorder  // events the loop slept for: the wake-up's error
	behind  pace.Recorder  // every event: how far behind its wall time it ran
	watches map[int]func() // fds the pacer watches for the loop, and each one's lost

	current *Task // the task running now; only the loop and that task touch it
	tasks   []*Task
	stopped atomic.Bool // set with mu held; read without it by tasks and the loop
}

// NewMachine makes an empty machine in Virtual mode whose random streams
// derive from seed.
func NewMachine(seed uint64) *Machine { return NewMachineClock(seed, Virtual) }

// NewMachineClock makes an empty machine with the given clock mode.
func NewMachineClock(seed uint64, mode ClockMode) *Machine {
	m := &Machine{seed: seed, mode: mode, wall0: time.Now(), wake: make(chan struct{}, 1)}
	if mode == WallPaced {
		var err error
		m.sleepOn = "timerfd"
		if m.pacer, err = pace.New(); err != nil {
			m.sleepOn = "go timers: " + err.Error()
		}
		m.mono0 = pace.Now() - int64(time.Since(m.wall0))
	}
	m.bus = newBus(m)
	return m
}

// Clock is the machine's clock mode.
func (m *Machine) Clock() ClockMode { return m.mode }

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

// Lock takes the machine lock. It never moves time. Hardware code never calls
// it (it already holds the lock); the bus and guest code that schedules do.
func (m *Machine) Lock() { m.mu.Lock() }

// Unlock releases the machine lock.
func (m *Machine) Unlock() { m.mu.Unlock() }

// Now is the current virtual time; inside an event it is the event's due time.
// It takes no lock: any goroutine may read it.
func (m *Machine) Now() Time { return Time(m.now.Load()) }

// VirtualNow is Now, for callers outside hardware code.
func (m *Machine) VirtualNow() Time { return m.Now() }

// At schedules fn at virtual time t (or now, if t is in the past). Hardware only;
// the lock must be held. fn runs with the lock held.
func (m *Machine) At(t Time, fn func()) *Event {
	e := &Event{fn: fn, index: -1}
	m.Schedule(e, t)
	return e
}

// NewEvent makes a hardware event that is not queued yet; Schedule queues it. A
// device that fires the same action again and again (a MAC's end of frame) keeps
// one event and re-queues it, so its frame path allocates nothing.
func (m *Machine) NewEvent(fn func()) *Event { return &Event{index: -1, fn: fn} }

// NewGuestEvent makes an event whose fn runs without the machine lock, on the
// loop's goroutine: guest software (a kernel timer, a softirq), a host stack, or
// anything else that is not silicon. It may take the lock through the Bus or
// Lock, and may block only by driving the machine (GuestDelay).
func (m *Machine) NewGuestEvent(fn func()) *Event { return &Event{index: -1, fn: fn, guest: true} }

// Schedule queues e at virtual time t (or now, if t is in the past), moving it if
// it is already pending. The lock must be held.
func (m *Machine) Schedule(e *Event, t Time) {
	m.Cancel(e)
	if now := m.Now(); t < now {
		t = now
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
func (m *Machine) After(d Time, fn func()) *Event { return m.At(m.Now()+d, fn) }

// GuestAfter schedules a guest event fn d from now; it takes the lock itself, so
// guest and host code (never hardware code) call it.
func (m *Machine) GuestAfter(d Time, fn func()) *Event {
	e := m.NewGuestEvent(fn)
	m.mu.Lock()
	m.Schedule(e, m.Now()+d)
	m.mu.Unlock()
	return e
}

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
	if m.pacer != nil {
		m.pacer.Wake()
	}
}

// runNext runs the earliest event if it is due at or before limit, then
// delivers pending interrupts. Virtual time becomes the event's due time.
func (m *Machine) runNext(limit Time) bool {
	m.mu.Lock()
	if len(m.queue) == 0 || m.queue[0].at > limit {
		m.mu.Unlock()
		return false
	}
	e := m.queue.remove(0)
	m.now.Store(int64(e.at)) // never behind: Schedule clamps to now
	if m.mode == WallPaced {
		m.recordLate(e.at)
	}
	if e.guest {
		m.mu.Unlock()
		e.fn()
	} else {
		e.fn()
		m.mu.Unlock()
	}
	if m.raised.Load() != 0 {
		m.DeliverInterrupts()
	}
	return true
}

// waitWall sleeps, in WallPaced mode, until the wall clock reaches virtual time
// t, a new earlier event is scheduled, or stop is closed; it reports whether t
// has come. Virtual mode: always true at once.
func (m *Machine) waitWall(t Time, stop <-chan struct{}) bool {
	if m.mode != WallPaced {
		return true
	}
	m.slept = false
	if m.pacer != nil {
		return m.sleepPacer(t, stop)
	}
	d := time.Until(m.wall0.Add(t.Duration()))
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-m.wake:
	case <-stop:
	}
	return false
}

// MaxLateness is, in WallPaced mode, the most any event ran behind its time on
// the wall clock (how far the emulated system fell behind real time).
func (m *Machine) MaxLateness() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.late
}

// Step runs the earliest pending event, then delivers pending interrupts. It
// reports false when nothing is scheduled and no interrupt handler ran.
func (m *Machine) Step() bool {
	next, ok := m.NextEvent()
	if !ok {
		return m.DeliverInterrupts()
	}
	for !m.waitWall(next, nil) {
		if next, ok = m.NextEvent(); !ok {
			return m.DeliverInterrupts()
		}
	}
	return m.runNext(next) || m.DeliverInterrupts()
}

// RunUntil runs events until virtual time reaches t, then sets the clock to t.
// Called from inside an event (a guest that sleeps in atomic context) it runs
// the machine nested, which is deterministic too.
func (m *Machine) RunUntil(t Time) {
	for {
		next, ok := m.NextEvent()
		if !ok || next > t {
			if m.waitWall(t, nil) {
				m.slept = false // no event follows this wait
				break
			}
			continue
		}
		if m.waitWall(next, nil) {
			m.runNext(t)
		}
	}
	m.mu.Lock()
	if t > m.Now() {
		m.now.Store(int64(t))
	}
	m.mu.Unlock()
	m.DeliverInterrupts()
}

// Advance moves virtual time forward by d, running what falls due.
func (m *Machine) Advance(d Time) { m.RunUntil(m.Now() + d) }

// ErrStalled is returned by Run when nothing is scheduled and the run's goal
// is not reached: every task waits for something that can never happen.
var ErrStalled = errors.New("emu: nothing left to run (every task is blocked)")

// Run drives the machine until done() reports true (checked after each event)
// or stop is closed. In Virtual mode an empty queue before done is ErrStalled;
// in WallPaced mode the loop sleeps until the next event is due or something is
// injected, and never spins.
func (m *Machine) Run(stop <-chan struct{}, done func() bool) error {
	defer m.wakeOnStop(stop)()
	for !done() {
		select {
		case <-stop:
			return nil
		default:
		}
		if m.mode != WallPaced {
			// No wall clock to wait for: the earliest event runs at once,
			// with one lock taken instead of NextEvent's and runNext's.
			if !m.runNext(math.MaxInt64) {
				return ErrStalled
			}
			continue
		}
		next, ok := m.NextEvent()
		if !ok {
			if m.pacer != nil {
				// Asleep on the pacer, not the wake channel: the fds it
				// watches are how host frames arrive.
				m.sleepPacer(forever, stop)
				continue
			}
			select {
			case <-m.wake:
			case <-stop:
				return nil
			}
			continue
		}
		if m.waitWall(next, stop) {
			m.runNext(next)
		}
	}
	return nil
}

// forever is a due time the wall clock never reaches: an idle loop's sleep.
const forever = Time(math.MaxInt64 / 2)

// wakeOnStop lets a stop end a pacer's sleep; the returned func ends the
// watch.
func (m *Machine) wakeOnStop(stop <-chan struct{}) func() {
	p := m.pacer // Stop may clear the field while this watch ends
	if p == nil || stop == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-stop:
			p.Wake()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// Inject runs fn as a guest event at the current virtual time: how a goroutine
// outside the machine (a TAP reader, a signal) hands it something. Safe from
// any goroutine but hardware code.
func (m *Machine) Inject(fn func()) {
	e := m.NewGuestEvent(fn)
	m.mu.Lock()
	now := m.Now()
	if m.mode == WallPaced {
		// Stamped with the wall clock's virtual time: a host frame enters
		// when it arrived, not when an idle loop last moved the clock.
		now = max(now, m.wallNow())
	}
	m.Schedule(e, now)
	m.kick()
	m.mu.Unlock()
}

// Sleep lets d of virtual time pass for the caller: a task blocks (the loop
// runs on); any other caller drives the machine forward itself (RunUntil).
// Hardware code never sleeps.
func (m *Machine) Sleep(d Time) {
	if d <= 0 {
		return
	}
	if t := m.current; t != nil {
		m.mu.Lock()
		m.Schedule(t.ev, m.Now()+d)
		m.mu.Unlock()
		t.park()
		return
	}
	m.RunUntil(m.Now() + d)
}

// GuestDelay is the guest's udelay/usleep/msleep: Sleep.
func (m *Machine) GuestDelay(d Time) { m.Sleep(d) }
