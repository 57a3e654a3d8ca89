package stmmac

import (
	"encoding/binary"

	"mesonemu/emu"
	"mesonemu/ether"
)

const (
	// txWalkBatch bounds the descriptors one event may fetch; a ring that never ends a
	// frame continues in a later event, after the virtual time those fetches took.
	txWalkBatch = 64
	// txMaxFrameDescs bounds the descriptors remembered for one frame's write-back.
	txMaxFrameDescs = 64
)

// txEngine is the TX DMA and the MAC transmitter. One frame at a time is gathered,
// then occupies the line; the next is gathered when it has left.
type txEngine struct {
	state ProcessState
	cur   uint32 // current descriptor address
	// walkEv continues a descriptor walk; lineEv fires when the frame's last bit
	// has left. Both are made once and re-queued, so the frame path allocates no
	// events; at most one of them is pending.
	walkEv, lineEv *emu.Event

	// Frame being gathered (inFrame) or complete (ready).
	buf     []byte // MaxFrame + FCS bytes, reused for every frame
	length  int    // bytes gathered, saturating just above MaxFrame
	inFrame bool
	ready   bool
	ctrl    uint32 // TDES1 of the first descriptor: DC, DP, CIC
	ic      bool
	descs   [txMaxFrameDescs]uint32
	ndesc   int

	// Complete frame.
	status  uint32 // TDES0 to write back
	wireLen int    // bytes on the wire after the preamble (FCS included; cut length on jabber)
	send    bool   // false: flushed by the jabber timer
	readyAt emu.Time

	stopAfterFrame bool
	dmaClock       emu.Time // when the DMA finished its last bus work
	kickTime       emu.Time // when the engine was last started or resumed
	lineFree       emu.Time // when the line (IFG included) is free again
}

// busy reports whether a walk continuation or a frame on the line is scheduled.
func (t *txEngine) busy() bool { return t.walkEv.Pending() || t.lineEv.Pending() }

// txStart handles ST 0 -> 1: the engine looks at the current descriptor (the list
// base when it was written while stopped, else where it stopped).
func (c *MAC) txStart() {
	t := &c.tx
	t.stopAfterFrame = false
	if t.state == Running {
		return // still finishing the frame it had when ST was cleared
	}
	t.state = Running
	t.kickTime = c.m.Now()
	c.txWalk()
}

// txStop handles ST 1 -> 0: the frame on the line (or held for TE) completes first.
func (c *MAC) txStop() {
	t := &c.tx
	if t.state == Stopped {
		return
	}
	if t.ready {
		t.stopAfterFrame = true
		return
	}
	c.m.Cancel(t.walkEv)
	c.m.Cancel(t.lineEv)
	c.txAbortFrame(tdes0Flushed | tdes0ES)
	c.txEnterStopped()
}

func (c *MAC) txEnterStopped() {
	c.tx.state = Stopped
	c.tx.stopAfterFrame = false
	c.setTS(tsStopped)
	c.raise(stTPS.Mask())
}

// txHalt stops the channel at once after a fatal bus error: no more bus accesses, the
// frame is lost and its descriptors stay as they are.
func (c *MAC) txHalt() {
	t := &c.tx
	c.m.Cancel(t.walkEv)
	c.m.Cancel(t.lineEv)
	t.inFrame, t.ready, t.ndesc, t.length = false, false, 0, 0
	t.state = Stopped
	t.stopAfterFrame = false
	c.setTS(tsStopped)
}

// txPollDemand resumes a suspended engine.
func (c *MAC) txPollDemand() {
	t := &c.tx
	if t.state != Suspended {
		return
	}
	t.state = Running
	t.kickTime = c.m.Now()
	c.txWalk()
}

// txSuspend: the current descriptor belongs to the host.
func (c *MAC) txSuspend() {
	c.tx.state = Suspended
	c.counters.TxBufferUnavail++
	c.setTS(tsSuspended)
	c.raise(stTU.Mask())
}

// nextDesc is the descriptor after addr: the list base on end-of-ring (which wins over
// chaining), DES3 when chained, else the next slot in the ring.
func (c *MAC) nextDesc(addr, des1, des3 uint32, endRing, chained uint32, base uint32) uint32 {
	switch {
	case des1&endRing != 0:
		return base
	case des1&chained != 0:
		return des3 &^ 3
	}
	bus := c.dmaRegs.Get(offBusMode)
	size := uint32(descBytes)
	if bus&busATDS.Mask() != 0 {
		size = altDescBytes
	}
	return addr + size + busDSL.Get(bus)*4
}

// txWalk fetches descriptors from the current position while the DMA owns them,
// gathering buffers until a descriptor with LS completes the frame. Each fetch and
// buffer read costs bus time, so a ring that never ends a frame consumes virtual time.
func (c *MAC) txWalk() {
	t := &c.tx
	if t.busy() {
		return // a walk or a frame is already scheduled
	}
	if t.state != Running || t.ready {
		return
	}
	ram := c.m.Bus().RAM()
	clock := max(t.dmaClock, t.kickTime)
	c.setTS(tsFetching)
	for range txWalkBatch {
		addr := t.cur &^ 3
		d, ok := ram.Slice(addr, descBytes)
		if !ok {
			c.busError(true, true, true)
			return
		}
		clock += descFetchTime
		c.counters.TxDescFetches++
		c.dmaRegs.Set(offCurTxDesc, addr)
		des0 := binary.LittleEndian.Uint32(d[0:])
		des1 := binary.LittleEndian.Uint32(d[4:])
		des2 := binary.LittleEndian.Uint32(d[8:])
		des3 := binary.LittleEndian.Uint32(d[12:])
		if des0&descOWN == 0 {
			t.dmaClock = clock
			c.txSuspend()
			return
		}
		if !t.inFrame {
			// Assumption: a first descriptor without FS starts the frame all the same.
			t.inFrame, t.ctrl, t.ic, t.length, t.ndesc = true, des1, false, 0, 0
		}
		if !c.txRecordDesc(addr) {
			return
		}
		if des1&tdes1IC != 0 {
			t.ic = true
		}
		t.cur = c.nextDesc(addr, des1, des3, tdes1TER, tdes1TCH, c.dmaRegs.Get(offTxBase))
		if !c.txGather(des2, int(des1&descBufSizeMask), &clock) {
			return
		}
		if des1&tdes1TCH == 0 {
			// Ring mode: DES3 is the second buffer.
			if !c.txGather(des3, int(des1>>tdes1TBS2Shift&descBufSizeMask), &clock) {
				return
			}
		}
		if des1&tdes1LS != 0 {
			t.dmaClock = clock
			c.txFinishFrame(clock)
			return
		}
	}
	t.dmaClock = clock
	c.m.Schedule(t.walkEv, clock)
}

// txRecordDesc remembers a descriptor of the current frame for the write-back. A
// descriptor met again (a loop) is remembered once; past txMaxFrameDescs the oldest
// are closed early (OWN 0, no status).
func (c *MAC) txRecordDesc(addr uint32) bool {
	t := &c.tx
	for i := range t.ndesc {
		if t.descs[i] == addr {
			return true
		}
	}
	if t.ndesc == len(t.descs) {
		if !c.txWriteBack(0) {
			return false
		}
	}
	t.descs[t.ndesc] = addr
	t.ndesc++
	return true
}

// txGather reads one buffer into the frame. Zero-length buffers are skipped.
func (c *MAC) txGather(addr uint32, n int, clock *emu.Time) bool {
	if n == 0 {
		return true
	}
	t := &c.tx
	p, ok := c.m.Bus().RAM().Slice(addr, n)
	if !ok {
		c.busError(true, true, false)
		return false
	}
	*clock += bufferReadTime(n)
	c.dmaRegs.Set(offCurTxBuf, addr)
	limit := c.cfg.MaxFrame
	if t.length < limit {
		copy(t.buf[t.length:limit], p)
	}
	t.length = min(t.length+n, limit+1)
	return true
}

// jabberLimit is how many bytes the transmitter sends before cutting a frame off.
func (c *MAC) jabberLimit() int {
	cfg := c.macRegs.Get(offMACConfig)
	switch {
	case cfg&cfgJD.Mask() != 0:
		return c.cfg.MaxFrame
	case cfg&cfgJE.Mask() != 0:
		return c.cfg.JumboJabberLimit
	}
	return c.cfg.JabberLimit
}

// txFinishFrame completes the frame in the FIFO: padding, checksum insertion, FCS, or
// the jabber cut-off; then it goes to the line.
func (c *MAC) txFinishFrame(dataReady emu.Time) {
	t := &c.tx
	t.inFrame = false
	n := t.length
	noCRC := t.ctrl&tdes1DC != 0
	if n < minFrameNoFCS && t.ctrl&tdes1DP == 0 {
		// Padding always brings the CRC with it, whatever DC says.
		clear(t.buf[n:minFrameNoFCS])
		n, noCRC = minFrameNoFCS, false
	}
	wire := n
	if !noCRC {
		wire += fcsLen
	}
	var status uint32
	if n >= 14 && binary.BigEndian.Uint16(t.buf[12:14]) == etherTypeVLAN {
		status |= tdes0VLAN
	}
	if limit := c.jabberLimit(); wire > limit {
		status |= tdes0Jabber | tdes0ES
		t.send, t.wireLen = false, limit
	} else {
		if cic := t.ctrl >> tdes1CICShift & 3; cic != 0 {
			errs, inserted := insertChecksums(t.buf[:n], cic)
			status |= errs
			if errs != 0 {
				status |= tdes0ES
			}
			if inserted {
				c.counters.TxChecksumInserts++
			}
		}
		if !noCRC {
			binary.LittleEndian.PutUint32(t.buf[n:], ether.FCS(t.buf[:n]))
		}
		t.send, t.wireLen = true, wire
	}
	t.status = status
	t.ready = true
	t.readyAt = dataReady
	c.txLaunch()
}

// txLaunch puts a complete frame on the line once the transmitter is enabled and the
// line is free; the frame's event fires when its last bit has left.
func (c *MAC) txLaunch() {
	t := &c.tx
	if !t.ready || t.busy() {
		return
	}
	if c.macRegs.Get(offMACConfig)&cfgTE.Mask() == 0 {
		c.setTS(tsReading)
		return
	}
	bit := c.bitTime()
	start := max(c.m.Now(), t.lineFree, t.readyAt)
	lastBit := start + emu.Time(8*(preambleBytes+t.wireLen))*bit
	t.lineFree = lastBit + c.ifgBits()*bit
	c.m.Schedule(t.lineEv, lastBit)
	c.setTS(tsWaiting)
}

// txLineDone runs when the frame's last bit has left: hand it over, write back every
// descriptor, raise TI if asked, go on with the next frame.
func (c *MAC) txLineDone() {
	t := &c.tx
	frame := t.buf[:t.wireLen]
	if t.send {
		c.counters.TxFrames++
		c.counters.TxOctets += uint64(len(frame))
		c.mmcCountTx(frame, true)
		if c.macRegs.Get(offMACConfig)&cfgLM.Mask() != 0 {
			c.Receive(frame)
		} else if c.transmit != nil {
			c.transmit(frame)
		}
	} else {
		c.counters.TxJabberFlushed++
		c.mmcCountTx(frame, false)
		c.raise(stTJT.Mask())
	}
	t.ready = false
	if !c.txWriteBack(t.status) {
		return
	}
	if t.ic {
		c.raise(stTI.Mask())
	}
	if t.stopAfterFrame {
		c.txEnterStopped()
		return
	}
	c.txWalk()
	c.updateIRQ()
}

// txWriteBack writes TDES0 = status (OWN cleared) to every remembered descriptor.
func (c *MAC) txWriteBack(status uint32) bool {
	t := &c.tx
	ram := c.m.Bus().RAM()
	for i := range t.ndesc {
		if !ram.Write32(t.descs[i], status) {
			c.busError(true, false, true)
			return false
		}
	}
	t.ndesc = 0
	return true
}

// txAbortFrame gives a partly gathered frame back to the host with status.
func (c *MAC) txAbortFrame(status uint32) {
	t := &c.tx
	if t.inFrame || t.ready {
		c.txWriteBack(status)
	}
	t.inFrame, t.ready, t.length = false, false, 0
}

// flushTxFIFO handles FTF: a complete frame that has not reached the line is dropped
// (TDES0 frame flushed); the bit clears when the FIFO has been walked.
func (c *MAC) flushTxFIFO() {
	t := &c.tx
	if t.ready && !t.busy() {
		c.counters.TxFIFOFlushed++
		t.ready = false
		if c.txWriteBack(tdes0Flushed|tdes0ES) && t.state == Running && !t.stopAfterFrame {
			c.txWalk()
		} else if t.stopAfterFrame {
			c.txEnterStopped()
		}
	}
	c.m.Cancel(c.ftfEv)
	c.ftfEv = c.m.After(emu.Time(c.cfg.TxFIFOBytes/bytesPerFlushNs), c.ftfDoneFn)
}

func (c *MAC) ftfDone() {
	c.ftfEv = nil
	c.dmaRegs.Set(offOpMode, c.dmaRegs.Get(offOpMode)&^opFTF.Mask())
}

// mmcCountTx counts a frame that left (good) or was cut off by the jabber timer.
func (c *MAC) mmcCountTx(frame []byte, good bool) {
	n := len(frame)
	c.mmcAdd(mmcTxFrameCountGB, 1)
	c.mmcAdd(mmcTxOctetCountGB, uint32(n))
	c.mmcSizeBucket(mmcTx64OctetsGB, n)
	if n < 6 {
		return
	}
	switch {
	case isBroadcast(frame):
		c.mmcAdd(mmcTxBroadcastGB, 1)
		if good {
			c.mmcAdd(mmcTxBroadcastFrameG, 1)
		}
	case frame[0]&1 != 0:
		c.mmcAdd(mmcTxMulticastGB, 1)
		if good {
			c.mmcAdd(mmcTxMulticastFrameG, 1)
		}
	default:
		c.mmcAdd(mmcTxUnicastGB, 1)
	}
	if good {
		c.mmcAdd(mmcTxFrameCountG, 1)
		c.mmcAdd(mmcTxOctetCountG, uint32(n))
		if n >= 14 && binary.BigEndian.Uint16(frame[12:14]) == etherTypeVLAN {
			c.mmcAdd(mmcTxVLANFrameG, 1)
		}
	}
}
