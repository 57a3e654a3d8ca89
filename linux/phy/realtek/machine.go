package realtek

import (
	"fmt"

	"mesonemu/emu"
)

// The phylib state machine (drivers/net/phy/phy.c, v5.5): attach, start,
// stop, the delayed work that polls or reacts to the interrupt, and the
// link-change notifications.

// PHYStateTime is PHY_STATE_TIME (HZ): the polling period without an interrupt.
const PHYStateTime = phyStateTimeMs * emu.Millisecond

// WaitLinkStep is how often WaitLink looks at the link state.
const WaitLinkStep = 10 * emu.Millisecond

// Attach is phy_attach_direct + phy_request_interrupt: phy_init_hw (soft reset
// only with Config.SoftResetOnInit, then config_init), genphy_resume, and, with
// an IRQ, ack + config_intr(enabled) and the handler. An interrupt that cannot
// be set up falls back to polling, as Linux does. Process context.
func (p *PHY) Attach() error {
	if p.cfg.SoftResetOnInit {
		if err := p.SoftReset(); err != nil {
			return fmt.Errorf("phy attach: %w", err)
		}
	}
	p.lock()
	defer p.unlock()
	if err := p.configInit(); err != nil {
		return fmt.Errorf("phy attach: %w", err)
	}
	if err := p.resume(); err != nil {
		return fmt.Errorf("phy attach: resume: %w", err)
	}
	p.logf("attached PHY driver [%s] (mii_bus:phy_addr=stmmac-0:%02x, irq=%s)", rtl8211fDriverName, p.cfg.Addr, p.irqName())
	if p.cfg.IRQ == 0 {
		return nil
	}
	err := p.ackInterrupt()
	if err == nil {
		err = p.configIntr(true)
	}
	if err != nil {
		p.logf("%s: can't enable interrupts, polling: %v", rtl8211fDriverName, err)
		return nil
	}
	p.interrupts = true
	if err := p.k.RequestIRQ(p.cfg.IRQ, p.hardInterrupt); err != nil {
		p.interrupts = false
		p.logf("%s: %v, polling", rtl8211fDriverName, err)
	}
	return nil
}

func (p *PHY) irqName() string {
	if p.cfg.IRQ == 0 {
		return "POLL"
	}
	return p.k.IRQName(p.cfg.IRQ)
}

// maskIRQ masks or unmasks the oneshot line around the threaded handler (the
// line was requested at attach, so the kernel knows it).
func (p *PHY) maskIRQ(masked bool) {
	h := p.hardInterrupt
	if masked {
		h = nil
	}
	_ = p.k.RequestIRQ(p.cfg.IRQ, h)
}

// Start is phy_start: resume the PHY, go to UP and queue the state machine at
// once (it configures AN and checks the link; then polls or waits for the
// interrupt). Process context.
func (p *PHY) Start() error {
	p.lock()
	defer p.unlock()
	if p.state != StateReady && p.state != StateHalted {
		return fmt.Errorf("phy start: called from state %s", p.state)
	}
	if err := p.resume(); err != nil {
		return fmt.Errorf("phy start: resume: %w", err)
	}
	p.lastErr = nil
	p.state = StateUp
	p.queue(0)
	return nil
}

// Stop is phy_stop: go to HALTED, run the state machine synchronously (link
// down notification, genphy_suspend) and cancel the delayed work. Process context.
func (p *PHY) Stop() {
	p.lock()
	defer p.unlock()
	if !p.started() {
		return
	}
	p.state = StateHalted
	p.stateMachineLocked()
	if p.timer != nil {
		p.timer.Stop()
	}
	p.takeWork()
}

// started is phy_is_started.
func (p *PHY) started() bool { return p.state >= StateUp }

func (p *PHY) polling() bool { return !p.interrupts }

// queue is phy_queue_state_machine (mod_delayed_work): run the state machine
// d from now; 0 means as soon as p.mu is released. p.mu held.
func (p *PHY) queue(d emu.Time) {
	if d <= 0 {
		if p.timer != nil {
			p.timer.Stop()
		}
		p.addWork(false, true)
		return
	}
	if p.timer == nil {
		p.timer = p.k.AfterFunc(d, p.timerFired)
		return
	}
	p.timer.Reset(d)
}

// threadedInterrupt is phy_interrupt's body (v5.5), run in process context:
// trigger the state machine, acknowledge (reading INSR releases the line),
// then unmask.
func (p *PHY) threadedInterrupt() {
	if p.started() {
		p.queue(0)
	}
	if err := p.ackInterrupt(); err != nil {
		p.phyError(err)
	}
	p.maskIRQ(false)
}

// phyError is phy_error: halt and let the state machine take the link down.
func (p *PHY) phyError(err error) {
	if p.lastErr == nil {
		p.lastErr = err
	}
	p.logf("%s: PHY error, halting: %v", rtl8211fDriverName, err)
	p.state = StateHalted
	p.queue(0)
}

// stateMachineLocked is phy_state_machine, p.mu held.
func (p *PHY) stateMachineLocked() {
	var err error
	needsAneg, doSuspend := false, false
	switch p.state {
	case StateUp:
		needsAneg = true
	case StateNoLink, StateRunning:
		err = p.checkLinkStatus()
	case StateHalted:
		if p.link {
			p.link = false
			p.emit(false)
		}
		doSuspend = true
	}
	if needsAneg {
		err = p.startAneg()
	}
	if err != nil {
		p.phyError(err)
	}
	if doSuspend {
		if err := p.suspend(); err != nil && p.lastErr == nil {
			p.lastErr = fmt.Errorf("phy suspend: %w", err)
		}
	}
	if p.polling() && p.started() {
		p.queue(PHYStateTime)
	}
}

// startAneg is phy_start_aneg: config_aneg, then check the link if started.
func (p *PHY) startAneg() error {
	if err := p.configAneg(); err != nil {
		return fmt.Errorf("config_aneg: %w", err)
	}
	if p.started() {
		return p.checkLinkStatus()
	}
	return nil
}

// checkLinkStatus is phy_check_link_status: read_status, then notify on a
// RUNNING/NOLINK transition (as Linux, UP -> NOLINK also notifies "down").
func (p *PHY) checkLinkStatus() error {
	if err := p.readStatus(); err != nil {
		return fmt.Errorf("read_status: %w", err)
	}
	switch {
	case p.link && p.state != StateRunning:
		p.state = StateRunning
		p.emit(true)
	case !p.link && p.state != StateNoLink:
		p.state = StateNoLink
		p.emit(false)
	}
	return nil
}

// emit queues a link notification for delivery outside the lock and prints
// the phy_print_status line.
func (p *PHY) emit(up bool) {
	e := linkEvent{up: up}
	if up {
		e.speed, e.fullDuplex = p.speed, p.fullDuplex
	}
	p.pending = append(p.pending, e)
	p.logf("%s", p.statusLocked(true))
}

// LinkSettings is what `ethtool -s` changes.
type LinkSettings struct {
	Autoneg     bool
	Speed       int  // forced mode: 10, 100 or 1000
	FullDuplex  bool // forced mode
	Advertising LinkModes
}

// SetLinkSettings is phy_ethtool_ksettings_set: store the settings and, when
// the PHY is started, run phy_start_aneg at once. Process context.
func (p *PHY) SetLinkSettings(s LinkSettings) error {
	if !s.Autoneg {
		switch s.Speed {
		case 10, 100, 1000:
		default:
			return fmt.Errorf("phy: forced speed %d Mbit/s: want 10, 100 or 1000", s.Speed)
		}
	}
	adv := s.Advertising & (GbitFeatures | LinkPause | LinkAsymPause)
	if s.Autoneg && adv&GbitFeatures == 0 {
		return fmt.Errorf("phy: advertising %v: no speed the PHY supports", s.Advertising)
	}
	p.lock()
	defer p.unlock()
	p.autoneg = s.Autoneg
	p.forcedSpeed, p.forcedFull = s.Speed, s.FullDuplex
	if s.Autoneg {
		p.advertising = adv
	}
	if !p.started() {
		return nil
	}
	if err := p.startAneg(); err != nil {
		return fmt.Errorf("phy: set link settings: %w", err)
	}
	return nil
}

// WaitLink blocks until the state machine reports link, looking every
// WaitLinkStep of guest time (kernel Delay: in discrete-event mode the delay
// runs the machine, its timers and interrupts). It returns ErrNoLink, wrapped
// with the state, after timeout. Call it from the boot goroutine, never from
// an interrupt handler or timer.
func (p *PHY) WaitLink(timeout emu.Time) error {
	var waited emu.Time
	for {
		info := p.snapshot().info
		if info.Link && info.State == StateRunning {
			return nil
		}
		if info.State < StateUp {
			if info.LastError != nil {
				return fmt.Errorf("phy wait link: state %s: %w", info.State, info.LastError)
			}
			return fmt.Errorf("phy wait link: state %s: not started", info.State)
		}
		if waited >= timeout {
			return fmt.Errorf("phy wait link: %w after %.3f s (state %s)", ErrNoLink, waited.Seconds(), info.State)
		}
		step := min(WaitLinkStep, timeout-waited)
		p.k.Delay(step)
		waited += step
	}
}
