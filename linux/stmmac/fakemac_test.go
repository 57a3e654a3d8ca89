package stmmac

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"mesonemu/emu"
)

// fakeMAC is a small stand-in for the DWMAC, enough to drive the driver through
// its paths before (and besides) the real model: registers it records, a software
// reset and an MDIO busy bit that clear after a chosen number of reads, and a DMA
// engine that runs the TX ring at once on a poll demand, optionally looping frames
// back into the RX ring. Like silicon it runs with the machine lock held.
type fakeMAC struct {
	ram *emu.RAM
	irq *emu.IRQ

	regs map[uint32]uint32
	ops  []regOp // every register access, in order

	swrReads  int // reads of CSR0 before SWR clears (-1: never)
	swrLeft   int
	gbReads   int // reads of the MII address register before GB clears (-1: never)
	gbLeft    int
	phy       [32][32]uint16
	hwFeature uint32

	status    uint32 // CSR5 bits 16:0 and the RS field
	txDesc    uint32
	rxDesc    uint32
	txStalled bool // ignore TX poll demands (a DMA that never finishes)
	loopback  bool
	missed    uint32
	txErrBits uint32 // TDES0 status for the next transmitted frame
	rxErrBits uint32 // RDES0 error bits for the next received frame
	mmcFrames uint32 // mmc_tx_framecount_gb
	sent      [][]byte
}

type regOp struct {
	write bool
	off   uint32
	val   uint32
}

func (o regOp) String() string {
	if o.write {
		return fmt.Sprintf("W%#x=%#x", o.off, o.val)
	}
	return fmt.Sprintf("R%#x=%#x", o.off, o.val)
}

func newFakeMAC(ram *emu.RAM, irq *emu.IRQ) *fakeMAC {
	f := &fakeMAC{ram: ram, irq: irq, regs: map[uint32]uint32{}, swrReads: 1, gbReads: 1,
		hwFeature: 0x000d0f37, loopback: true}
	f.reset()
	return f
}

func (f *fakeMAC) reset() {
	clear(f.regs)
	f.regs[dmaBusMode] = 0x00020100 // databook reset value (PBL 1, RPBL 1)
	f.regs[gmacVersion] = 0x1137
	f.status = 0
}

func (f *fakeMAC) Name() string { return "fakemac" }

func (f *fakeMAC) ReadReg(off uint32) uint32 {
	v := f.read(off)
	f.ops = append(f.ops, regOp{false, off, v})
	return v
}

// readBusy reads a register whose busy bit clears by itself: the read after *left
// more reads of it set runs done first (a negative *left: the bit never clears).
func (f *fakeMAC) readBusy(off, busy uint32, left *int, done func()) uint32 {
	v := f.regs[off]
	if v&busy != 0 && *left >= 0 {
		if *left == 0 {
			done()
			v = f.regs[off]
		} else {
			*left--
		}
	}
	return v
}

func (f *fakeMAC) read(off uint32) uint32 {
	switch off {
	case dmaBusMode:
		return f.readBusy(off, dmaBusModeSftReset, &f.swrLeft, f.reset)
	case gmacMIIAddr:
		return f.readBusy(off, miiBusy, &f.gbLeft, f.finishMDIO)
	case dmaStatus:
		return f.csr5()
	case dmaHWFeature:
		return f.hwFeature
	case dmaMissedFrame:
		v := f.missed
		f.missed = 0
		return v
	case mmcBase + 0x18: // mmc_tx_framecount_gb, reset on read
		v := f.mmcFrames
		if f.regs[mmcBase+mmcCntrl]&mmcCntrlResetOnRead != 0 {
			f.mmcFrames = 0
		}
		return v
	}
	return f.regs[off]
}

func (f *fakeMAC) WriteReg(off, v uint32) {
	f.ops = append(f.ops, regOp{true, off, v})
	switch off {
	case dmaBusMode:
		f.regs[off] = v
		if v&dmaBusModeSftReset != 0 {
			f.swrLeft = f.swrReads
		}
	case gmacMIIAddr:
		f.regs[off] = v
		if v&miiBusy != 0 {
			f.gbLeft = f.gbReads
		}
	case dmaStatus:
		f.status &^= v & dmaStatusW1CMask
	case dmaXmtPollDemand:
		f.runTx()
	case dmaRcvPollDemand:
		f.status &^= dmaStatusRSMask
	case dmaTxBaseAddr:
		f.regs[off] = v
		f.txDesc = v
	case dmaRcvBaseAddr:
		f.regs[off] = v
		f.rxDesc = v
	case dmaControl:
		old := f.regs[off]
		f.regs[off] = v
		if v&^old&dmaControlST != 0 {
			f.runTx()
		}
	default:
		f.regs[off] = v
	}
	f.update()
}

func (f *fakeMAC) finishMDIO() {
	a := f.regs[gmacMIIAddr]
	phy, reg := (a&miiAddrMask)>>miiAddrShift, (a&miiRegMask)>>miiRegShift
	if a&miiWrite != 0 {
		f.phy[phy][reg] = uint16(f.regs[gmacMIIData])
	} else {
		f.regs[gmacMIIData] = uint32(f.phy[phy][reg])
	}
	f.regs[gmacMIIAddr] = a &^ miiBusy
}

// csr5 adds the NIS/AIS summaries: the OR of the enabled sources of each group.
func (f *fakeMAC) csr5() uint32 {
	ena := f.regs[dmaIntrEna]
	v := f.status
	if v&ena&(dmaStatusTI|dmaStatusTU|dmaStatusRI|dmaStatusERI) != 0 {
		v |= dmaStatusNIS
	}
	if v&ena&(dmaStatusTPS|dmaStatusTJT|dmaStatusOVF|dmaStatusUNF|dmaStatusRU|
		dmaStatusRPS|dmaStatusRWT|dmaStatusETI|dmaStatusFBI) != 0 {
		v |= dmaStatusAIS
	}
	return v
}

func (f *fakeMAC) update() {
	v, ena := f.csr5(), f.regs[dmaIntrEna]
	f.irq.Set(v&ena&(dmaStatusNIS|dmaStatusAIS) != 0)
}

// raise sets status bits (fault injection) and updates the line.
func (f *fakeMAC) raise(bits uint32) {
	f.status |= bits
	f.update()
}

func (f *fakeMAC) runTx() {
	if f.txStalled || f.regs[dmaControl]&dmaControlST == 0 {
		return
	}
	for range 4096 {
		d0, _ := f.ram.Read32(f.txDesc)
		if d0&tdes0OWN == 0 {
			f.status |= dmaStatusTU
			break
		}
		d1, _ := f.ram.Read32(f.txDesc + 4)
		d2, _ := f.ram.Read32(f.txDesc + 8)
		n := int(d1&tdes1Buffer1SizeMask) + int(d1&tdes1Buffer2SizeMask)>>tdes1Buffer2SizeShift
		p, ok := f.ram.Slice(d2, n)
		if !ok {
			f.status |= dmaStatusFBI | dmaStatusTPS
			break
		}
		frame := append([]byte(nil), p...)
		f.ram.Write32(f.txDesc, f.txErrBits)
		f.txErrBits = 0
		f.mmcFrames++
		if d1&tdes1Interrupt != 0 {
			f.status |= dmaStatusTI
		}
		if d1&tdes1EndRing != 0 {
			f.txDesc = f.regs[dmaTxBaseAddr]
		} else {
			f.txDesc += descSize
		}
		f.sent = append(f.sent, frame)
		if f.loopback && f.regs[gmacControl]&gmacControlRE != 0 {
			f.receive(frame)
		}
	}
	f.update()
}

// receive puts frame plus its FCS into the RX ring as the DMA would.
func (f *fakeMAC) receive(frame []byte) {
	if f.regs[dmaControl]&dmaControlSR == 0 {
		return
	}
	full := binary.LittleEndian.AppendUint32(append([]byte(nil), frame...), crc32.ChecksumIEEE(frame))
	d0, _ := f.ram.Read32(f.rxDesc)
	if d0&rdes0OWN == 0 {
		f.status |= dmaStatusRU
		f.status = f.status&^dmaStatusRSMask | dmaStatusRxSuspended
		f.missed++
		f.update()
		return
	}
	d1, _ := f.ram.Read32(f.rxDesc + 4)
	d2, _ := f.ram.Read32(f.rxDesc + 8)
	p, ok := f.ram.Slice(d2, len(full))
	if !ok || len(full) > int(d1&rdes1Buffer1SizeMask) {
		f.status |= dmaStatusFBI | dmaStatusRPS
		f.update()
		return
	}
	copy(p, full)
	st := uint32(len(full))<<rdes0FrameLenShift | rdes0FirstDescriptor | rdes0LastDescriptor | rdes0FrameType
	if f.rxErrBits != 0 {
		st |= f.rxErrBits | rdes0ErrorSummary
		f.rxErrBits = 0
	}
	f.ram.Write32(f.rxDesc, st)
	// The RX watchdog is not timed here: a DIC frame raises RI at once when RIWT
	// is programmed, never otherwise.
	if d1&rdes1DisableIC == 0 || f.regs[dmaRxWatchdog] != 0 {
		f.status |= dmaStatusRI
	}
	if d1&rdes1EndRing != 0 {
		f.rxDesc = f.regs[dmaRcvBaseAddr]
	} else {
		f.rxDesc += descSize
	}
	f.update()
}

// writes returns the recorded register writes.
func (f *fakeMAC) writes() []regOp {
	var w []regOp
	for _, op := range f.ops {
		if op.write {
			w = append(w, op)
		}
	}
	return w
}
