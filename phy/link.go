package phy

import (
	"mesonemu/emu"
	"mesonemu/reg"
)

// Link bring-up: autonegotiation, forced mode, link loss and the link-change
// interrupt. All of it runs with the machine lock held.

// startLink begins whatever the BMCR says the PHY should do to get a link.
func (p *RTL8211F) startLink() {
	bmcr := p.base.Get(off(regBMCR))
	switch {
	case bmcr&bmcrPowerDown.Mask() != 0:
		p.stopLink()
	case bmcr&bmcrANEnable.Mask() != 0:
		p.startAutoneg()
	default:
		p.startForced()
	}
}

// stopLink cancels any negotiation in progress and drops the link.
func (p *RTL8211F) stopLink() {
	p.cancelPending()
	p.linkDown()
}

func (p *RTL8211F) cancelPending() {
	if p.pending != nil {
		p.m.Cancel(p.pending)
		p.pending = nil
	}
}

// startAutoneg (re)starts negotiation: a link that is up breaks (IEEE 802.3
// break_link_timer), and after AutonegTime the result is resolved. BMCR bit 9
// stays set until then, as docs/reference/rtl8211f.md §7.5 describes.
func (p *RTL8211F) startAutoneg() { p.settleLink(p.cfg.AutonegTime, p.autonegDone) }

// autonegDone resolves the highest common mode of the local ANAR/GBCR and the
// partner (docs/reference/rtl8211f.md §7.5). Without a cable the attempt just ends: the
// restart bit clears and the link stays down until the cable comes back.
func (p *RTL8211F) autonegDone() {
	setBit(p.base, regBMCR, bmcrANRestart, false)
	if !p.cable {
		return
	}
	partner := p.cfg.Partner.Modes.Limit(p.cfg.Partner.MaxSpeed)
	p.base.Set(off(regANLPAR), uint32(p.partnerPage(partner)))
	gbsr := uint32(0)
	if partner&Mode1000Full != 0 {
		gbsr |= gbsrLP1000Full.Mask()
	}
	if partner&Mode1000Half != 0 {
		gbsr |= gbsrLP1000Half.Mask()
	}
	aner := p.base.Get(off(regANER)) | anerLPANAble.Mask()
	if partner&(Mode1000Full|Mode1000Half) != 0 {
		aner |= anerLPNPAble.Mask()
	}
	p.base.Set(off(regANER), aner)
	speed, full, ok := (p.localModes() & partner).Best()
	if !ok {
		// Priority resolution found nothing in common: no link (IEEE 802.3 28B.3).
		p.base.Set(off(regGBSR), gbsr)
		return
	}
	if speed == 1000 {
		// Both PMAs trained: local and remote receiver OK. Master/slave
		// resolution reads as slave (bit 14 clear), fault bit 15 clear.
		gbsr |= reg.Masks(gbsrLocalRxOK, gbsrRemoteRxOK)
	}
	p.base.Set(off(regGBSR), gbsr)
	setBit(p.base, regBMSR, bmsrANComplete, true)
	p.linkUp(LinkState{Up: true, Speed: speed, FullDuplex: full})
}

// partnerPage is the partner's base page as ANLPAR shows it: selector, the
// 10/100 abilities, pause, the acknowledge bit and, when it is 1000BASE-T
// capable, next page (the 1000BASE-T abilities travel in next pages).
func (p *RTL8211F) partnerPage(partner Modes) uint16 {
	v := advSelector.Set(lpaAck.Mask(), selector802_3)
	for _, b := range []struct {
		on  bool
		bit reg.Field
	}{
		{partner&Mode10Half != 0, adv10Half}, {partner&Mode10Full != 0, adv10Full},
		{partner&Mode100Half != 0, adv100Half}, {partner&Mode100Full != 0, adv100Full},
		{p.cfg.Partner.Pause, advPause}, {p.cfg.Partner.AsymPause, advAsymPause},
		{partner&(Mode1000Full|Mode1000Half) != 0, advNextPage},
	} {
		if b.on {
			v |= b.bit.Mask()
		}
	}
	return uint16(v)
}

// localModes is the local advertisement from ANAR and GBCR.
func (p *RTL8211F) localModes() Modes {
	anar := p.base.Get(off(regANAR))
	gbcr := p.base.Get(off(regGBCR))
	var m Modes
	for _, b := range []struct {
		v    uint32
		bit  reg.Field
		mode Modes
	}{
		{anar, adv10Half, Mode10Half}, {anar, adv10Full, Mode10Full},
		{anar, adv100Half, Mode100Half}, {anar, adv100Full, Mode100Full},
		{gbcr, gbcr1000Half, Mode1000Half}, {gbcr, gbcr1000Full, Mode1000Full},
	} {
		if b.v&b.bit.Mask() != 0 {
			m |= b.mode
		}
	}
	return m
}

// startForced brings the link up at the BMCR's forced speed and duplex after
// ForcedLinkTime, if the partner has that speed at all (it follows by parallel
// detection). 1000BASE-T cannot run without AN (IEEE 802.3 40.5.1), and speed
// bits 6 and 13 both set are reserved: neither links.
func (p *RTL8211F) startForced() { p.settleLink(p.cfg.ForcedLinkTime, p.forcedDone) }

// settleLink breaks the link and, after d, resolves it anew and tells the listener.
func (p *RTL8211F) settleLink(d emu.Time, resolve func()) {
	p.stopLink()
	p.pending = p.m.After(d, func() {
		p.pending = nil
		resolve()
		p.notify()
	})
}

func (p *RTL8211F) forcedDone() {
	bmcr := p.base.Get(off(regBMCR))
	if !p.cable || bmcr&reg.Masks(bmcrANEnable, bmcrPowerDown) != 0 {
		return
	}
	var speed int
	switch bmcr & reg.Masks(bmcrSpeed100, bmcrSpeed1000) {
	case 0:
		speed = 10
	case bmcrSpeed100.Mask():
		speed = 100
	default:
		return
	}
	if !p.cfg.Partner.Modes.Limit(p.cfg.Partner.MaxSpeed).Speed(speed) {
		return
	}
	p.linkUp(LinkState{Up: true, Speed: speed, FullDuplex: bmcr&bmcrFullDplx.Mask() != 0})
}

// linkUp records a new link and raises the link-change interrupt.
func (p *RTL8211F) linkUp(l LinkState) {
	p.media = l
	p.setPHYSR()
	p.linkChanged()
}

// linkDown drops the link: BMSR's link bit latches low until read, the AN
// result is withdrawn, and the link-change interrupt is raised. A link that
// is already down changes nothing.
func (p *RTL8211F) linkDown() {
	setBit(p.base, regBMSR, bmsrANComplete, false)
	p.base.Set(off(regANLPAR), 0)
	p.base.Set(off(regGBSR), 0)
	p.base.Set(off(regANER), p.base.Get(off(regANER))&^reg.Masks(anerLPANAble, anerLPNPAble))
	if !p.media.Up {
		return
	}
	p.media = LinkState{}
	p.latchedLow = true
	p.setPHYSR()
	p.linkChanged()
}

// setPHYSR mirrors the link into page 0xa43's real-time status register.
func (p *RTL8211F) setPHYSR() {
	var v uint32
	if p.media.Up {
		v = reg.Masks(physrLink, physrSpeedResolv)
		if p.media.FullDuplex {
			v |= physrFullDuplex.Mask()
		}
		switch p.media.Speed {
		case 100:
			v = physrSpeed.Set(v, 1)
		case 1000:
			v = physrSpeed.Set(v, 2)
		}
	}
	p.pages[pageStatus].Set(off(regPHYSR), v)
}

// linkChanged latches INSR's link bit when INER enables it and drives the
// interrupt line (docs/reference/rtl8211f.md §4: latch only with INER bit 4 set).
func (p *RTL8211F) linkChanged() {
	if p.pages[pageIntr].Get(off(regINER))&intrLinkChange.Mask() == 0 {
		return
	}
	f := p.pages[pageStatus]
	f.Set(off(regINSR), f.Get(off(regINSR))|intrLinkChange.Mask())
	p.updateIRQ()
}

// updateIRQ asserts the line while an enabled interrupt is pending in INSR.
func (p *RTL8211F) updateIRQ() {
	if p.cfg.IRQ == nil {
		return
	}
	pending := p.pages[pageStatus].Get(off(regINSR)) & p.pages[pageIntr].Get(off(regINER))
	p.cfg.IRQ.Set(pending != 0)
}
