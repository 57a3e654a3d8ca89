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

	mmc    [mmcCounterCount]uint32
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
	c.blocks[0] = reg.Block{Name: "dwmac.mac", Registers: append([]reg.Register(nil), macRegisters...)}
	c.blocks[1] = reg.Block{Name: "dwmac.mmc", Registers: append([]reg.Register(nil), mmcRegisters...)}
	c.blocks[2] = reg.Block{Name: "dwmac.dma", Registers: append([]reg.Register(nil), dmaRegisters...)}
	c.blocks[0].Register("GMAC_VERSION").Reset = cfg.Version
	c.blocks[2].Register("DMA_HW_FEATURE").Reset = cfg.HWFeature
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
		c.macRegs.Set(offAddr0High, addrAE|uint32(a[5])<<8|uint32(a[4]))
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

// value reads a register without side effects.
func (c *MAC) value(off uint32) (uint32, bool) {
	if i, ok := mmcCounterAt(off); ok {
		return c.mmc[i], true
	}
	if f := c.file(off); f != nil {
		return f.Read(off)
	}
	return 0, false
}

// Peek reads a register as the guest would, without read side effects (clear-on-read
// counters keep their value). Lock held.
func (c *MAC) Peek(off uint32) (uint32, bool) { return c.value(off) }

// ReadReg is a guest load. Holes read 0.
func (c *MAC) ReadReg(off uint32) uint32 {
	v, _ := c.value(off)
	switch {
	case off == offRGMIIStatus:
		// Reading the RGMII status acknowledges the link-change interrupt.
		if c.macRegs.Get(offIntStatus)&intRGMII != 0 {
			c.macRegs.Set(offIntStatus, c.macRegs.Get(offIntStatus)&^intRGMII)
			c.updateIRQ()
		}
	case off == offMissed:
		c.dmaRegs.Set(offMissed, 0)
	default:
		if i, ok := mmcCounterAt(off); ok && c.mmcCtl&mmcRstOnRead != 0 {
			c.mmc[i] = 0
		}
	}
	return v
}

// WriteReg is a guest store. Any offset and value is accepted.
func (c *MAC) WriteReg(off uint32, v uint32) {
	switch off {
	case offMIIAddr:
		c.writeMIIAddr(v)
	case offMACConfig:
		_, cur, _ := c.macRegs.GuestWrite(off, v)
		if cur&cfgTE != 0 {
			c.txLaunch() // a frame held back by TE = 0 may go now
		}
	case offFlowCtrl:
		_, cur, _ := c.macRegs.GuestWrite(off, v)
		c.macRegs.Set(off, cur&^1) // PAUSE generation is not modelled: FCB is done at once
	case offPMT:
		_, cur, _ := c.macRegs.GuestWrite(off, v)
		c.macRegs.Set(off, cur&^(1<<31))
	case offMMCCntrl:
		c.writeMMCControl(v)
	case offBusMode:
		_, cur, _ := c.dmaRegs.GuestWrite(off, v)
		if cur&busSWR != 0 && !c.swrEv.Pending() {
			c.softwareReset()
		}
	case offTxPoll:
		c.txPollDemand()
	case offRxPoll:
		c.rxPollDemand()
	case offTxBase:
		_, cur, _ := c.dmaRegs.GuestWrite(off, v)
		if c.tx.state == Stopped {
			c.tx.cur = cur
		}
	case offRxBase:
		_, cur, _ := c.dmaRegs.GuestWrite(off, v)
		if c.rx.state == Stopped {
			c.rx.cur = cur
		}
	case offStatus, offIntEnable:
		c.dmaRegs.GuestWrite(off, v)
		c.updateIRQ()
	case offIntMask:
		// The mask gates the MAC's status into GLI and the line combinationally.
		c.macRegs.GuestWrite(off, v)
		c.updateIRQ()
	case offOpMode:
		c.writeOpMode(v)
	default:
		if f := c.file(off); f != nil {
			if _, ok := mmcCounterAt(off); !ok {
				f.GuestWrite(off, v)
			}
		}
	}
}

// writeOpMode applies CSR6: start/stop of both channels and the TX FIFO flush.
func (c *MAC) writeOpMode(v uint32) {
	old, cur, _ := c.dmaRegs.GuestWrite(offOpMode, v)
	if cur&opFTF != 0 && old&opFTF == 0 {
		c.flushTxFIFO()
	}
	switch {
	case cur&opST != 0 && old&opST == 0:
		c.txStart()
	case cur&opST == 0 && old&opST != 0:
		c.txStop()
	}
	switch {
	case cur&opSR != 0 && old&opSR == 0:
		c.rxStart()
	case cur&opSR == 0 && old&opSR != 0:
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
	c.mmc = [mmcCounterCount]uint32{}
	c.mmcCtl = 0
	c.tx = txEngine{buf: c.tx.buf, walkEv: c.tx.walkEv, lineEv: c.tx.lineEv}
	c.rx = rxEngine{}
	c.mdio = mdioMaster{}
	// The RGMII status is the PHY's in-band status, sampled again at once.
	c.applyLinkStatus()
	c.dmaRegs.Set(offBusMode, c.dmaRegs.Get(offBusMode)|busSWR)
	c.swrEv = c.m.After(softwareResetTime, c.swrDoneFn)
	c.counters.SoftwareResets++
	c.updateIRQ()
}

func (c *MAC) swrDone() {
	c.dmaRegs.Set(offBusMode, c.dmaRegs.Get(offBusMode)&^busSWR)
}

// writeMMCControl applies MMC_CNTRL: preset, then reset (Linux v5.4 writes both).
func (c *MAC) writeMMCControl(v uint32) {
	_, cur, _ := c.mmcRegs.GuestWrite(offMMCCntrl, v)
	if cur&mmcCntPreset != 0 {
		for i, d := range mmcCounterDefs {
			switch {
			case d.octet && cur&mmcPresetFull != 0:
				c.mmc[i] = 0xfffff800
			case d.octet:
				c.mmc[i] = 0x7ffff800
			case cur&mmcPresetFull != 0:
				c.mmc[i] = 0xfffffff0
			default:
				c.mmc[i] = 0x7ffffff0
			}
		}
	}
	if cur&mmcCntReset != 0 {
		c.mmc = [mmcCounterCount]uint32{}
	}
	cur &^= mmcCntReset | mmcCntPreset
	c.mmcRegs.Set(offMMCCntrl, cur)
	c.mmcCtl = cur
}

// mmcSlots maps (offset - mmcBase)/4 to a counter's index in MAC.mmc plus one
// (0: no counter there). A dense table: every register read asks it.
var mmcSlots = func() (slots [(mmcBlockEnd - mmcBase) / 4]uint8) {
	for i, d := range mmcCounterDefs {
		slots[d.off/4] = uint8(i + 1)
	}
	return slots
}()

// mmcCounterAt is the MMC counter at register offset off, if there is one.
func mmcCounterAt(off uint32) (mmcCounter, bool) {
	if off < mmcBase || off >= mmcBlockEnd || off%4 != 0 {
		return 0, false
	}
	s := mmcSlots[(off-mmcBase)/4]
	return mmcCounter(s) - 1, s != 0
}

// mmcAdd counts n into an MMC counter, honouring freeze and stop-at-rollover.
func (c *MAC) mmcAdd(i mmcCounter, n uint32) {
	if c.mmcCtl&mmcCntFreeze != 0 {
		return
	}
	v := c.mmc[i] + n
	if v < c.mmc[i] && c.mmcCtl&mmcCntStopRoll != 0 {
		v = 0xffffffff
	}
	c.mmc[i] = v
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
		c.macRegs.Set(offIntStatus, c.macRegs.Get(offIntStatus)|intRGMII)
		c.updateIRQ()
	}
}

func (c *MAC) applyLinkStatus() {
	var v uint32
	if c.link.fullDuplex {
		v |= 1
	}
	switch c.link.speed {
	case 100:
		v |= 1 << 1
	case 1000:
		v |= 2 << 1
	}
	if c.link.up {
		v |= 1 << 3
	}
	c.macRegs.Set(offRGMIIStatus, v)
}

// LineRate is the speed the MAC is configured for (PS/FES) in Mbit/s. Lock held.
func (c *MAC) LineRate() int {
	cfg := c.macRegs.Get(offMACConfig)
	switch {
	case cfg&cfgPS == 0:
		return 1000
	case cfg&cfgFES != 0:
		return 100
	}
	return 10
}

// FullDuplex reports the MAC's duplex setting (DM). Lock held.
func (c *MAC) FullDuplex() bool { return c.macRegs.Get(offMACConfig)&cfgDM != 0 }

// Counters returns a snapshot of the model's counters. Lock held.
func (c *MAC) Counters() Counters { return c.counters }

// TxState is the TX DMA process state. Lock held.
func (c *MAC) TxState() ProcessState { return c.tx.state }

// RxState is the RX DMA process state. Lock held.
func (c *MAC) RxState() ProcessState { return c.rx.state }
