package driver

import "sync"

// Deferred work: Linux runs the PHY state machine on a workqueue and the PHY
// interrupt as a threaded, oneshot handler, both in process context, because
// MDIO sleeps (stmmac's ReadPHY polls the busy bit with usleep). In mesonemu a
// guest timer callback or interrupt handler is atomic context: it must not
// sleep, and in discrete-event mode it may run nested inside another guest
// sleep (GuestDelay runs the machine on the caller's goroutine). So those
// contexts only record the work and kick; the work runs under p.mu:
//
//   - inline, when the kicker can take p.mu (in discrete-event mode this is
//     the only goroutine; the MDIO sleeps then run the machine nested, which
//     is deterministic);
//   - on a fresh goroutine when kicked from atomic context under a paced run
//     loop (a sleep there would stall the loop that must complete the MDIO
//     frame);
//   - or, when p.mu is busy (an outer frame on this goroutine, or another
//     goroutine), by the holder as it releases p.mu (unlock).
//
// The interrupt line is masked (handler removed) from the hard handler until
// the threaded part has acknowledged INSR, as IRQF_ONESHOT does.

// workFlags is the pending deferred work, set from any context.
type workFlags struct {
	mu  sync.Mutex
	irq bool // threaded interrupt handler pending
	sm  bool // state machine work queued with zero delay
}

func (p *PHY) addWork(irq, sm bool) {
	p.work.mu.Lock()
	p.work.irq = p.work.irq || irq
	p.work.sm = p.work.sm || sm
	p.work.mu.Unlock()
}

func (p *PHY) workPending() bool {
	p.work.mu.Lock()
	defer p.work.mu.Unlock()
	return p.work.irq || p.work.sm
}

func (p *PHY) takeWork() (irq, sm bool) {
	p.work.mu.Lock()
	defer p.work.mu.Unlock()
	irq, sm = p.work.irq, p.work.sm
	p.work.irq, p.work.sm = false, false
	return irq, sm
}

// lock takes phydev->lock in process context.
func (p *PHY) lock() { p.mu.Lock() }

// unlock publishes the state for readers, releases p.mu, delivers queued link
// notifications, and runs work that arrived while p.mu was held.
func (p *PHY) unlock() {
	p.release()
	p.kick(false)
}

// release is unlock without draining: publish, unlock, deliver.
func (p *PHY) release() {
	p.publish()
	events, fn := p.pending, p.onLink
	p.pending = nil
	p.mu.Unlock()
	for _, e := range events {
		if fn != nil {
			fn(e.up, e.speed, e.fullDuplex)
		}
	}
}

// kick runs pending work if p.mu is free (see the package comment above).
// atomic says the caller is a timer callback or interrupt handler.
func (p *PHY) kick(atomic bool) {
	for p.workPending() {
		if !p.mu.TryLock() {
			return // the holder drains when it unlocks
		}
		if _, paced := p.k.Paced(); atomic && paced {
			go func() {
				p.runWorkLocked()
				p.unlock()
			}()
			return
		}
		p.runWorkLocked()
		p.release()
	}
}

// runWorkLocked drains the work flags with p.mu held.
func (p *PHY) runWorkLocked() {
	for {
		irq, sm := p.takeWork()
		if !irq && !sm {
			return
		}
		if irq {
			p.threadedInterrupt()
		}
		if sm {
			p.stateMachineLocked()
		}
	}
}

// hardInterrupt is the handler registered on the IRQ line: mask (oneshot),
// defer the threaded part.
func (p *PHY) hardInterrupt() {
	p.cfg.IRQ.Handle(nil)
	p.addWork(true, false)
	p.kick(true)
}

// timerFired is the state machine's delayed work coming due.
func (p *PHY) timerFired() {
	p.addWork(false, true)
	p.kick(true)
}

// snapshot is the state readers see without waiting for p.mu.
type snapshot struct {
	info   Info
	status string
}

// publish copies the state for Info/Link/Status (p.mu held).
func (p *PHY) publish() {
	s := snapshot{
		info: Info{
			State: p.state, Link: p.link, Speed: p.speed, FullDuplex: p.fullDuplex,
			Autoneg: p.autoneg, Advertising: p.advertising, LPAdvertising: p.lpAdvertising,
			Pause: p.pause, AsymPause: p.asymPause, Interrupts: p.interrupts, LastError: p.lastErr,
		},
		status: p.statusLocked(false),
	}
	p.snapMu.Lock()
	p.snap = s
	p.snapMu.Unlock()
}

func (p *PHY) snapshot() snapshot {
	p.snapMu.Lock()
	defer p.snapMu.Unlock()
	return p.snap
}
