package stmmac

import (
	"fmt"

	"mesonemu/emu"
	"mesonemu/mdio"
	"mesonemu/reg"
)

// Size is the span of the DWMAC register window on the bus.
const Size = 0x10000

// Software reset and TX FIFO flush durations. Assumption: the databook only says the
// bits clear "when the operation completes"; a reset takes a few cycles of the slowest
// clock domain (1 us covers 2.5 MHz RX clocks at 10 Mbit/s), a flush walks the 2 KiB
// FIFO at 4 bytes per 4 ns.
const (
	softwareResetTime emu.Time = 1 * emu.Microsecond
	bytesPerFlushNs            = 1
)

// MAC is the DWMAC 3.70a device: an emu.Device for the bus, a transmitter hook and a
// Receive input for the wire, an MDIO master on an mdio.Bus.
//
// Locking: like every hardware model, all its methods run with the machine lock held
// (hardware context: events, the bus, the assembly under m.Lock), or before the
// machine runs. None of them takes the lock itself.
type MAC struct {
	m   *emu.Machine
	irq *emu.IRQ
	mii *mdio.Bus
	cfg Config

	blocks  [3]reg.Block
	macRegs *reg.File
	mmcRegs *reg.File
	dmaRegs *reg.File

	mmcCtl uint32 // MMC_CNTRL, cached for the frame path

	transmit func(frame []byte)
	link     linkState

	tx   txEngine
	rx   rxEngine
	mdio mdioMaster

	swrEv, ftfEv *emu.Event

	counters Counters
	irqLevel bool

	// Method values made once, so scheduling an event allocates no closure.
	rxWatchdogFn, mdioDoneFn, swrDoneFn, ftfDoneFn func()
}

type linkState struct {
	up         bool
	speed      int
	fullDuplex bool
}

var _ emu.Device = (*MAC)(nil)
var _ emu.RegNamer = (*MAC)(nil)

// New builds a DWMAC in its power-on state (reset values, then the boot loader's MAC
// address from cfg). irq is the "macirq" line; mii is the board's MDIO bus (nil: no
// PHY answers, reads give 0xffff). The board maps it at 0xc9410000, Size bytes.
func New(m *emu.Machine, irq *emu.IRQ, mii *mdio.Bus, cfg Config) *MAC {
	cfg = cfg.withDefaults()
	c := &MAC{m: m, irq: irq, mii: mii, cfg: cfg}
	if c.mii == nil {
		c.mii = &mdio.Bus{}
	}
	c.blocks[0] = reg.Block{Name: "dwmac.mac", Registers: c.macRegisters()}
	c.blocks[1] = reg.Block{Name: "dwmac.mmc", Registers: c.mmcRegisters()}
	c.blocks[2] = reg.Block{Name: "dwmac.dma", Registers: c.dmaRegisters()}
	c.macRegs = reg.NewFile(&c.blocks[0])
	c.mmcRegs = reg.NewFile(&c.blocks[1])
	c.dmaRegs = reg.NewFile(&c.blocks[2])
	c.tx.buf = make([]byte, cfg.MaxFrame+fcsLen)
	c.tx.walkEv = m.NewEvent(c.txWalk)
	c.tx.lineEv = m.NewEvent(c.txLineDone)
	c.rxWatchdogFn = c.rxWatchdogExpired
	c.mdioDoneFn = c.mdioDone
	c.swrDoneFn = c.swrDone
	c.ftfDoneFn = c.ftfDone
	if cfg.MACAddr != ([6]byte{}) {
		a := cfg.MACAddr
		c.macRegs.Set(offAddr0High, addrAE.Mask()|uint32(a[5])<<8|uint32(a[4]))
		c.macRegs.Set(offAddr0High+4, uint32(a[3])<<24|uint32(a[2])<<16|uint32(a[1])<<8|uint32(a[0]))
	}
	return c
}

// Name is the block name in traces.
func (c *MAC) Name() string { return "dwmac" }

// Blocks returns the MAC, MMC and DMA register tables of this instance (for
// `mesonemu regs` decoding).
func (c *MAC) Blocks() []*reg.Block {
	return []*reg.Block{&c.blocks[0], &c.blocks[1], &c.blocks[2]}
}

// file returns the register file that holds off.
func (c *MAC) file(off uint32) *reg.File {
	switch {
	case off < mmcBase:
		return c.macRegs
	case off < mmcBlockEnd:
		return c.mmcRegs
	case off >= dmaBase && off < dmaBase+0x100:
		return c.dmaRegs
	}
	return nil
}

// RegName names a register for traces.
func (c *MAC) RegName(off uint32) string {
	if f := c.file(off); f != nil {
		return f.RegName(off)
	}
	return fmt.Sprintf("+%#x", off)
}

// Peek reads a register as the guest would, without read side effects (clear-on-read
// counters keep their value). Lock held.
func (c *MAC) Peek(off uint32) (uint32, bool) {
	if f := c.file(off); f != nil {
		return f.Read(off)
	}
	return 0, false
}

// ReadReg is a guest load: the register's table entry with its access rules and read
// hooks (regs_*.go). Holes read 0.
func (c *MAC) ReadReg(off uint32) uint32 {
	if f := c.file(off); f != nil {
		v, _ := f.GuestRead(off)
		return v
	}
	return 0
}

// WriteReg is a guest store: the register's table entry with its access rules and
// write hooks (regs_*.go). Any offset and value is accepted; holes ignore it.
func (c *MAC) WriteReg(off uint32, v uint32) {
	if f := c.file(off); f != nil {
		f.GuestWrite(off, v)
	}
}

// ackRGMIIChange is the read side effect of GMAC_S_R_GMII: it acknowledges the
// link-change interrupt.
func (c *MAC) ackRGMIIChange() {
	if st := c.macRegs.Get(offIntStatus); st&intRGMII.Mask() != 0 {
		c.macRegs.Set(offIntStatus, st&^intRGMII.Mask())
		c.updateIRQ()
	}
}

// opModeWritten applies CSR6: start/stop of both channels and the TX FIFO flush.
func (c *MAC) opModeWritten(old, cur uint32) {
	edge := func(f reg.Field) (rose, fell bool) {
		m := f.Mask()
		return cur&m != 0 && old&m == 0, cur&m == 0 && old&m != 0
	}
	if rose, _ := edge(opFTF); rose {
		c.flushTxFIFO()
	}
	switch rose, fell := edge(opST); {
	case rose:
		c.txStart()
	case fell:
		c.txStop()
	}
	switch rose, fell := edge(opSR); {
	case rose:
		c.rxStart()
	case fell:
		c.rxStop()
	}
	c.updateIRQ()
}

// softwareReset puts every MAC, MMC and DMA register back to its reset value, stops
// both engines and cancels everything in flight. SWR reads 1 until the reset is done.
func (c *MAC) softwareReset() {
	for _, ev := range []*emu.Event{c.tx.walkEv, c.tx.lineEv, c.rx.riwtEv, c.mdio.ev, c.ftfEv, c.swrEv} {
		c.m.Cancel(ev)
	}
	c.macRegs.Reset()
	c.mmcRegs.Reset()
	c.dmaRegs.Reset()
	c.mmcCtl = 0
	c.tx = txEngine{buf: c.tx.buf, walkEv: c.tx.walkEv, lineEv: c.tx.lineEv}
	c.rx = rxEngine{}
	c.mdio = mdioMaster{}
	// The RGMII status is the PHY's in-band status, sampled again at once.
	c.applyLinkStatus()
	c.dmaRegs.Set(offBusMode, c.dmaRegs.Get(offBusMode)|busSWR.Mask())
	c.swrEv = c.m.After(softwareResetTime, c.swrDoneFn)
	c.counters.SoftwareResets++
	c.updateIRQ()
}

func (c *MAC) swrDone() {
	c.dmaRegs.Set(offBusMode, c.dmaRegs.Get(offBusMode)&^busSWR.Mask())
}

// mmcControl applies MMC_CNTRL: preset, then reset (Linux v5.4 writes both); both
// complete at once.
func (c *MAC) mmcControl(cur uint32) {
	full := cur&mmcPresetFull.Mask() != 0
	for _, d := range mmcCounterDefs {
		var v uint32
		switch {
		case cur&mmcCntReset.Mask() != 0:
		case cur&mmcCntPreset.Mask() == 0:
			continue
		case d.octet && full:
			v = 0xfffff800
		case d.octet:
			v = 0x7ffff800
		case full:
			v = 0xfffffff0
		default:
			v = 0x7ffffff0
		}
		c.mmcRegs.Set(mmcBase+d.off, v)
	}
	cur &^= reg.Masks(mmcCntReset, mmcCntPreset)
	c.mmcRegs.Set(offMMCCntrl, cur)
	c.mmcCtl = cur
}

// mmcAdd counts n into an MMC counter, honouring freeze and stop-at-rollover.
func (c *MAC) mmcAdd(i mmcCounter, n uint32) {
	if c.mmcCtl&mmcCntFreeze.Mask() != 0 {
		return
	}
	off := mmcBase + mmcCounterDefs[i].off
	old := c.mmcRegs.Get(off)
	v := old + n
	if v < old && c.mmcCtl&mmcCntStopRoll.Mask() != 0 {
		v = 0xffffffff
	}
	c.mmcRegs.Set(off, v)
}

// mmcSizeBucket counts a frame length into the 64..1024-max histogram starting at first.
func (c *MAC) mmcSizeBucket(first mmcCounter, n int) {
	switch {
	case n <= 64:
		c.mmcAdd(first, 1)
	case n <= 127:
		c.mmcAdd(first+1, 1)
	case n <= 255:
		c.mmcAdd(first+2, 1)
	case n <= 511:
		c.mmcAdd(first+3, 1)
	case n <= 1023:
		c.mmcAdd(first+4, 1)
	default:
		c.mmcAdd(first+5, 1)
	}
}

// SetTransmitter installs the hook that receives every transmitted frame (FCS
// included) at the moment its last bit has left the MAC. The slice is valid only
// during the call; the hook runs with the machine lock held. Lock held.
func (c *MAC) SetTransmitter(fn func(frame []byte)) { c.transmit = fn }

// SetLinkState records the PHY's link as its RGMII in-band status reports it
// (GMAC_S_R_GMII); a change of the link bit raises the RGMII interrupt status.
// speed is 10, 100 or 1000 Mbit/s. Lock held (or the machine not yet running).
func (c *MAC) SetLinkState(up bool, speed int, fullDuplex bool) {
	changed := up != c.link.up
	c.link = linkState{up: up, speed: speed, fullDuplex: fullDuplex}
	c.applyLinkStatus()
	if changed {
		c.macRegs.Set(offIntStatus, c.macRegs.Get(offIntStatus)|intRGMII.Mask())
		c.updateIRQ()
	}
}

func (c *MAC) applyLinkStatus() {
	var v uint32
	if c.link.fullDuplex {
		v = rgmiiFullDuplex.Set(v, 1)
	}
	switch c.link.speed {
	case 100:
		v = rgmiiSpeed.Set(v, 1)
	case 1000:
		v = rgmiiSpeed.Set(v, 2)
	}
	if c.link.up {
		v = rgmiiLinkUp.Set(v, 1)
	}
	c.macRegs.Set(offRGMIIStatus, v)
}

// LineRate is the speed the MAC is configured for (PS/FES) in Mbit/s. Lock held.
func (c *MAC) LineRate() int {
	cfg := c.macRegs.Get(offMACConfig)
	switch {
	case cfg&cfgPS.Mask() == 0:
		return 1000
	case cfg&cfgFES.Mask() != 0:
		return 100
	}
	return 10
}

// FullDuplex reports the MAC's duplex setting (DM). Lock held.
func (c *MAC) FullDuplex() bool { return c.macRegs.Get(offMACConfig)&cfgDM.Mask() != 0 }

// Counters returns a snapshot of the model's counters. Lock held.
func (c *MAC) Counters() Counters { return c.counters }

// TxState is the TX DMA process state. Lock held.
func (c *MAC) TxState() ProcessState { return c.tx.state }

// RxState is the RX DMA process state. Lock held.
func (c *MAC) RxState() ProcessState { return c.rx.state }
