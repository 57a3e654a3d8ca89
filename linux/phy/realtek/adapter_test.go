package realtek

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"mesonemu/emu"
	"mesonemu/linux/kernel"
	"mesonemu/mdio"
	"mesonemu/phy"
)

// access is one MDIO transaction as the adapter saw it.
type access struct {
	write bool
	reg   int
	val   uint16
}

func (a access) String() string {
	if a.write {
		return fmt.Sprintf("W%#02x=%#04x", a.reg, a.val)
	}
	return fmt.Sprintf("R%#02x", a.reg)
}

// busAdapter is the test's stand-in for the stmmac MDIO master: every access
// is one mdio.Bus transaction under the machine lock. It logs accesses and can
// be told to fail.
type busAdapter struct {
	m      *emu.Machine
	bus    *mdio.Bus
	log    []access
	failAt int // fail every access once the log has this many entries (0: never)

	// frame, when > 0, makes every access sleep that long in guest time while
	// holding the bus lock, as stmmac's MDIO polls GB with usleep under
	// mdio_lock. A second access while one is in flight (re-entry from a
	// nested interrupt or timer) is an error, not a deadlock.
	frame     emu.Time
	busy      sync.Mutex
	reentered atomic.Int32
	logMu     sync.Mutex
	times     []emu.Time // virtual time of each logged access
}

var errBusDead = errors.New("mdio bus dead")

func (a *busAdapter) ReadPHY(addr, reg int) (uint16, error) {
	var v uint16
	err := a.transact(addr, reg, func() {
		v = a.bus.Read(uint8(addr), uint8(reg))
		a.log = append(a.log, access{reg: reg, val: v})
	})
	return v, err
}

func (a *busAdapter) WritePHY(addr, reg int, val uint16) error {
	return a.transact(addr, reg, func() {
		a.bus.Write(uint8(addr), uint8(reg), val)
		a.log = append(a.log, access{write: true, reg: reg, val: val})
	})
}

// transact runs one access under the machine lock, then sleeps for the frame.
func (a *busAdapter) transact(addr, reg int, do func()) error {
	if addr < 0 || addr > 31 || reg < 0 || reg > 31 {
		return fmt.Errorf("bad MDIO address %d/%d", addr, reg)
	}
	if !a.busy.TryLock() {
		a.reentered.Add(1)
		return errors.New("re-entrant MDIO access")
	}
	defer a.busy.Unlock()
	a.logMu.Lock()
	failed := a.failAt > 0 && len(a.log) >= a.failAt
	if !failed {
		a.m.Lock()
		do()
		a.times = append(a.times, a.m.Now())
		a.m.Unlock()
	}
	a.logMu.Unlock()
	if failed {
		return errBusDead
	}
	if a.frame > 0 {
		a.m.GuestDelay(a.frame)
	}
	return nil
}

// board is a machine with the RTL8211F model at MDIO address 0.
type board struct {
	t   *testing.T
	m   *emu.Machine
	hw  *phy.RTL8211F
	bus *busAdapter
	irq *emu.IRQ
	// k is the guest kernel; line is irq's number in it.
	k    kernel.Kernel
	line kernel.IRQ
}

func newBoard(t *testing.T, hwCfg phy.Config) *board {
	t.Helper()
	m := emu.NewMachine(7)
	irq := m.NewIRQ("phy-irq")
	hwCfg.IRQ = irq
	hw, err := phy.New(m, hwCfg)
	if err != nil {
		t.Fatalf("phy.New: %v", err)
	}
	b := &mdio.Bus{}
	b.Attach(0, hw)
	return &board{t: t, m: m, hw: hw, bus: &busAdapter{m: m, bus: b}, irq: irq, k: kernel.New(m, m.Bus(), irq), line: 1}
}

// hwDelays reads the delay outputs of the hardware.
func (b *board) hwDelays() (tx, rx bool) {
	b.m.Lock()
	defer b.m.Unlock()
	return b.hw.TXDelayEnabled(), b.hw.RXDelayEnabled()
}

func (b *board) hwLink() phy.LinkState {
	b.m.Lock()
	defer b.m.Unlock()
	return b.hw.Link()
}

func (b *board) setCable(on bool) {
	b.m.Lock()
	defer b.m.Unlock()
	b.hw.SetCable(on)
}

// cableEvent schedules a cable plug/pull as a machine event at the current
// virtual time and returns that time.
func (b *board) cableEvent(on bool) emu.Time {
	b.m.Lock()
	now := b.m.Now()
	b.m.At(now, func() { b.hw.SetCable(on) })
	b.m.Unlock()
	return now
}

// linkRecord is one OnLink callback with the virtual time it ran at.
type linkRecord struct {
	at    emu.Time
	up    bool
	speed int
	full  bool
}

// bring probes, attaches and starts the driver; it records OnLink calls.
// bringRGMII brings the PHY up for phy-mode rgmii, on the interrupt line when irq,
// else polled.
func (b *board) bringRGMII(irq bool) (*PHY, *[]linkRecord) {
	b.t.Helper()
	cfg := Config{Interface: "rgmii"}
	if irq {
		cfg.IRQ = b.line
	}
	return b.bring(cfg)
}

func (b *board) bring(cfg Config) (*PHY, *[]linkRecord) {
	b.t.Helper()
	p, err := Probe(b.bus, b.k, cfg)
	if err != nil {
		b.t.Fatalf("Probe: %v", err)
	}
	var recs []linkRecord
	p.OnLink(func(up bool, speed int, full bool) {
		recs = append(recs, linkRecord{b.m.VirtualNow(), up, speed, full})
	})
	if err := p.Attach(); err != nil {
		b.t.Fatalf("Attach: %v", err)
	}
	if err := p.Start(); err != nil {
		b.t.Fatalf("Start: %v", err)
	}
	return p, &recs
}

// lastUp is the last "up" record; ok false when none.
func lastUp(recs []linkRecord) (linkRecord, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].up {
			return recs[i], true
		}
	}
	return linkRecord{}, false
}
