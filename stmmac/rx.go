package stmmac

import (
	"encoding/binary"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/reg"
)

// rxMaxFrameDescs bounds the descriptors one frame may visit.
const rxMaxFrameDescs = 64

// rxEngine is the RX DMA.
type rxEngine struct {
	state  ProcessState
	cur    uint32     // current descriptor address
	riwtEv *emu.Event // RX interrupt watchdog (RIWT) for DIC frames
}

// rxThresholds maps CSR6 RTC to the cut-through threshold in bytes.
var rxThresholds = [4]int{64, 32, 96, 128}

// Receive takes one frame (FCS included) at the moment its last bit has arrived at
// the MAC and reports what became of it. Lock held. The slice is not kept.
func (c *MAC) Receive(frame []byte) RxOutcome {
	c.counters.RxSeen++
	o := c.receive(frame)
	c.counters.countOutcome(o)
	return o
}

func (c *MAC) receive(frame []byte) RxOutcome {
	cfg := c.macRegs.Get(offMACConfig)
	if cfg&cfgRE.Mask() == 0 {
		c.counters.RxReceiverOff++
		return DroppedDisabled
	}
	op := c.dmaRegs.Get(offOpMode)
	f, drop, ok := c.rxCheck(frame, cfg, op)
	if !ok {
		return drop
	}

	pass, daFail := c.addressFilter(f.data)
	if f.typ == etherTypeControl {
		pass = c.controlFrameFilter(f.data, pass)
	}
	if !pass {
		return DroppedFiltered
	}
	if op&opSR.Mask() == 0 || c.rx.state == Stopped {
		c.counters.RxDMAStopped++
		return DroppedDisabled
	}

	status := c.rxStatus(f, cfg, daFail)
	deliver := f.data
	if !f.cut {
		deliver = c.rxStrip(f.data, cfg, f.typ)
	}
	o := c.rxDeliver(deliver, status)
	if o == Delivered {
		c.counters.RxOctets += uint64(len(deliver))
		if status&rdes0ES != 0 {
			c.counters.RxDeliveredWithErrors++
		}
	}
	return o
}

// rxFrame is a received frame as the MAC's checks found it.
type rxFrame struct {
	data  []byte // as far as the receive watchdog let it in
	typ   uint16 // EtherType or 802.3 length
	vlan  bool
	crcOK bool
	giant bool
	cut   bool // cut off by the receive watchdog
}

// rxCheck applies the receive watchdog and the length, CRC and FIFO checks, counting
// the frame in the MMC. It reports whether the frame goes on to the address filter,
// and the outcome if not.
func (c *MAC) rxCheck(frame []byte, cfg, op uint32) (rxFrame, RxOutcome, bool) {
	// The receive watchdog cuts frames off; nothing past it is looked at.
	f := rxFrame{data: frame}
	if limit := c.rxWatchdogLimit(cfg); len(f.data) > limit {
		f.data, f.cut = f.data[:limit], true
	}
	data, cut := f.data, f.cut
	n := len(data)
	c.mmcAdd(mmcRxFrameCountGB, 1)
	c.mmcAdd(mmcRxOctetCountGB, uint32(n))
	if n < minHeaderAndFCS {
		c.mmcAdd(mmcRxRunError, 1)
		return f, DroppedLength, false
	}
	f.crcOK = !cut && ether.CheckFCS(data)
	if !f.crcOK && !cut {
		c.mmcAdd(mmcRxCRCError, 1)
		c.counters.RxCRCErrors++
	}
	f.typ, _, f.vlan, _ = etherType(data)
	f.giant = !cut && n > c.giantLimit(cfg, f.vlan)
	if cut {
		c.mmcAdd(mmcRxWatchdogError, 1)
	}
	if n >= minRxFrame {
		c.mmcSizeBucket(mmcRx64OctetsGB, n)
	}
	switch {
	case n < minRxFrame && !f.crcOK:
		// Runts (collision fragments) are never forwarded.
		c.mmcAdd(mmcRxRunError, 1)
		return f, DroppedLength, false
	case n < minRxFrame:
		c.mmcAdd(mmcRxUndersizeG, 1)
		if op&opFUF.Mask() == 0 {
			return f, DroppedLength, false
		}
	case f.giant && f.crcOK:
		c.mmcAdd(mmcRxOversizeG, 1)
	case f.giant:
		c.mmcAdd(mmcRxJabberError, 1)
	}
	good := f.crcOK && !f.giant
	if good {
		c.mmcCountRxGood(data, f.vlan, f.typ)
	}
	if op&opRSF.Mask() != 0 && n > c.cfg.RxFIFOBytes {
		// Store and forward cannot hold a frame larger than the FIFO.
		c.mmcAdd(mmcRxFIFOOverflow, 1)
		c.countOverflowMiss()
		return f, DroppedLength, false
	}
	if !good && op&opFEF.Mask() == 0 && (op&opRSF.Mask() != 0 || n <= rxThresholds[opRTC.Get(op)]) {
		if !f.crcOK && !cut {
			return f, DroppedCRC, false
		}
		return f, DroppedLength, false
	}
	return f, 0, true
}

// rxWatchdogLimit is the longest frame the receiver takes: 2048 bytes (10240 with JE),
// or with WD what the 14-bit frame length field can report.
func (c *MAC) rxWatchdogLimit(cfg uint32) int {
	switch {
	case cfg&cfgWD.Mask() != 0:
		return min(c.cfg.MaxFrame, rdes0FLMax)
	case cfg&cfgJE.Mask() != 0:
		return c.cfg.JumboJabberLimit
	}
	return c.cfg.JabberLimit
}

// giantLimit is the longest frame that is not a giant: 1518 bytes (+4 tagged), 2000
// with 2KPE, 9018 (+4 tagged) with JE.
func (c *MAC) giantLimit(cfg uint32, vlan bool) int {
	limit := maxUntagged
	switch {
	case cfg&cfgJE.Mask() != 0:
		limit = maxJumbo
	case cfg&cfg2K.Mask() != 0:
		return max2K
	}
	if vlan {
		limit += vlanTagLen
	}
	return limit
}

// rxStatus composes RDES0 without OWN, FS, LS and FL.
func (c *MAC) rxStatus(f rxFrame, cfg uint32, daFail bool) uint32 {
	data, typ, vlan, crcOK, giant, cut := f.data, f.typ, f.vlan, f.crcOK, f.giant, f.cut
	var st uint32
	if !crcOK && !cut {
		st |= rdes0CRC | rdes0ES
	}
	if cut {
		st |= rdes0Watchdog | rdes0ES
	}
	if vlan {
		st |= rdes0VLAN
	}
	if daFail {
		st |= rdes0DAFilterFl
	}
	if cfg&cfgIPC.Mask() != 0 && crcOK && !cut {
		// Bit 7 reports IP header errors here and is not part of ES.
		st |= c.rxChecksumStatus(data[:len(data)-fcsLen])
		if giant {
			st |= rdes0ES
		}
		return st
	}
	if typ >= etherTypeMin {
		st |= rdes0FrameType
	}
	if giant {
		st |= rdes0IPCGiant | rdes0ES
	}
	return st
}

// rxStrip applies ACS (pad and FCS of 802.3 length frames) and CST (FCS of type frames).
func (c *MAC) rxStrip(data []byte, cfg uint32, typ uint16) []byte {
	switch {
	case typ < etherTypeMin && cfg&cfgACS.Mask() != 0:
		if l := ethHeaderLen + int(typ); l <= len(data)-fcsLen {
			return data[:l]
		}
		c.mmcAdd(mmcRxLengthError, 1)
	case typ >= etherTypeMin && cfg&cfgCST.Mask() != 0:
		return data[:len(data)-fcsLen]
	}
	return data
}

// mmcCountRxGood counts a frame received without CRC or size error.
func (c *MAC) mmcCountRxGood(data []byte, vlan bool, typ uint16) {
	c.mmcAdd(mmcRxOctetCountG, uint32(len(data)))
	switch {
	case isBroadcast(data):
		c.mmcAdd(mmcRxBroadcastFrameG, 1)
	case data[0]&1 != 0:
		c.mmcAdd(mmcRxMulticastFrameG, 1)
	default:
		c.mmcAdd(mmcRxUnicastG, 1)
	}
	if vlan {
		c.mmcAdd(mmcRxVLANFramesGB, 1)
	}
	if typ == etherTypeControl && len(data) >= 16 && data[14] == 0 && data[15] == 1 {
		c.mmcAdd(mmcRxPauseFrames, 1)
	}
	if typ < etherTypeMin && int(typ) > len(data)-minHeaderAndFCS {
		c.mmcAdd(mmcRxLengthError, 1)
	}
}

// rxDesc is one fetched RX descriptor.
type rxDesc struct {
	addr                   uint32
	des0, des1, des2, des3 uint32
}

func (c *MAC) rxFetch(addr uint32) (rxDesc, bool) {
	addr &^= 3
	d, ok := c.m.Bus().RAM().Slice(addr, descBytes)
	if !ok {
		c.busError(false, true, true)
		return rxDesc{}, false
	}
	c.counters.RxDescFetches++
	c.dmaRegs.Set(offCurRxDesc, addr)
	return rxDesc{addr: addr,
		des0: binary.LittleEndian.Uint32(d[0:]), des1: binary.LittleEndian.Uint32(d[4:]),
		des2: binary.LittleEndian.Uint32(d[8:]), des3: binary.LittleEndian.Uint32(d[12:])}, true
}

// rxDeliver writes the frame into the buffers of owned descriptors (FS on the first,
// LS on the last, RDES0 written whole), then raises RI or arms the RX watchdog.
func (c *MAC) rxDeliver(data []byte, status uint32) RxOutcome {
	r := &c.rx
	ram := c.m.Bus().RAM()
	d, ok := c.rxFetch(r.cur)
	if !ok {
		return DroppedBusError
	}
	if d.des0&descOWN == 0 {
		c.rxNoDescriptor()
		return DroppedNoDescriptor
	}
	r.state = Running
	c.setRS(rsWaiting)
	written := 0
	first := uint32(rdes0FS)
	for visits := 1; ; visits++ {
		chained := d.des1&rdes1RCH != 0
		next := c.nextDesc(d.addr, d.des1, d.des3, rdes1RER, rdes1RCH, c.dmaRegs.Get(offRxBase))
		bufs := [2]struct {
			addr uint32
			size int
		}{{d.des2, int(d.des1 & rdes1RBS1Mask)}, {d.des3, int(d.des1 >> rdes1RBS2Shift & descBufSizeMask)}}
		if chained {
			bufs[1].size = 0
		}
		for _, b := range bufs {
			k := min(b.size, len(data)-written)
			if k == 0 {
				continue
			}
			p, ok := ram.Slice(b.addr, k)
			if !ok {
				c.busError(false, false, false)
				return DroppedBusError
			}
			copy(p, data[written:written+k])
			c.dmaRegs.Set(offCurRxBuf, b.addr)
			written += k
		}
		r.cur = next
		if written == len(data) {
			return c.rxClose(d, first|rdes0LS|status|uint32(written)<<rdes0FLShift, false)
		}
		// More to write: the next descriptor must be ours, or the frame is truncated
		// here (descriptor error) and the engine suspends.
		nd, ok := c.rxFetch(next)
		if !ok {
			return DroppedBusError
		}
		if nd.des0&descOWN == 0 || visits == rxMaxFrameDescs {
			st := first | rdes0LS | rdes0DescError | rdes0ES | status | uint32(written)<<rdes0FLShift
			c.rxClose(d, st, true)
			c.counters.RxTruncated++
			if nd.des0&descOWN == 0 {
				c.rxNoDescriptor()
			}
			return DroppedNoDescriptor
		}
		if d.des1&rdes1RBS1Mask != 0 || !chained && d.des1>>rdes1RBS2Shift&descBufSizeMask != 0 {
			// A descriptor that took data is closed; Assumption: one with no buffer
			// space at all is passed over and left owned.
			if !ram.Write32(d.addr, first) {
				c.busError(false, false, true)
				return DroppedBusError
			}
			first = 0
		}
		d = nd
	}
}

// rxClose writes the last descriptor's RDES0 and signals completion: RI, or with DIC
// the RX interrupt watchdog.
func (c *MAC) rxClose(d rxDesc, des0 uint32, truncated bool) RxOutcome {
	if !c.m.Bus().RAM().Write32(d.addr, des0&^descOWN) {
		c.busError(false, false, true)
		return DroppedBusError
	}
	if d.des1&rdes1DIC == 0 {
		c.m.Cancel(c.rx.riwtEv)
		c.rx.riwtEv = nil
		c.raise(stRI.Mask())
	} else if riwt := riwtCount.Get(c.dmaRegs.Get(offRIWT)); riwt != 0 && (c.cfg.RIWTRestart || !c.rx.riwtEv.Pending()) {
		c.m.Cancel(c.rx.riwtEv)
		delay := emu.Time(uint64(riwt) * 256 * uint64(emu.Second) / c.cfg.CSRClockHz)
		c.rx.riwtEv = c.m.After(delay, c.rxWatchdogFn)
	}
	if truncated {
		return DroppedNoDescriptor
	}
	return Delivered
}

func (c *MAC) rxWatchdogExpired() {
	c.rx.riwtEv = nil
	c.raise(stRI.Mask())
}

// rxNoDescriptor: the current descriptor is the host's. RU is raised on the way into
// suspension; the frame counts as missed.
func (c *MAC) rxNoDescriptor() {
	r := &c.rx
	if r.state == Running {
		r.state = Suspended
		c.setRS(rsSuspended)
		c.raise(stRU.Mask())
	}
	c.dmaRegs.Set(offMissed, saturatingCount(c.dmaRegs.Get(offMissed), missedCount, missedOverflow))
}

// countOverflowMiss counts a frame lost to the RX FIFO in the missed frame register.
func (c *MAC) countOverflowMiss() {
	c.dmaRegs.Set(offMissed, saturatingCount(c.dmaRegs.Get(offMissed), missedFIFOCount, missedFIFOOverflw))
}

// saturatingCount counts one into field count of v; a full counter stays full and
// sets its overflow bit instead.
func saturatingCount(v uint32, count, overflow reg.Field) uint32 {
	if n := count.Get(v); n != count.Mask()>>count.Lo {
		return count.Set(v, n+1)
	}
	return v | overflow.Mask()
}

// rxStart handles SR 0 -> 1.
func (c *MAC) rxStart() {
	if c.rx.state != Stopped {
		return
	}
	c.rx.state = Running
	c.setRS(rsWaiting)
}

// rxStop handles SR 1 -> 0 (frames are written at once, so none is in progress).
func (c *MAC) rxStop() {
	if c.rx.state == Stopped {
		return
	}
	c.rx.state = Stopped
	c.setRS(rsStopped)
	c.raise(stRPS.Mask())
}

// rxHalt stops the channel after a fatal bus error.
func (c *MAC) rxHalt() {
	c.rx.state = Stopped
	c.setRS(rsStopped)
}

// rxPollDemand resumes a suspended RX DMA.
func (c *MAC) rxPollDemand() {
	if c.rx.state == Suspended {
		c.rx.state = Running
		c.setRS(rsWaiting)
	}
}
