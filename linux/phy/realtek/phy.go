// Package realtek is Linux v5.5's RTL8211F driver and genphy code, ported to Go.
// Guest side: it talks to the PHY only through the MAC's MDIO registers.
//
// It is the guest side of the PHY: Linux v5.5's Realtek RTL8211F
// driver (drivers/net/phy/realtek.c) with the generic Clause-22 code it relies
// on (genphy in phy_device.c) and the phylib state machine (phy.c), ported to
// Go. It reaches the PHY only through an MDIO interface that the stmmac guest
// driver implements, and time and its interrupt only through kernel.Kernel.
//
// The boot sequence (the assembly's, in Linux's order) is
//
//	p, err := realtek.Probe(mdio, kernel, cfg) // get_phy_id + driver match
//	p.OnLink(stmmacLinkChange)                 // phylink's phy_link_change
//	err = p.Attach()                           // phy_attach_direct: config_init, resume, IRQ
//	err = p.Start()                            // phy_start at ndo_open
//	err = p.WaitLink(10 * emu.Second)          // discrete-event boots
//
// Contexts. Probe, Attach, Start, Stop, SetLinkSettings, SoftReset, ConfigInit,
// ConfigIntr, AckInterrupt, ReadStatus and WaitLink sleep (MDIO) and belong to
// process context: the boot goroutine or a CLI goroutine, never an interrupt
// handler or timer. Info, Link and Status never block and may be called from
// anywhere. The state machine and the threaded interrupt run as deferred work
// (work.go); OnLink callbacks run from that work after the driver's lock is
// released, so they may call Info/Link/Status but must not sleep.
//
// Assumptions beyond docs/reference/rtl8211f.md: DefaultAdvertising (stmmac's phylink mask);
// polling mode reads BMSR once per poll as v5.1-v5.6 do; Linux's UP -> NOLINK
// transition notifies "link down" once before the first link up, as v5.5 does.
package realtek

import (
	"errors"
	"fmt"
	"sync"

	"mesonemu/linux/kernel"
)

// DelayPolicy chooses which kernel's rtl8211f_config_init programs the delays.
type DelayPolicy int

const (
	// DelaysV55 is Linux up to v5.5 (the Dec 2019 fix's kernel): the TX delay
	// bit follows phy-mode (rgmii-id / rgmii-txid on, everything else off) and
	// the RX delay bit stays at its pin strap.
	DelaysV55 DelayPolicy = iota
	// DelaysV56 is commit 1b3047b5208a (~v5.6): both bits follow phy-mode
	// (rgmii: both off, rgmii-id: both on, rgmii-txid: TX only, rgmii-rxid:
	// RX only) and other modes leave both as they are, written only when they
	// change (phy_modify_paged_changed).
	DelaysV56
)

func (d DelayPolicy) String() string {
	switch d {
	case DelaysV55:
		return "v5.5"
	case DelaysV56:
		return "v5.6"
	}
	return fmt.Sprintf("DelayPolicy(%d)", int(d))
}

// Config is what the device tree and the MAC driver tell the PHY driver.
type Config struct {
	// Addr is the PHY's MDIO address (the ethernet-phy node's reg; 0 on Odroid-C1).
	Addr int
	// Interface is the DT phy-mode: "rgmii", "rgmii-id", "rgmii-txid",
	// "rgmii-rxid", or anything else (then treated as a non-RGMII mode).
	Interface string
	// Delays picks the config_init behaviour; the zero value is v5.5.
	Delays DelayPolicy
	// IRQ is the PHY interrupt (the DT's interrupts property); 0 means
	// PHY_POLL: the state machine polls every second.
	IRQ kernel.IRQ
	// Advertising is the initial advertisement; 0 means DefaultAdvertising.
	Advertising LinkModes
	// SoftResetOnInit runs genphy_soft_reset before config_init. v5.5 does not:
	// phy_init_hw only calls a driver's own soft_reset (since 6e2d85ec0559,
	// v4.15), and the v5.5 RTL8211F entry has none.
	SoftResetOnInit bool
	// Log, if set, receives the kernel-log lines the driver prints.
	Log func(msg string)
}

// State is the phylib state (enum phy_state, v5.5).
type State int

// The states in phylib's order: "started" means Up or later.
const (
	StateDown State = iota
	StateReady
	StateHalted
	StateUp
	StateRunning
	StateNoLink
)

func (s State) String() string {
	switch s {
	case StateDown:
		return "DOWN"
	case StateReady:
		return "READY"
	case StateHalted:
		return "HALTED"
	case StateUp:
		return "UP"
	case StateRunning:
		return "RUNNING"
	case StateNoLink:
		return "NOLINK"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// PHY is one bound PHY device (struct phy_device with its driver).
type PHY struct {
	bus MDIO
	k   kernel.Kernel
	cfg Config
	id  uint32

	// mu is phydev->lock; it also serialises MDIO sequences (the bus lock of
	// paged accesses) and is held across the MDIO master's sleeps, as Linux
	// holds it. Atomic contexts never wait for it (work.go).
	mu    sync.Mutex
	state State
	timer kernel.Timer

	// phydev fields.
	autoneg          bool
	forcedSpeed      int
	forcedFull       bool
	advertising      LinkModes
	lpAdvertising    LinkModes
	link             bool
	autonegComplete  bool
	speed            int // 0: unknown
	fullDuplex       bool
	duplexKnown      bool
	pause, asymPause bool
	interrupts       bool // PHY_INTERRUPT_ENABLED; false: PHY_POLL
	lastErr          error

	onLink  func(up bool, speed int, fullDuplex bool)
	pending []linkEvent // link changes to deliver once mu is released

	work   workFlags // deferred work from atomic context (work.go)
	snapMu sync.Mutex
	snap   snapshot // what Info/Link/Status read
}

type linkEvent struct {
	up         bool
	speed      int
	fullDuplex bool
}

// ErrNoLink is what WaitLink returns when the timeout passes without link.
var ErrNoLink = errors.New("no link")

// Probe reads the PHY identifier at cfg.Addr and binds the RTL8211F driver if
// it matches 0x001cc916 under mask 0x001fffff (get_phy_id + phy_bus_match).
func Probe(bus MDIO, k kernel.Kernel, cfg Config) (*PHY, error) {
	if cfg.Addr < 0 || cfg.Addr > 31 {
		return nil, fmt.Errorf("phy probe: MDIO address %d outside 0..31", cfg.Addr)
	}
	p := &PHY{bus: bus, k: k, cfg: cfg, state: StateDown, autoneg: true}
	id1, err := p.read(miiPHYSID1)
	if err != nil {
		return nil, fmt.Errorf("phy probe: %w", err)
	}
	id2, err := p.read(miiPHYSID2)
	if err != nil {
		return nil, fmt.Errorf("phy probe: %w", err)
	}
	p.id = uint32(id1)<<16 | uint32(id2)
	if p.id&rtl8211fPHYIDMask != rtl8211fPHYID&rtl8211fPHYIDMask {
		return nil, fmt.Errorf("phy probe: PHY at MDIO address %d has ID %#08x, not an RTL8211F (%#08x under mask %#08x)",
			cfg.Addr, p.id, rtl8211fPHYID, rtl8211fPHYIDMask)
	}
	p.advertising = cfg.Advertising
	if p.advertising == 0 {
		p.advertising = DefaultAdvertising
	}
	p.advertising &= GbitFeatures | LinkPause | LinkAsymPause
	p.state = StateReady
	p.publish()
	return p, nil
}

// ID is the PHY identifier read at probe (PHYSID1 << 16 | PHYSID2).
func (p *PHY) ID() uint32 { return p.id }

// Name is the bound driver's name.
func (p *PHY) Name() string { return rtl8211fDriverName }

// OnLink registers the link-change callback (phylink's phy_link_change, which
// the assembly wires to the stmmac driver's LinkUp/LinkDown). It runs from the
// state machine without the driver's lock held.
func (p *PHY) OnLink(fn func(up bool, speed int, fullDuplex bool)) {
	p.lock()
	p.onLink = fn
	p.unlock()
}

func (p *PHY) logf(format string, args ...any) {
	if p.cfg.Log != nil {
		p.cfg.Log(fmt.Sprintf(format, args...))
	}
}
