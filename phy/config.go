package phy

import (
	"cmp"
	"fmt"

	"mesonemu/emu"
)

// Modes is a set of twisted-pair speed/duplex abilities.
type Modes uint8

// The abilities, one bit each.
const (
	Mode10Half Modes = 1 << iota
	Mode10Full
	Mode100Half
	Mode100Full
	Mode1000Half
	Mode1000Full
)

// DefaultPartnerModes is what the far end (a PC's gigabit NIC) advertises unless
// the configuration says otherwise: 1000/100/10 full duplex.
const DefaultPartnerModes = Mode10Full | Mode100Full | Mode1000Full

// resolutionOrder is the IEEE 802.3 Annex 28B.3 priority among the modes the
// RTL8211F has: the highest common entry wins.
var resolutionOrder = []struct {
	mode  Modes
	speed int
	full  bool
}{
	{Mode1000Full, 1000, true},
	{Mode1000Half, 1000, false},
	{Mode100Full, 100, true},
	{Mode100Half, 100, false},
	{Mode10Full, 10, true},
	{Mode10Half, 10, false},
}

// Best is the highest-priority mode in the set; ok is false for an empty set.
func (m Modes) Best() (speed int, fullDuplex bool, ok bool) {
	for _, r := range resolutionOrder {
		if m&r.mode != 0 {
			return r.speed, r.full, true
		}
	}
	return 0, false, false
}

// Speed reports whether the set has any mode at speed s.
func (m Modes) Speed(s int) bool {
	for _, r := range resolutionOrder {
		if m&r.mode != 0 && r.speed == s {
			return true
		}
	}
	return false
}

// Limit drops every mode faster than maxSpeed (0 keeps all).
func (m Modes) Limit(maxSpeed int) Modes {
	if maxSpeed <= 0 {
		return m
	}
	out := m
	for _, r := range resolutionOrder {
		if r.speed > maxSpeed {
			out &^= r.mode
		}
	}
	return out
}

// Partner describes the link partner at the other end of the cable.
type Partner struct {
	// Modes it advertises; 0 means DefaultPartnerModes.
	Modes Modes
	// Pause and AsymPause are its ANLPAR pause bits. Assumption: a PC NIC
	// advertises symmetric pause only (e1000e's default "full" flow control).
	Pause, AsymPause bool
	// MaxSpeed limits its advertisement (the user's --speed 100): 0, 10, 100, 1000.
	MaxSpeed int
}

// Timing defaults in virtual time.
const (
	// DefaultAutonegTime is how long autonegotiation takes from (re)start to link.
	// Derivation (IEEE 802.3 figures as recalled, UNCONFIRMED): FLP bursts every
	// 16 ± 8 ms (Clause 28), each page acknowledged after several identical
	// bursts (~0.1 s per page); 1000BASE-T exchanges the base page plus the
	// message and two unformatted next pages (Clause 40.5.1.2), ~0.4-0.5 s; then
	// PMA training and master/slave resolution within link_fail_inhibit_timer
	// (750-1000 ms). That is ~1.2-1.5 s at best; gigabit PHYs commonly report
	// link 2-3 s after a restart. 2 s sits in the brief's 1.5-3 s band.
	DefaultAutonegTime = 2 * emu.Second
	// DefaultForcedLinkTime is the time from a forced-mode BMCR write to link.
	// Assumption: 100BASE-TX/10BASE-T need no page exchange; the partner's
	// parallel detection still waits out its link_fail_inhibit_timer, so ~1 s.
	DefaultForcedLinkTime = 1 * emu.Second
	// DefaultResetTime is how long BMCR.RESET reads 1 after a soft reset.
	// Assumption: the RTL8211F figure is not public; IEEE 802.3 22.2.4.1.1 allows
	// up to 0.5 s. Linux first polls after 50 ms, so any value below that reads
	// the same to the guest.
	DefaultResetTime = 1 * emu.Millisecond
)

// Config is one PHY instance's board wiring.
type Config struct {
	// TXDelayStrap and RXDelayStrap are the RXD1 and RXD0 pin straps, the
	// power-on (and post-reset) values of the internal TX and RX delay bits
	// (docs/reference/rtl8211f.md §3). The Odroid-C1 straps are UNCONFIRMED; the assembly picks.
	TXDelayStrap, RXDelayStrap bool
	// Partner is the far end. Its zero value is the default partner.
	Partner Partner
	// CableUnplugged starts the PHY without a cable (zero value: plugged in).
	CableUnplugged bool
	// IRQ is the PHY's interrupt line (GPIOH_3, level-low on the Odroid-C1),
	// modelled as asserted while an enabled interrupt is pending. May be nil.
	IRQ *emu.IRQ
	// AutonegTime, ForcedLinkTime and ResetTime override the defaults when > 0.
	AutonegTime, ForcedLinkTime, ResetTime emu.Time
}

// validate checks what a user can type (the partner speed limit).
func (c *Config) validate() error {
	switch c.Partner.MaxSpeed {
	case 0, 10, 100, 1000:
	default:
		return fmt.Errorf("rtl8211f: partner speed limit %d Mbit/s: want 10, 100 or 1000", c.Partner.MaxSpeed)
	}
	if c.AutonegTime < 0 || c.ForcedLinkTime < 0 || c.ResetTime < 0 {
		return fmt.Errorf("rtl8211f: negative timing (autoneg %d, forced %d, reset %d ns)",
			c.AutonegTime, c.ForcedLinkTime, c.ResetTime)
	}
	return nil
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	c.Partner.Modes = cmp.Or(c.Partner.Modes, DefaultPartnerModes)
	c.AutonegTime = cmp.Or(c.AutonegTime, DefaultAutonegTime)
	c.ForcedLinkTime = cmp.Or(c.ForcedLinkTime, DefaultForcedLinkTime)
	c.ResetTime = cmp.Or(c.ResetTime, DefaultResetTime)
	return c
}
