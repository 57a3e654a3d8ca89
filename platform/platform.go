// Package platform assembles one board's hardware on an emu.Machine.
// Hardware side: SoC, MAC, PHY, wire and far end, wired together; no guest code.
//
// It assembles the hardware of one board on an emu.Machine: the SoC
// (clock controller, Ethernet glue, RAM), the DWMAC, the RTL8211F on MDIO, the two
// directions of the RGMII wire, and the far end of the cable. It owns the frame
// path between them, so it is also where every frame is accounted for:
//
//	MAC -> TX wire -> PHY -> cable -> far-end NIC       (board sends)
//	far-end NIC -> cable -> PHY -> RX wire -> MAC       (board receives)
//
// The wire timing is derived here, only from what the hardware holds: the clock
// rate and TX delay that the SoC's registers produce, the PHY's delay bits and
// link speed, and the board's electrical parameters. It is recomputed when one
// of those changes, never per frame. Nothing in this package knows which guest
// driver variant programmed the registers.
package platform

import (
	"fmt"

	"mesonemu/counter"
	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/farend"
	"mesonemu/mdio"
	"mesonemu/phy"
	"mesonemu/rgmiiwire"
	"mesonemu/soc"
	"mesonemu/soc/board"
	"mesonemu/stmmac"
)

// Mechanism selects how the MAC's TXDLY steps are produced (docs/reference/rgmii-timing.md §5/§6).
type Mechanism string

// The two hypotheses; A is the project default.
const (
	MechanismA Mechanism = "A"
	MechanismB Mechanism = "B"
)

// Options choose the board and what the user may vary about the hardware.
type Options struct {
	// Clock is the machine's clock mode (emu.Virtual unless a far end keeps
	// real time).
	Clock emu.ClockMode
	Board board.Board
	// Seed makes the wire's errors reproducible.
	Seed uint64
	// PartnerMaxSpeed limits the far end's advertisement (--speed): 0 = no limit.
	PartnerMaxSpeed int
	// Mechanism of the MAC TX delay; "" means A.
	Mechanism Mechanism
	// TXSkewPs, when non-nil, replaces the board's calibrated TX skew s0 (scan).
	TXSkewPs *float64
	// FarEnd tunes the PC's NIC (interrupt moderation and queue sizes).
	FarEnd farend.Config
	// AutonegTime overrides the PHY's negotiation time (0: the PHY's default).
	AutonegTime emu.Time
}

// Platform is the assembled hardware. Its parts are reached through methods
// that take the machine lock themselves (or say "Locked" when the caller holds it
// in a hardware event), so no caller pokes a model outside the lock.
type Platform struct {
	m      *emu.Machine
	board  board.Board
	soc    *soc.SoC
	mac    *stmmac.MAC
	mdio   *mdio.Bus
	phy    *phy.RTL8211F
	phyIRQ *emu.IRQ
	farEnd *farend.NIC

	mech   Mechanism
	txLink board.Link
	// tx and rx carry frames across the wire, one direction each.
	tx, rx direction
	// configErr: why the wire refused the timing the registers and the board
	// give (only bad board parameters can cause it).
	configErr error
	taps      []Tap
}

// PathCounters count, per direction, what happened to frames between the MAC and
// the far end, so that sent = received + drops by cause holds exactly.
type PathCounters struct {
	// Board -> far end.
	TxFromMAC     uint64 // frames the MAC put on the RGMII TX lines
	TxNoClock     uint64 // lost: the RGMII TX clock is gated or has no source
	TxNoLink      uint64 // lost at the PHY: no link on the cable
	TxBadTiming   uint64 // lost: no TX timing could be derived (WireConfigErr says why)
	TxWireDamaged uint64 // corrupted by the wire (the far end then drops them)
	TxAtFarEnd    uint64 // handed to the far-end NIC (accepted or dropped there)
	// Far end -> board.
	RxFromFarEnd  uint64 // frames the far end put on the cable
	RxNoLink      uint64 // lost at the PHY: no link
	RxBadTiming   uint64 // lost: no RX timing could be derived (WireConfigErr says why)
	RxWireDamaged uint64 // corrupted by the RX wire
	RxSFDLost     uint64 // the MAC never saw a frame start (wrong half, SFD hit)
	RxAtMAC       uint64 // handed to the MAC's receive path
}

// Sub is the change from base to c, every counter at once.
func (c PathCounters) Sub(base PathCounters) PathCounters { return counter.Sub(c, base) }

// New powers the board on. The guest has not run yet: registers hold the boot
// loader's values.
func New(opts Options) (*Platform, error) {
	b := opts.Board
	if b.Name == "" {
		return nil, fmt.Errorf("platform: no board given")
	}
	mech := opts.Mechanism
	if mech == "" {
		mech = MechanismA
	}
	if mech != MechanismA && mech != MechanismB {
		return nil, fmt.Errorf("platform: TX delay mechanism %q: want A or B", mech)
	}
	m := emu.NewMachineClock(opts.Seed, opts.Clock)
	s, err := soc.NewSoC(m, b.SoC)
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", b.Name, err)
	}
	p := &Platform{m: m, board: b, soc: s, mdio: &mdio.Bus{}, mech: mech}
	p.txLink = b.TX
	if mech == MechanismB {
		p.txLink = b.TXMechanismB
	}
	if opts.TXSkewPs != nil {
		p.txLink.BoardSkewPs = *opts.TXSkewPs
	}
	p.phyIRQ = m.NewIRQ("phy_int")
	p.phy, err = phy.New(m, phy.Config{
		TXDelayStrap: b.Straps.TXDelay, RXDelayStrap: b.Straps.RXDelay,
		Partner:     phy.Partner{MaxSpeed: opts.PartnerMaxSpeed},
		IRQ:         p.phyIRQ,
		AutonegTime: opts.AutonegTime,
	})
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", b.Name, err)
	}
	p.mdio.Attach(b.DT.PHYAddr, p.phy)
	macCfg := stmmac.DefaultConfig()
	macCfg.MACAddr = b.MAC
	macCfg.CSRClockHz = b.DWMAC.CSRClockHz // 0 keeps the model's default
	macCfg.RIWTRestart = b.DWMAC.RIWTRestart
	p.mac = stmmac.New(m, s.MACIRQ(), p.mdio, macCfg)
	if err := m.Bus().Map(s.Addrs().DWMACBase, s.Addrs().DWMACSize, p.mac); err != nil {
		return nil, fmt.Errorf("platform %s: %w", b.Name, err)
	}
	p.farEnd, err = farend.New(m, opts.FarEnd)
	if err != nil {
		return nil, fmt.Errorf("platform %s: far end: %w", b.Name, err)
	}
	// Wires start with a placeholder timing; reconfigure sets the real one.
	idle := rgmiiwire.Timing{SpeedMbps: 1000, ClockPeriodPs: 8000, SetupPs: 300, HoldPs: 300, JitterSigmaPs: 60}
	// MAC -> TX wire -> PHY -> cable -> far-end NIC, which counts a lost frame
	// start as an alignment error itself.
	p.tx = direction{dir: TX, p: p, deliver: func(frame []byte, alignErr bool) { p.farEnd.Receive(frame, alignErr) }}
	// Cable -> PHY -> RX wire -> MAC, whose receive path never sees a frame
	// without its start.
	p.rx = direction{dir: RX, p: p, phyFirst: true, dropLostSFD: true,
		deliver: func(frame []byte, _ bool) { p.mac.Receive(frame) }}
	if p.tx.wire, err = rgmiiwire.New(idle, m.Rand("rgmii.tx")); err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	if p.rx.wire, err = rgmiiwire.New(idle, m.Rand("rgmii.rx")); err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	m.Lock()
	defer m.Unlock()
	s.OnChange(p.reconfigure)
	p.phy.OnChange(p.reconfigure)
	p.mac.SetTransmitter(p.tx.carry)
	p.farEnd.SetSink(p.rx.carry)
	p.reconfigure()
	return p, nil
}

// Machine is the engine the board runs on: time, tasks, randomness. Hardware
// state is read through the Platform's own methods.
func (p *Platform) Machine() *emu.Machine { return p.m }

// GuestBus is what the guest's drivers may reach the hardware through.
func (p *Platform) GuestBus() emu.GuestBus { return p.m.Bus() }

// MACIRQ is the DWMAC's interrupt line ("macirq").
func (p *Platform) MACIRQ() *emu.IRQ { return p.soc.MACIRQ() }

// PHYIRQ is the PHY's interrupt line (GPIOH_3 on the Odroid-C1).
func (p *Platform) PHYIRQ() *emu.IRQ { return p.phyIRQ }

// RAMSize is the size of the guest's RAM.
func (p *Platform) RAMSize() uint32 { return p.soc.RAM().Size() }

// FarEnd is the PC's NIC at the far end of the cable, where a PC stack or a
// TAP bridge attaches (its Locked methods want the machine lock).
func (p *Platform) FarEnd() *farend.NIC { return p.farEnd }

// AddTap adds a frame observer (pcap, loss tallies). Safe before the machine runs.
func (p *Platform) AddTap(t Tap) {
	p.m.Lock()
	p.taps = append(p.taps, t)
	p.m.Unlock()
}

// clockPeriodPs is the RGMII clock period at a link speed given the gigabit
// clock: the IP divides its 125 MHz output by 5 or 50 at 100 or 10 Mbit/s by itself
// (dwmac-meson8b comment; docs/reference/meson8b-ethernet.md §6).
func clockPeriodPs(gigabitHz float64, speed int) float64 {
	p := 1e12 / gigabitHz
	switch speed {
	case 100:
		return 5 * p
	case 10:
		return 50 * p
	}
	return p
}

// reconfigure derives both wire timings from register state. Lock held.
func (p *Platform) reconfigure() {
	link := p.phy.Link()
	speed := link.Speed
	if speed == 0 {
		speed = 1000
	}
	clk := p.soc.TXClock()
	tl := p.txLink
	tx := rgmiiwire.Timing{Direction: "TX", SpeedMbps: speed,
		MACDelayPs: p.macTXDelay().Ps, BoardSkewPs: tl.BoardSkewPs, LineSkewPs: tl.LineSkewPs,
		SetupPs: tl.SetupPs, HoldPs: tl.HoldPs, JitterSigmaPs: tl.JitterSigmaPs}
	if p.phy.TXDelayEnabled() {
		tx.PHYDelayPs = tl.PHYDelayPs
	}
	p.configErr = nil
	p.tx.timingOK, p.tx.timingErr = false, false
	if clk.TXHz > 0 && clk.RGMII {
		tx.ClockPeriodPs = clockPeriodPs(clk.TXHz, speed)
		p.tx.configure(tx, &p.configErr)
	}
	rl := p.board.RX
	rx := rgmiiwire.Timing{Direction: "RX", SpeedMbps: speed,
		// The PHY's RX clock comes from its own 25 MHz crystal: nominal 125 MHz.
		ClockPeriodPs: clockPeriodPs(125e6, speed),
		MACDelayPs:    p.soc.MACRXDelay().Ps, BoardSkewPs: rl.BoardSkewPs, LineSkewPs: rl.LineSkewPs,
		SetupPs: rl.SetupPs, HoldPs: rl.HoldPs, JitterSigmaPs: rl.JitterSigmaPs}
	if p.phy.RXDelayEnabled() {
		rx.PHYDelayPs = rl.PHYDelayPs
	}
	p.rx.configure(rx, &p.configErr)
	if link.Up {
		p.farEnd.SetSpeed(link.Speed)
		p.mac.SetLinkState(true, link.Speed, link.FullDuplex)
	} else {
		p.farEnd.SetSpeed(0)
		p.mac.SetLinkState(false, 0, false)
	}
}

// WireConfigErr is why the last wire reconfiguration was refused (nil when both
// directions took their timing); frames meanwhile count as TxBadTiming/RxBadTiming.
func (p *Platform) WireConfigErr() error {
	p.m.Lock()
	defer p.m.Unlock()
	return p.configErr
}

// macTXDelay is the effective MAC TX delay under the platform's mechanism.
// Lock held.
func (p *Platform) macTXDelay() soc.Delay {
	if p.mech == MechanismB {
		return p.soc.MACTXDelayB()
	}
	return p.soc.MACTXDelay()
}

// State is a snapshot of what the guest's programming left in the hardware.
type State struct {
	// PRGEth0 and MPLLCntl9 are the glue register and the MPLL2 divider register.
	PRGEth0, MPLLCntl9 soc.RegValue
	TXClock            soc.TXClock
	// MACTXDelay is the effective MAC TX delay under the platform's mechanism.
	MACTXDelay, MACRXDelay soc.Delay
	PHYTXDelay, PHYRXDelay bool // the PHY's internal delay bits
	Link                   phy.LinkState
}

// State reads the hardware's state in one locked snapshot.
func (p *Platform) State() State {
	p.m.Lock()
	defer p.m.Unlock()
	st := State{TXClock: p.soc.TXClock(), MACTXDelay: p.macTXDelay(), MACRXDelay: p.soc.MACRXDelay(),
		PHYTXDelay: p.phy.TXDelayEnabled(), PHYRXDelay: p.phy.RXDelayEnabled(), Link: p.phy.Link()}
	st.PRGEth0, _ = p.soc.Register("PRG_ETH0")
	st.MPLLCntl9, _ = p.soc.Register("HHI_MPLL_CNTL9")
	return st
}

// Budgets returns the TX and RX timing budgets in force, and whether the TX
// clock is running (without it nothing is sent).
func (p *Platform) Budgets() (tx, rx rgmiiwire.Budget, txClockOK bool) {
	p.m.Lock()
	defer p.m.Unlock()
	return p.tx.wire.Budget(), p.rx.wire.Budget(), p.tx.timingOK
}

// PredictedLoss is the analytic frame loss per direction for frames of L bytes
// (without FCS) with random payload.
func (p *Platform) PredictedLoss(l int) (tx, rx float64) {
	tb, rb, ok := p.Budgets()
	tx = tb.PredictedLoss(l)
	if !ok {
		tx = 1
	}
	return tx, rb.PredictedLoss(l)
}

// PathLocked returns the frame-path counters; the caller holds the machine lock
// (a hardware event).
func (p *Platform) PathLocked() PathCounters {
	t, r := p.tx.ctr, p.rx.ctr
	return PathCounters{
		TxFromMAC: t.sent, TxNoClock: t.noClock, TxNoLink: t.noLink, TxBadTiming: t.badTiming,
		TxWireDamaged: t.damaged, TxAtFarEnd: t.delivered,
		RxFromFarEnd: r.sent, RxNoLink: r.noLink, RxBadTiming: r.badTiming,
		RxWireDamaged: r.damaged, RxSFDLost: r.sfdLost, RxAtMAC: r.delivered,
	}
}

// Path returns the frame-path counters.
func (p *Platform) Path() PathCounters {
	p.m.Lock()
	defer p.m.Unlock()
	return p.PathLocked()
}

// WireStats returns the two wires' own statistics.
func (p *Platform) WireStats() (tx, rx rgmiiwire.Stats) {
	p.m.Lock()
	defer p.m.Unlock()
	return p.tx.wire.Stats(), p.rx.wire.Stats()
}

// MACCountersLocked returns the DWMAC model's accounting; the caller holds the
// machine lock.
func (p *Platform) MACCountersLocked() stmmac.Counters { return p.mac.Counters() }

// MACCounters returns the DWMAC model's accounting.
func (p *Platform) MACCounters() stmmac.Counters {
	p.m.Lock()
	defer p.m.Unlock()
	return p.mac.Counters()
}

// FarEndMAC is the PC's MAC address: a fixed locally administered one.
var FarEndMAC = ether.MAC{0x02, 0x50, 0x43, 0x00, 0x00, 0x01}
