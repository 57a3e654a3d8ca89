package realtek

import "sync"

// Deferred work: Linux runs the PHY state machine on a workqueue and the PHY
// interrupt as a threaded, oneshot handler, both in process context, because
// MDIO sleeps (stmmac's ReadPHY polls the busy bit with usleep). Here a guest
// timer callback or interrupt handler only records the work and kicks; the work
// runs under p.mu, inline when the kicker can take p.mu (its MDIO sleeps then
// run the machine nested, which the engine keeps deterministic), or else by the
// holder as it releases p.mu (unlock).
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
	p.kick()
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
func (p *PHY) kick() {
	for p.workPending() {
		if !p.mu.TryLock() {
			return // the holder drains when it unlocks
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
	p.maskIRQ(true)
	p.addWork(true, false)
	p.kick()
}

// timerFired is the state machine's delayed work coming due.
func (p *PHY) timerFired() {
	p.addWork(false, true)
	p.kick()
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
