// Package platform assembles the hardware of one board on an emu.Machine: the SoC
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

// Mechanism selects how the MAC's TXDLY steps are produced (rgmii-timing.md §5/§6).
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

// Platform is the assembled hardware.
type Platform struct {
	M      *emu.Machine
	Board  board.Board
	SoC    *soc.SoC
	MAC    *stmmac.MAC
	MDIO   *mdio.Bus
	PHY    *phy.RTL8211F
	PHYIRQ *emu.IRQ
	FarEnd *farend.NIC

	mech       Mechanism
	txLink     board.Link
	txWire     *rgmiiwire.Wire
	rxWire     *rgmiiwire.Wire
	txConfigOK bool
	rxConfigOK bool
	// txTimingErr / rxTimingErr: the wire refused the timing the registers and
	// the board give (only bad board parameters can cause it).
	txTimingErr, rxTimingErr bool
	configErr                error

	path PathCounters
	taps []Tap
	// hdr holds the start of the frame on the wire before the wire touched it,
	// for taps that need to know what a damaged frame was (machine lock).
	hdr    [64]byte
	hdrLen int
}

// Direction of a frame on the cable.
type Direction uint8

// Directions, named from the board's point of view.
const (
	TX Direction = iota // board -> far end
	RX                  // far end -> board
)

func (d Direction) String() string {
	if d == TX {
		return "tx"
	}
	return "rx"
}

// Tap sees every frame as it left the wire (after any corruption), FCS included.
// It runs with the machine lock held and must copy what it keeps.
type Tap func(dir Direction, at emu.Time, frame []byte, res rgmiiwire.Result)

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
	p := &Platform{M: m, Board: b, SoC: s, MDIO: &mdio.Bus{}, mech: mech}
	p.txLink = b.TX
	if mech == MechanismB {
		p.txLink = b.TXMechanismB
	}
	if opts.TXSkewPs != nil {
		p.txLink.BoardSkewPs = *opts.TXSkewPs
	}
	p.PHYIRQ = m.NewIRQ("phy_int")
	p.PHY, err = phy.New(m, phy.Config{
		TXDelayStrap: b.Straps.TXDelay, RXDelayStrap: b.Straps.RXDelay,
		Partner:     phy.Partner{MaxSpeed: opts.PartnerMaxSpeed},
		IRQ:         p.PHYIRQ,
		AutonegTime: opts.AutonegTime,
	})
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", b.Name, err)
	}
	p.MDIO.Attach(b.DT.PHYAddr, p.PHY)
	macCfg := stmmac.DefaultConfig()
	macCfg.MACAddr = b.MAC
	p.MAC = stmmac.New(m, s.MACIRQ(), p.MDIO, macCfg)
	if err := m.Bus().Map(s.Addrs().DWMACBase, s.Addrs().DWMACSize, p.MAC); err != nil {
		return nil, fmt.Errorf("platform %s: %w", b.Name, err)
	}
	p.FarEnd, err = farend.New(m, opts.FarEnd)
	if err != nil {
		return nil, fmt.Errorf("platform %s: far end: %w", b.Name, err)
	}
	// Wires start with a placeholder timing; reconfigure sets the real one.
	idle := rgmiiwire.Timing{SpeedMbps: 1000, ClockPeriodPs: 8000, SetupPs: 300, HoldPs: 300, JitterSigmaPs: 60}
	if p.txWire, err = rgmiiwire.New(idle, m.Rand("rgmii.tx")); err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	if p.rxWire, err = rgmiiwire.New(idle, m.Rand("rgmii.rx")); err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	m.Lock()
	defer m.Unlock()
	s.OnChange(p.reconfigure)
	p.PHY.OnChange(p.reconfigure)
	p.MAC.SetTransmitter(p.transmitFromMAC)
	p.FarEnd.SetSink(p.transmitFromFarEnd)
	p.reconfigure()
	return p, nil
}

// AddTap adds a frame observer (pcap). Safe before the machine runs.
func (p *Platform) AddTap(t Tap) {
	p.M.Lock()
	p.taps = append(p.taps, t)
	p.M.Unlock()
}

// HeaderBeforeWire is the first 64 bytes (or fewer) of the frame a tap is
// looking at, as they were before the wire model touched them. Only valid
// inside a Tap call (machine lock held).
func (p *Platform) HeaderBeforeWire() []byte { return p.hdr[:p.hdrLen] }

// transmitFromMAC is the RGMII TX side: the MAC has finished sending frame.
func (p *Platform) transmitFromMAC(frame []byte) {
	p.path.TxFromMAC++
	if !p.txConfigOK {
		if p.txTimingErr {
			p.path.TxBadTiming++
		} else {
			p.path.TxNoClock++
		}
		return
	}
	if !p.PHY.Link().Up {
		p.path.TxNoLink++
		return
	}
	if len(p.taps) > 0 {
		p.hdrLen = copy(p.hdr[:], frame)
	}
	res := p.txWire.Transmit(frame)
	if res.Changed() {
		p.path.TxWireDamaged++
	}
	for _, t := range p.taps {
		t(TX, p.M.Now(), frame, res)
	}
	p.path.TxAtFarEnd++
	p.FarEnd.Receive(frame, res.AlignmentError())
}

// transmitFromFarEnd is the cable's far end sending towards the board.
func (p *Platform) transmitFromFarEnd(frame []byte) {
	p.path.RxFromFarEnd++
	if !p.PHY.Link().Up {
		p.path.RxNoLink++
		return
	}
	if !p.rxConfigOK {
		p.path.RxBadTiming++
		return
	}
	if len(p.taps) > 0 {
		p.hdrLen = copy(p.hdr[:], frame)
	}
	res := p.rxWire.Transmit(frame)
	if res.Changed() {
		p.path.RxWireDamaged++
	}
	for _, t := range p.taps {
		t(RX, p.M.Now(), frame, res)
	}
	if res.AlignmentError() {
		p.path.RxSFDLost++
		return
	}
	p.path.RxAtMAC++
	p.MAC.Receive(frame)
}

// clockPeriodPs is the RGMII clock period at a link speed given the gigabit
// clock: the IP divides its 125 MHz output by 5 or 50 at 100 or 10 Mbit/s by itself
// (dwmac-meson8b comment; meson8b-ethernet.md §6).
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
	link := p.PHY.Link()
	speed := link.Speed
	if speed == 0 {
		speed = 1000
	}
	clk := p.SoC.TXClock()
	txDelay := p.MACTXDelay()
	tx := rgmiiwire.Timing{Direction: "TX", SpeedMbps: speed,
		MACDelayPs: txDelay.Ps, BoardSkewPs: p.txLink.BoardSkewPs, LineSkewPs: p.txLink.LineSkewPs,
		SetupPs: p.txLink.SetupPs, HoldPs: p.txLink.HoldPs, JitterSigmaPs: p.txLink.JitterSigmaPs}
	if p.PHY.TXDelayEnabled() {
		tx.PHYDelayPs = p.txLink.PHYDelayPs
	}
	p.txConfigOK, p.txTimingErr, p.rxTimingErr = false, false, false
	p.configErr = nil
	if clk.TXHz > 0 && clk.RGMII {
		tx.ClockPeriodPs = clockPeriodPs(clk.TXHz, speed)
		if err := p.txWire.Configure(tx); err != nil {
			p.configErr = fmt.Errorf("TX wire: %w", err)
			p.txTimingErr = true
		} else {
			p.txConfigOK = true
		}
	}
	rl := p.Board.RX
	rx := rgmiiwire.Timing{Direction: "RX", SpeedMbps: speed,
		// The PHY's RX clock comes from its own 25 MHz crystal: nominal 125 MHz.
		ClockPeriodPs: clockPeriodPs(125e6, speed),
		MACDelayPs:    p.SoC.MACRXDelay().Ps, BoardSkewPs: rl.BoardSkewPs, LineSkewPs: rl.LineSkewPs,
		SetupPs: rl.SetupPs, HoldPs: rl.HoldPs, JitterSigmaPs: rl.JitterSigmaPs}
	if p.PHY.RXDelayEnabled() {
		rx.PHYDelayPs = rl.PHYDelayPs
	}
	if err := p.rxWire.Configure(rx); err != nil {
		p.configErr = fmt.Errorf("RX wire: %w", err)
		p.rxConfigOK, p.rxTimingErr = false, true
	} else {
		p.rxConfigOK = true
	}
	if link.Up {
		p.FarEnd.SetSpeed(link.Speed)
		p.MAC.SetLinkState(true, link.Speed, link.FullDuplex)
	} else {
		p.FarEnd.SetSpeed(0)
		p.MAC.SetLinkState(false, 0, false)
	}
}

// WireConfigErr is why the last wire reconfiguration was refused (nil when both
// directions took their timing); frames meanwhile count as TxBadTiming/RxBadTiming.
func (p *Platform) WireConfigErr() error {
	p.M.Lock()
	defer p.M.Unlock()
	return p.configErr
}

// MACTXDelay is the effective MAC TX delay under the platform's mechanism.
// Lock held.
func (p *Platform) MACTXDelay() soc.Delay {
	if p.mech == MechanismB {
		return p.SoC.MACTXDelayB()
	}
	return p.SoC.MACTXDelay()
}

// Budgets returns the TX and RX timing budgets in force, and whether the TX
// clock is running (without it nothing is sent).
func (p *Platform) Budgets() (tx, rx rgmiiwire.Budget, txClockOK bool) {
	p.M.Lock()
	defer p.M.Unlock()
	return p.txWire.Budget(), p.rxWire.Budget(), p.txConfigOK
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
func (p *Platform) PathLocked() PathCounters { return p.path }

// Path returns the frame-path counters.
func (p *Platform) Path() PathCounters {
	p.M.Lock()
	defer p.M.Unlock()
	return p.path
}

// WireStats returns the two wires' own statistics.
func (p *Platform) WireStats() (tx, rx rgmiiwire.Stats) {
	p.M.Lock()
	defer p.M.Unlock()
	return p.txWire.Stats(), p.rxWire.Stats()
}

// MACCounters returns the DWMAC model's accounting.
func (p *Platform) MACCounters() stmmac.Counters {
	p.M.Lock()
	defer p.M.Unlock()
	return p.MAC.Counters()
}

// FarEndMAC is the PC's MAC address: a fixed locally administered one.
var FarEndMAC = ether.MAC{0x02, 0x50, 0x43, 0x00, 0x00, 0x01}
