// Package phy models the Odroid-C1's Realtek RTL8211F gigabit PHY.
// Hardware side: registers on the MDIO bus and the delays the RGMII wire reads.
//
// It models the Realtek RTL8211F gigabit PHY of the Odroid-C1 as the
// MAC's MDIO master and the RGMII wire see it: the Clause-22 and paged
// extended registers, autonegotiation against a configurable link partner,
// latched-low link status, the link-change interrupt, and the internal RGMII
// delays whose bits the wire model reads.
//
// Every method runs with the machine lock held (ReadMII/WriteMII are called by
// the MDIO bus from the MAC model; SetCable and the outputs by the assembly),
// except New, which takes the lock itself. Changes the guest does not cause
// (SetCable, PinReset) are best made from a machine event (m.At): the emu
// core delivers an interrupt raised there at that instant, while one raised
// from outside an event waits for the next delivery point.
//
// Assumptions beyond docs/reference/rtl8211f.md, each also noted where it is made: power-on
// ANAR 0x01e1, GBCR 0x0300, ESTATUS 0x3000 (1000BASE-T half and full), PHYCR1 0;
// page select 12 bits wide; no page-0 aliases of the extended registers;
// unknown bits of the extended registers read 0 and ignore writes; INSR latches
// only while INER enables the bit; a soft reset restores every page (delays
// to the straps) and ignores MDIO writes for ResetTime; master/slave resolves
// to slave; forced 1000 never links; timing in config.go.
package phy

import (
	"mesonemu/emu"
	"mesonemu/mdio"
	"mesonemu/reg"
)

// LinkState is the media link as the wire and the MAC see it.
type LinkState struct {
	Up         bool
	Speed      int // 1000, 100 or 10 Mbit/s; 0 while down
	FullDuplex bool
}

// RTL8211F is one PHY instance. It implements mdio.Device.
type RTL8211F struct {
	m   *emu.Machine
	cfg Config

	tables []reg.Block // blocks(): base, then extPages
	base   *reg.File
	pages  map[uint16]*reg.File

	cable      bool      // a cable with a live partner is attached
	media      LinkState // the link on the cable (BMSR reports it, latched)
	latchedLow bool      // link dropped since BMSR was last read
	resetting  bool      // BMCR.RESET in progress: writes are ignored

	pending *emu.Event // the one scheduled link event (AN, forced link, reset end)

	onChange func()
	last     outputs
}

// outputs is what the assembly reconfigures the wire from.
type outputs struct {
	link   LinkState
	tx, rx bool
}

var _ mdio.Device = (*RTL8211F)(nil)

// New powers a PHY on: registers at their power-on values with the delay bits
// from the straps and, with a cable and AN enabled by default, negotiation
// running. Call it without the machine lock (it schedules the first event).
func New(m *emu.Machine, cfg Config) (*RTL8211F, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p := &RTL8211F{m: m, cfg: cfg.withDefaults(), pages: map[uint16]*reg.File{}}
	p.tables = p.blocks()
	p.base = reg.NewFile(&p.tables[0])
	for i, page := range extPages {
		p.pages[page] = reg.NewFile(&p.tables[i+1])
	}
	p.cable = !cfg.CableUnplugged
	m.Lock()
	defer m.Unlock()
	p.applyStraps()
	p.startLink()
	p.last = p.outputs()
	return p, nil
}

// Name names the device in traces.
func (p *RTL8211F) Name() string { return "rtl8211f" }

// OnChange registers fn, called (lock held) whenever Link(), TXDelayEnabled() or
// RXDelayEnabled() changes, so the wire is rebuilt only on change.
func (p *RTL8211F) OnChange(fn func()) { p.onChange = fn }

// Link is the link as the RGMII side sees it: down while powered down or
// isolated, whatever the cable does.
func (p *RTL8211F) Link() LinkState {
	if !p.media.Up || p.base.Get(off(regBMCR))&reg.Masks(bmcrIsolate, bmcrPowerDown) != 0 {
		return LinkState{}
	}
	return p.media
}

// TXDelayEnabled reports the internal 2 ns TX delay bit (page 0xd08 reg 0x11 bit 8).
func (p *RTL8211F) TXDelayEnabled() bool {
	return p.pages[pageMIICtrl].Get(off(regTXDLY))&txDelayBit.Mask() != 0
}

// RXDelayEnabled reports the internal 2 ns RX delay bit (page 0xd08 reg 0x15 bit 3).
func (p *RTL8211F) RXDelayEnabled() bool {
	return p.pages[pageMIICtrl].Get(off(regRXDLY))&rxDelayBit.Mask() != 0
}

// Page is the current value of the page select register.
func (p *RTL8211F) Page() uint16 { return uint16(p.base.Get(off(regPAGSR))) }

// ReadMII is a Clause-22 read: the register's table entry with its read hooks
// (regs.go), which give the side effects silicon has (BMSR releases the
// latched-low link bit, INSR clears). Unknown registers read 0.
func (p *RTL8211F) ReadMII(r uint8) uint16 {
	if f := p.fileOf(r); f != nil {
		v, _ := f.GuestRead(off(r))
		return uint16(v)
	}
	return 0
}

// WriteMII is a Clause-22 write: the register's table entry with its access
// rules and write hooks (regs.go); read-only bits and unknown registers ignore it,
// and so does the whole PHY while a reset is in progress.
func (p *RTL8211F) WriteMII(r uint8, v uint16) {
	if r >= 32 || p.resetting {
		return
	}
	if f := p.fileOf(r); f != nil {
		f.GuestWrite(off(r), uint32(v))
	}
	p.notify()
}

// fileOf is the register file that holds register r now: the base registers
// ignore the page select, the others belong to the selected page (nil: none).
func (p *RTL8211F) fileOf(r uint8) *reg.File {
	switch {
	case r >= 32:
		return nil
	case isBase(r):
		return p.base
	}
	return p.pages[p.Page()]
}

// isBase reports whether register r ignores the page select.
func isBase(r uint8) bool { return r <= 0x0f || r == regPAGSR }

// bmsrValue is the value a BMSR read returns from the stored one: the abilities
// and AN state with the link bit low if the link is down now or dropped since
// the last read.
func (p *RTL8211F) bmsrValue(v uint32) uint32 {
	return bmsrLinkStatus.Set(v, b2u(p.media.Up && !p.latchedLow))
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// applyStraps loads the delay bits from the RXD1/RXD0 straps.
func (p *RTL8211F) applyStraps() {
	f := p.pages[pageMIICtrl]
	setBit(f, regTXDLY, txDelayBit, p.cfg.TXDelayStrap)
	setBit(f, regRXDLY, rxDelayBit, p.cfg.RXDelayStrap)
}

// setBit is a hardware-side update of one bit of register r in f.
func setBit(f *reg.File, r uint8, bit reg.Field, on bool) {
	f.Set(off(r), bit.Set(f.Get(off(r)), b2u(on)))
}

// bmcrWritten follows a stored guest BMCR write and starts whatever it implies;
// RESET resets every register, the write included.
func (p *RTL8211F) bmcrWritten(old, cur uint32) {
	if cur&bmcrReset.Mask() != 0 {
		p.softReset()
		return
	}
	on := func(v uint32, f reg.Field) bool { return v&f.Mask() != 0 }
	anEnabled := on(cur, bmcrANEnable)
	forcedBits := reg.Masks(bmcrSpeed100, bmcrSpeed1000, bmcrFullDplx)
	switch {
	case on(cur, bmcrPowerDown):
		if !on(old, bmcrPowerDown) {
			p.stopLink()
		}
		setBit(p.base, regBMCR, bmcrANRestart, false)
	case on(old, bmcrPowerDown):
		p.startLink()
	case anEnabled && (!on(old, bmcrANEnable) || on(cur, bmcrANRestart)):
		p.startAutoneg()
	case !anEnabled && (on(old, bmcrANEnable) || (old^cur)&forcedBits != 0):
		p.startForced()
	}
	if !anEnabled {
		// IEEE 802.3 22.2.4.1.7: restart has no meaning without AN.
		setBit(p.base, regBMCR, bmcrANRestart, false)
	}
}

// softReset is BMCR.RESET: every register (all pages) back to its power-on
// value, the delay bits back to the straps, and the link restarted once the
// reset completes. Which extended registers a soft reset really restores is
// UNCONFIRMED; Linux programs the delays after resetting, so it cannot tell.
func (p *RTL8211F) softReset() {
	p.stopLink()
	p.base.Reset()
	for _, f := range p.pages {
		f.Reset()
	}
	p.applyStraps()
	p.updateIRQ()
	setBit(p.base, regBMCR, bmcrReset, true)
	p.resetting = true
	p.pending = p.m.After(p.cfg.ResetTime, func() {
		p.pending = nil
		p.resetting = false
		setBit(p.base, regBMCR, bmcrReset, false)
		p.startLink()
		p.notify()
	})
}

// PinReset is the hardware reset pin (GPIOH_4 on the Odroid-C1) pulsed: the
// same as a soft reset as far as the registers go. Lock held.
func (p *RTL8211F) PinReset() {
	p.resetting = false
	p.softReset()
	p.notify()
}

// SetCable plugs the cable in or pulls it. Pulling drops the link (latched low,
// link-change interrupt); plugging in restarts AN or the forced link. Lock held.
func (p *RTL8211F) SetCable(connected bool) {
	if connected == p.cable {
		return
	}
	p.cable = connected
	if connected {
		if !p.resetting {
			p.startLink()
		}
	} else {
		p.linkDown()
	}
	p.notify()
}

// Cable reports whether the cable is plugged in.
func (p *RTL8211F) Cable() bool { return p.cable }

// notify calls the OnChange hook when an output changed.
func (p *RTL8211F) notify() {
	now := p.outputs()
	if now == p.last {
		return
	}
	p.last = now
	if p.onChange != nil {
		p.onChange()
	}
}

func (p *RTL8211F) outputs() outputs {
	return outputs{link: p.Link(), tx: p.TXDelayEnabled(), rx: p.RXDelayEnabled()}
}
