package stmmac

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"mesonemu/emu"
	"mesonemu/mdio"
	dwmac "mesonemu/stmmac"
)

// Integration rig: the real DWMAC model at Meson8b's base with RAM at 0, a PHY
// register bag on its MDIO bus, and a transmitter hook that can loop every frame
// back into the MAC's receive side.
const (
	hwRAMSize   = 8 << 20
	hwDrvRegion = 0x00100000
	hwDrvSize   = 4 << 20
)

type hwRig struct {
	m        *emu.Machine
	mac      *dwmac.MAC
	irq      *emu.IRQ
	phy      *bagPHY
	drv      *Driver
	loopback bool
	wire     [][]byte // frames the MAC sent, FCS included
	outcomes []dwmac.RxOutcome
	rx       [][]byte
}

// bagPHY is a Clause-22 register bag (the real PHY model lives elsewhere).
type bagPHY struct{ regs [32]uint16 }

func (p *bagPHY) ReadMII(reg uint8) uint16     { return p.regs[reg&31] }
func (p *bagPHY) WriteMII(reg uint8, v uint16) { p.regs[reg&31] = v }

func newHWRig(t testing.TB, edit func(*Config)) *hwRig {
	t.Helper()
	m := emu.NewMachine(1)
	if _, err := m.Bus().AddRAM(0, hwRAMSize); err != nil {
		t.Fatal(err)
	}
	r := &hwRig{m: m, irq: m.NewIRQ("macirq"), phy: &bagPHY{}, loopback: true}
	bus := &mdio.Bus{}
	bus.Attach(0, r.phy)
	r.mac = dwmac.New(m, r.irq, bus, dwmac.Config{MACAddr: testMAC})
	if err := m.Bus().Map(DefaultBase, dwmac.Size, r.mac); err != nil {
		t.Fatal(err)
	}
	r.mac.SetTransmitter(func(f []byte) {
		cp := append([]byte(nil), f...)
		r.wire = append(r.wire, cp)
		if r.loopback {
			// The hook runs inside the MAC's TX path: feed the frame back as a
			// separate event at the same instant.
			m.After(0, func() { r.outcomes = append(r.outcomes, r.mac.Receive(cp)) })
		}
	})
	r.drv = newTestDriver(t, m, r.irq, hwDrvRegion, hwDrvSize, edit, &r.rx)
	return r
}

// up probes, opens and brings the link up at 1000 Mbit/s full duplex (the PHY side
// of the link too: the MAC's RGMII status).
func (r *hwRig) up(t testing.TB) {
	t.Helper()
	openAt1000(t, r.drv, func() {
		r.m.Lock()
		r.mac.SetLinkState(true, 1000, true)
		r.m.Unlock()
	})
}

// receiveWire hands frame (FCS appended) to the MAC as if it came from the wire.
func (r *hwRig) receiveWire(frame []byte) dwmac.RxOutcome {
	full := binary.LittleEndian.AppendUint32(append([]byte(nil), frame...), crc32.ChecksumIEEE(frame))
	r.m.Lock()
	defer r.m.Unlock()
	return r.mac.Receive(full)
}

// runIdle runs the machine until nothing is scheduled, at most limit ahead.
func (r *hwRig) runIdle(limit emu.Time) {
	end := r.m.VirtualNow() + limit
	for {
		next, ok := r.m.NextEvent()
		if !ok || next > end {
			r.m.RunUntil(r.m.VirtualNow())
			return
		}
		r.m.RunUntil(next)
	}
}
