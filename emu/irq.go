package emu

import "sync/atomic"

// IRQ is a level-sensitive interrupt line from a device to the guest's interrupt
// controller. Devices set its level with the machine lock held; the guest's handler
// runs outside the lock from the machine's run loop, while the line is asserted.
type IRQ struct {
	m        *Machine
	name     string
	level    bool
	disabled bool // "nobody cared": the guest handler never lowered the line

	stuck int // deliveries in a row that left the line asserted (machine lock)

	handler atomic.Pointer[func()]
}

// stuckLimit mirrors Linux's spurious-interrupt detector: after this many
// deliveries in a row that leave the line asserted, the line is disabled, so a
// handler that never clears its cause cannot spin the machine forever.
const stuckLimit = 100000

// NewIRQ adds a named interrupt line to the machine.
func (m *Machine) NewIRQ(name string) *IRQ {
	q := &IRQ{m: m, name: name}
	m.mu.Lock()
	m.irqs = append(m.irqs, q)
	m.mu.Unlock()
	return q
}

// Name is the line's name (for example "macirq").
func (q *IRQ) Name() string { return q.name }

// Set drives the line's level. Hardware only (lock held).
func (q *IRQ) Set(level bool) {
	if level == q.level {
		return
	}
	if level {
		q.m.raised.Add(1)
		q.m.kick()
	} else {
		q.m.raised.Add(-1)
	}
	q.level = level
}

// Level is the line's current level. Hardware only (lock held).
func (q *IRQ) Level() bool { return q.level }

// Handle registers the guest's handler for the line (nil removes it).
func (q *IRQ) Handle(fn func()) {
	if fn == nil {
		q.handler.Store(nil)
	} else {
		q.handler.Store(&fn)
	}
	q.m.mu.Lock()
	q.stuck = 0
	q.disabled = false
	q.m.mu.Unlock()
}

// Disabled reports whether the line was shut off as stuck.
func (q *IRQ) Disabled() bool {
	q.m.mu.Lock()
	defer q.m.mu.Unlock()
	return q.disabled
}

// DeliverInterrupts calls the guest handler of every asserted line once and
// reports whether any ran. Call it without the machine lock.
func (m *Machine) DeliverInterrupts() bool {
	m.mu.Lock()
	var dueBuf [4]*IRQ
	due := dueBuf[:0]
	for _, q := range m.irqs {
		if q.level && !q.disabled {
			due = append(due, q)
		}
	}
	m.mu.Unlock()
	ran := false
	handled := 0
	for _, q := range due {
		h := q.handler.Load()
		if h == nil {
			continue
		}
		(*h)()
		ran = true
		due[handled] = q
		handled++
	}
	if handled == 0 {
		return ran
	}
	m.mu.Lock()
	for _, q := range due[:handled] {
		if q.level {
			q.stuck++
			if q.stuck >= stuckLimit {
				q.disabled = true
			}
		} else {
			q.stuck = 0
		}
	}
	m.mu.Unlock()
	return ran
}
