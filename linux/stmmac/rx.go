package stmmac

import "fmt"

// ethFCSLen is ETH_FCS_LEN: the received frame length includes the FCS.
const ethFCSLen = 4

// SetReceiver installs the function that gets every good received frame (without
// FCS). The slice is only valid during the call. The callback runs in the NAPI
// poll, from the machine's run loop, with no TX lock held: it may call Xmit, but it
// must not block (no Transmit, which may wait for a TX clean that only this same
// softirq context can run) and must not call Close. nil removes it (frames are
// then counted as received and dropped, as by a stack that is not listening).
func (d *Driver) SetReceiver(fn func(frame []byte)) {
	if fn == nil {
		d.receiver.Store(nil)
		return
	}
	d.receiver.Store(&fn)
}

// rxHarvest is stmmac_rx for normal descriptors: walk from cur_rx while the DMA has
// given descriptors back, at most limit of them; drop frames the descriptor marks
// bad, deliver the others without their FCS; then refill. It returns the number of
// descriptors consumed. irqMu held.
func (d *Driver) rxHarvest(limit int) int {
	size := d.cfg.RxRingSize
	count := 0
	for count < limit {
		entry := d.rxCur
		desc := d.layout.RxDesc + uint32(entry*descSize)
		r0, ok := d.returned(desc, rdes0OWN, "stmmac rx: read RX descriptor", entry)
		if !ok {
			break
		}
		count++
		d.rxCur = (entry + 1) % size
		d.rxToRefill++
		if !d.rxStatusGood(r0) {
			d.ctr.netInc(nRxErrors)
			continue
		}
		// With normal descriptors the status is never llc_snap, so Linux always
		// strips the FCS. A length the buffer cannot hold is "len %d larger than
		// size" (rx_length_errors); one shorter than the FCS is counted the same way.
		fl := rxFrameLen(r0)
		if fl > d.cfg.BufSize || fl < ethFCSLen {
			d.ctr.netInc(nRxLengthErrors)
			continue
		}
		n := fl - ethFCSLen
		buf := d.layout.rxBufAddr(entry, d.cfg.BufSize)
		if err := d.bus.ReadRAM(buf, d.rxBuf[:n]); err != nil {
			d.noteAsync(fmt.Errorf("stmmac rx: read RX buffer %d: %w", entry, err))
			d.ctr.netInc(nRxDropped)
			continue
		}
		if fn := d.receiver.Load(); fn != nil {
			(*fn)(d.rxBuf[:n])
		}
		d.ctr.netInc(nRxPackets)
		d.ctr.netAdd(nRxBytes, n)
	}
	d.rxRefill()
	d.ctr.add(xRxPktN, uint64(count))
	return count
}

// rxStatusGood is ndesc_get_rx_status (v5.4) for a descriptor the DMA gave back:
// count what RDES0 reports and say whether the frame may be delivered.
func (d *Driver) rxStatusGood(r0 uint32) bool {
	if r0&rdes0LastDescriptor == 0 {
		// The frame did not fit one buffer: Linux drops it as a length error.
		d.ctr.netInc(nRxLengthErrors)
		return false
	}
	d.ctr.countStatus(r0, rxStatusCounters)
	return r0&(rdes0ErrorSummary|rdes0LengthError|rdes0MIIError) == 0
}

// rxRefill is stmmac_rx_refill: give every consumed descriptor back to the DMA by
// ORing OWN into RDES0 (the status the DMA wrote stays in the other bits, as in
// Linux); RDES1 keeps RBS1/RER/DIC from initialisation because ndesc_set_rx_owner
// ignores its disable_rx_ic argument. The buffers are never reallocated here, so
// RDES2 is not rewritten. irqMu held.
//
// Addition to Linux (whose dwmac1000 has no RX tail pointer to write): if the RX
// DMA had suspended for want of descriptors, write the RX poll demand so it resumes
// at once rather than on the next frame.
func (d *Driver) rxRefill() {
	// stmmac_rx_dirty computes this as cur - dirty modulo the ring size, which reads
	// 0 for a completely harvested ring; an explicit count has no such blind spot.
	size := d.cfg.RxRingSize
	entry, refilled := d.rxDirty, 0
	for ; d.rxToRefill > 0; d.rxToRefill-- {
		desc := d.layout.RxDesc + uint32(entry*descSize)
		r0, err := d.bus.Read32(desc + des0)
		if err == nil {
			err = d.bus.Write32(desc+des0, r0|rdes0OWN)
		}
		if err != nil {
			d.noteAsync(fmt.Errorf("stmmac rx refill: RX descriptor %d: %w", entry, err))
			break
		}
		entry = (entry + 1) % size
		refilled++
	}
	d.rxDirty = entry
	if refilled == 0 {
		return
	}
	st, err := d.rd(dmaStatus)
	if err != nil {
		d.noteAsync(fmt.Errorf("stmmac rx refill: read DMA status: %w", err))
		return
	}
	if d.rxSuspended || st&dmaStatusRSMask == dmaStatusRxSuspended {
		d.rxSuspended = false
		if err := d.wr(dmaRcvPollDemand, 1); err != nil {
			d.noteAsync(fmt.Errorf("stmmac rx refill: RX poll demand: %w", err))
		}
	}
}
