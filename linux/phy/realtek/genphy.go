package realtek

import (
	"errors"
	"fmt"

	"mesonemu/emu"
)

// genphy: the Clause-22 code of drivers/net/phy/phy_device.c (v5.5) the
// RTL8211F driver falls back to (it has no config_aneg, read_status or
// soft_reset of its own).

// errResetTimeout is phy_poll_reset's -ETIMEDOUT.
var errResetTimeout = errors.New("BMCR reset did not clear within 600 ms")

// errMasterSlave is genphy_read_lpa's -ENOLINK on a master/slave fault.
var errMasterSlave = errors.New("master/slave resolution failed")

// SoftReset is genphy_soft_reset: BMCR reset (with restart-AN when AN is on,
// isolate cleared), poll every 50 ms until the bit self-clears (at most 12
// polls, 0.6 s), wait 1 ms, and re-apply forced settings when AN is off.
// It sleeps, so call it from process context (never from the OnLink callback).
func (p *PHY) SoftReset() error {
	p.lock()
	res := uint16(bmcrReset)
	if p.autoneg {
		res |= bmcrANRestart
	}
	err := p.modify(miiBMCR, bmcrIsolate, res)
	p.unlock()
	if err != nil {
		return fmt.Errorf("genphy soft reset: %w", err)
	}
	if err := p.pollReset(); err != nil {
		return fmt.Errorf("genphy soft reset: %w", err)
	}
	p.lock()
	defer p.unlock()
	if !p.autoneg {
		if err := p.setupForced(); err != nil {
			return fmt.Errorf("genphy soft reset: %w", err)
		}
	}
	return nil
}

// pollReset is phy_poll_reset. The lock is taken per read only, never across
// the sleeps.
func (p *PHY) pollReset() error {
	for i := 0; i < phyPollResetRetries; i++ {
		p.k.Delay(phyPollResetInterval * emu.Millisecond)
		p.lock()
		v, err := p.read(miiBMCR)
		p.unlock()
		if err != nil {
			return err
		}
		if v&bmcrReset == 0 {
			p.k.Delay(phyPollResetAfterWait * emu.Millisecond)
			return nil
		}
	}
	return errResetTimeout
}

// configAneg is genphy_config_aneg (__genphy_config_aneg with changed = false;
// no EEE broken modes are configured, so genphy_config_eee_advert does nothing).
func (p *PHY) configAneg() error {
	if !p.autoneg {
		return p.setupForced()
	}
	changed, err := p.configAdvert()
	if err != nil {
		return err
	}
	if !changed {
		// "Advertisement hasn't changed, but maybe aneg was never on to begin
		// with? Or maybe phy was isolated?"
		bmcr, err := p.read(miiBMCR)
		if err != nil {
			return err
		}
		if bmcr&bmcrANEnable == 0 || bmcr&bmcrIsolate != 0 {
			changed = true
		}
	}
	if changed {
		return p.restartAneg()
	}
	return nil
}

// configAdvert is genphy_config_advert: ANAR's 10/100/T4/pause bits, then, if
// BMSR says extended status exists, GBCR's 1000 bits. Reports a change.
func (p *PHY) configAdvert() (bool, error) {
	changed, err := p.modifyChanged(miiADVERTISE,
		advertiseAll|advertise100Base4|advertisePauseCap|advertisePauseAsm, advToMII(p.advertising))
	if err != nil {
		return false, err
	}
	bmsr, err := p.read(miiBMSR)
	if err != nil {
		return false, err
	}
	if bmsr&bmsrESTATEN == 0 {
		return changed, nil
	}
	c, err := p.modifyChanged(miiCTRL1000, advertise1000Full|advertise1000Half, advToCtrl1000(p.advertising))
	if err != nil {
		return false, err
	}
	return changed || c, nil
}

// restartAneg is genphy_restart_aneg.
func (p *PHY) restartAneg() error {
	return p.modify(miiBMCR, bmcrIsolate, bmcrANEnable|bmcrANRestart)
}

// setupForced is genphy_setup_forced: speed and duplex into BMCR, AN off,
// keeping loopback, isolate and power-down.
func (p *PHY) setupForced() error {
	p.pause, p.asymPause = false, false
	var ctl uint16
	switch p.forcedSpeed {
	case 1000:
		ctl |= bmcrSpeed1000
	case 100:
		ctl |= bmcrSpeed100
	}
	if p.forcedFull {
		ctl |= bmcrFullDplx
	}
	return p.modify(miiBMCR, ^uint16(bmcrLoopback|bmcrIsolate|bmcrPDown), ctl)
}

// updateLink is genphy_update_link (v5.4+): a pending restart-AN means link
// down; BMSR's latched-low link bit is read twice in interrupt mode (keep the
// second value unless the first already says up) and once in polling mode,
// so a short drop between polls is still seen (93c0970493c7, v5.1). An AN
// that has not completed also means link down.
func (p *PHY) updateLink() error {
	bmcr, err := p.read(miiBMCR)
	if err != nil {
		return err
	}
	var status uint16
	if bmcr&bmcrANRestart == 0 {
		status, err = p.read(miiBMSR)
		if err != nil {
			return err
		}
		if p.interrupts && status&bmsrLStatus == 0 {
			if status, err = p.read(miiBMSR); err != nil {
				return err
			}
		}
	}
	p.link = status&bmsrLStatus != 0
	p.autonegComplete = status&bmsrANComplete != 0
	if p.autoneg && !p.autonegComplete {
		p.link = false
	}
	return nil
}

// readLPA is genphy_read_lpa.
func (p *PHY) readLPA() error {
	if !p.autoneg {
		p.lpAdvertising = 0
		return nil
	}
	if !p.autonegComplete {
		p.lpAdvertising = 0
		return nil
	}
	stat, err := p.read(miiSTAT1000)
	if err != nil {
		return err
	}
	if stat&lpa1000MSFail != 0 {
		ctl, err := p.read(miiCTRL1000)
		if err != nil {
			return err
		}
		if ctl&ctl1000EnableMstr != 0 {
			return fmt.Errorf("%w, maybe conflicting manual settings?", errMasterSlave)
		}
		return errMasterSlave
	}
	lpa, err := p.read(miiLPA)
	if err != nil {
		return err
	}
	p.lpAdvertising = stat1000ToModes(stat) | lpaToModes(lpa)
	return nil
}

// readStatus is genphy_read_status.
func (p *PHY) readStatus() error {
	oldLink := p.link
	if err := p.updateLink(); err != nil {
		return err
	}
	// "why bother the PHY if nothing can have changed"
	if p.autoneg && oldLink && p.link {
		return nil
	}
	p.speed, p.duplexKnown, p.fullDuplex = 0, false, false
	p.pause, p.asymPause = false, false
	if err := p.readLPA(); err != nil {
		return err
	}
	switch {
	case p.autoneg && p.autonegComplete:
		p.resolveAneg()
	case !p.autoneg:
		bmcr, err := p.read(miiBMCR)
		if err != nil {
			return err
		}
		p.duplexKnown, p.fullDuplex = true, bmcr&bmcrFullDplx != 0
		switch {
		case bmcr&bmcrSpeed1000 != 0:
			p.speed = 1000
		case bmcr&bmcrSpeed100 != 0:
			p.speed = 100
		default:
			p.speed = 10
		}
	}
	return nil
}

// resolveAneg is phy_resolve_aneg_linkmode: the first setting common to our
// advertisement and the partner's, then pause from the partner when full duplex.
func (p *PHY) resolveAneg() {
	common := p.advertising & p.lpAdvertising
	for _, s := range settings {
		if common&s.mode != 0 {
			p.speed, p.fullDuplex, p.duplexKnown = s.speed, s.full, true
			break
		}
	}
	if p.duplexKnown && p.fullDuplex {
		p.pause = p.lpAdvertising&LinkPause != 0
		p.asymPause = p.lpAdvertising&LinkAsymPause != 0
	}
}

// ReadStatus runs genphy_read_status once and returns what it found. The
// state machine calls the same code; this is for tests and diagnostics.
func (p *PHY) ReadStatus() (up bool, speed int, fullDuplex bool, err error) {
	p.lock()
	defer p.unlock()
	err = p.readStatus()
	return p.link, p.speed, p.fullDuplex, err
}

// resume is genphy_resume: clear BMCR power-down (written only if set).
func (p *PHY) resume() error { return p.modify(miiBMCR, bmcrPDown, 0) }

// suspend is genphy_suspend: set BMCR power-down.
func (p *PHY) suspend() error { return p.modify(miiBMCR, 0, bmcrPDown) }
