package stmmac

import (
	"errors"
	"fmt"
)

// closedChan is returned by TxWake when there is nothing to wait for.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Xmit queues one Ethernet frame (without FCS, MinFrameLen..MaxFrameLen bytes) for
// transmission, as stmmac_xmit does for a linear skb without checksum offload:
// copy it into the descriptor's buffer, fill TDES2/TDES1 (FS|LS, length, IC every
// TxCoalFrames-th frame, TER kept), hand the descriptor over with OWN last, and
// write the TX poll demand. It never blocks. ErrRingFull is NETDEV_TX_BUSY: the
// queue is stopped until TX clean frees a quarter of the ring (wait on TxWake).
//
// If only the final TX poll demand write fails, the frame is queued all the same
// and goes out with the next poll demand; the returned error says so.
func (d *Driver) Xmit(frame []byte) error {
	n := len(frame)
	if n < MinFrameLen || n > MaxFrameLen {
		return fmt.Errorf("%w: %d bytes, want %d..%d", ErrFrameSize, n, MinFrameLen, MaxFrameLen)
	}
	d.txMu.Lock()
	defer d.txMu.Unlock()
	if !d.open {
		return ErrClosed
	}
	if !d.carrier {
		return ErrNoCarrier
	}
	if d.txStopped || d.bqlStopped {
		return ErrRingFull
	}
	if d.txAvail() < 1 {
		// "Tx Ring full when queue awake": stop the queue and report busy.
		d.txStopped = true
		return ErrRingFull
	}
	entry := d.txCur
	buf := d.layout.txBufAddr(entry, d.cfg.BufSize)
	if err := d.bus.WriteRAM(buf, frame); err != nil {
		d.ctr.netInc(nTxDropped) // the dma_map_err path
		return fmt.Errorf("stmmac xmit: copy frame to %#08x: %w", buf, err)
	}
	// Coalescing: IC on the frame that reaches tx_coal_frames, otherwise the timer
	// will clean up.
	count := d.txCount + 1
	setIC := d.cfg.TxCoalFrames <= count
	w1 := tdes1FirstSegment | tdes1LastSegment | txLenBits(n)
	if entry == d.cfg.TxRingSize-1 {
		w1 |= tdes1EndRing
	}
	if setIC {
		w1 |= tdes1Interrupt
		count = 0
	}
	desc := d.layout.TxDesc + uint32(entry*descSize)
	// Linux builds TDES1 with several read-modify-writes and sets OWN last after
	// dma_wmb(); the DMA cannot look at the descriptor before OWN is set, so
	// writing the final TDES0..TDES2 at once is equivalent.
	if err := d.writeWords(&d.txDescBuf, desc, tdes0OWN, w1, buf); err != nil {
		d.ctr.netInc(nTxDropped)
		return fmt.Errorf("stmmac xmit: write TX descriptor %d: %w", entry, err)
	}
	d.txCount = count
	if setIC {
		d.ctr.inc(xTxSetICBit)
	}
	d.txCur = (entry + 1) % d.cfg.TxRingSize
	if d.txAvail() <= txStopThreshold {
		d.txStopped = true
	}
	d.ctr.netAdd(nTxBytes, n)
	d.bqlSent(entry, n)
	if err := d.wr(dmaXmtPollDemand, 1); err != nil {
		return fmt.Errorf("stmmac xmit: frame queued but TX poll demand failed: %w", err)
	}
	if !setIC || d.cfg.AlwaysArmTxTimer {
		d.armTxTimer(d.cfg.TxCoalTimerUs)
	}
	return nil
}

// SetTxCompletion installs the function told how many frames, oldest first,
// the driver has freed: each TX clean reports the descriptors it released and a
// TX error reports the frames it flushed, as dev_consume_skb_any / dev_kfree_skb
// run each skb's destructor (sock_wfree, which is what wakes TCP Small Queues).
// Frames leave the ring in the order Xmit queued them. It runs from the
// machine's run loop with driver locks held: it must not block or call the
// driver. nil removes it.
func (d *Driver) SetTxCompletion(fn func(frames int)) {
	if fn == nil {
		d.txDone.Store(nil)
		return
	}
	d.txDone.Store(&fn)
}

func (d *Driver) reportTxDone(frames int) {
	if frames == 0 {
		return
	}
	if fn := d.txDone.Load(); fn != nil {
		(*fn)(frames)
	}
}

// Transmit is Xmit that waits while the ring is full, for a network stack's
// transmit goroutine. It returns ErrClosed once the device is closed and
// ErrNoCarrier at once while the link is down (the frame is not queued).
func (d *Driver) Transmit(frame []byte) error {
	for {
		err := d.Xmit(frame)
		if !errors.Is(err, ErrRingFull) {
			return err
		}
		<-d.TxWake()
	}
}

// TxWake returns a channel that is closed when the stopped TX queue is woken (or
// the device closes). If the queue is not stopped it is already closed.
func (d *Driver) TxWake() <-chan struct{} {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	if !(d.txStopped || d.bqlStopped) || !d.open {
		return closedChan
	}
	if d.txWakeCh == nil {
		d.txWakeCh = make(chan struct{})
	}
	return d.txWakeCh
}

// SetTxReady installs the function netif_tx_wake_queue calls to reschedule
// the qdisc (__netif_schedule) once a stopped queue has room again. It runs
// with driver locks held, from the interrupt path: it must not block or call
// the driver. nil removes it.
func (d *Driver) SetTxReady(fn func()) {
	if fn == nil {
		d.txReady.Store(nil)
		return
	}
	d.txReady.Store(&fn)
}

// wakeTxQueue is netif_tx_wake_queue. txMu held.
func (d *Driver) wakeTxQueue() {
	d.txStopped = false
	d.scheduleQueue()
}

// scheduleQueue is __netif_schedule: the qdisc runs again, and takes frames
// unless BQL or the driver still hold the queue. txMu held.
func (d *Driver) scheduleQueue() {
	if d.txStopped || d.bqlStopped {
		return
	}
	if d.txWakeCh != nil {
		close(d.txWakeCh)
		d.txWakeCh = nil
	}
	if fn := d.txReady.Load(); fn != nil {
		(*fn)()
	}
}

// txAvail is stmmac_tx_avail: free descriptors, one always kept empty. txMu held.
func (d *Driver) txAvail() int {
	if d.txDirty > d.txCur {
		return d.txDirty - d.txCur - 1
	}
	return d.cfg.TxRingSize - d.txCur + d.txDirty - 1
}

// armTxTimer is mod_timer(&tx_q->txtimer, STMMAC_COAL_TIMER(us)). txMu held.
func (d *Driver) armTxTimer(us int) {
	delay := timerDelay(d.k, d.cfg.HZ, us)
	if d.txTimer == nil {
		d.txTimer = d.k.AfterFunc(delay, d.txTimerFired)
		return
	}
	d.txTimer.Reset(delay)
}

// txTimerFired is stmmac_tx_timer: schedule the TX NAPI, or retry in 10 us if it is
// already scheduled.
func (d *Driver) txTimerFired() {
	d.irqMu.Lock()
	defer d.irqMu.Unlock()
	if !d.running {
		return
	}
	if d.txScheduled {
		d.txMu.Lock()
		d.armTxTimer(10)
		d.txMu.Unlock()
		return
	}
	d.txScheduled = true
	d.softirq()
}

// txClean is stmmac_tx_clean: release every descriptor the DMA has given back, from
// dirty to cur, at most budget of them; count each frame as sent or as an error
// from its (last-segment) TDES0; wake the queue once a quarter of the ring is free;
// re-arm the timer while frames are still in flight. It returns the descriptors
// cleaned. Called with irqMu held.
func (d *Driver) txClean(budget int) int {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	d.ctr.inc(xTxClean)
	size := d.cfg.TxRingSize
	entry, count, bytes := d.txDirty, 0, 0
	for entry != d.txCur && count < budget {
		desc := d.layout.TxDesc + uint32(entry*descSize)
		t0, ok := d.returned(desc, tdes0OWN, "stmmac tx clean: read TX descriptor", entry)
		if !ok {
			break
		}
		count++
		if d.txLen != nil {
			bytes += d.txLen[entry]
		}
		// Every frame uses one descriptor with FS|LS, so each is a last segment
		// (ndesc_get_tx_status would otherwise return tx_not_ls).
		if d.txStatusError(t0) {
			d.ctr.netInc(nTxErrors)
		} else {
			d.ctr.netInc(nTxPackets)
			d.ctr.inc(xTxPktN)
		}
		// ndesc_release_tx_desc: clear TDES0/TDES1, keep TER.
		var ter uint32
		if entry == size-1 {
			ter = tdes1EndRing
		}
		if err := d.writeWords(&d.txDescBuf, desc, 0, ter); err != nil {
			d.noteAsync(fmt.Errorf("stmmac tx clean: release TX descriptor %d: %w", entry, err))
			break
		}
		entry = (entry + 1) % size
	}
	d.txDirty = entry
	d.reportTxDone(count)
	d.bqlCompleted(bytes)
	if d.txStopped && d.open && d.txAvail() > size/4 { // STMMAC_TX_THRESH
		d.wakeTxQueue()
	}
	// "We still have pending packets, let's call for a new scheduling".
	if d.txDirty != d.txCur && d.open {
		d.armTxTimer(10)
	}
	return count
}

// returned reads word 0 of descriptor entry (at desc) and reports whether the DMA
// has given it back (own clear). A failed read is noted, prefixed with what, and
// ends the ring walk as a descriptor still owned would.
func (d *Driver) returned(desc, own uint32, what string, entry int) (uint32, bool) {
	v, err := d.bus.Read32(desc + des0)
	if err != nil {
		d.noteAsync(fmt.Errorf("%s %d: %w", what, entry, err))
		return 0, false
	}
	return v, v&own == 0
}

// txStatusError is ndesc_get_tx_status for a completed last segment: count the
// causes and report whether the frame failed.
func (d *Driver) txStatusError(t0 uint32) bool {
	d.ctr.countStatus(t0, txStatusCounters)
	failed := t0&tdes0ErrorSummary != 0
	if failed && t0&(tdes0ExcessiveDeferral|tdes0ExcessiveCollisions|tdes0LateCollision) != 0 {
		d.ctr.netAdd(nCollisions, int(t0&tdes0CollisionCountMask)>>tdes0CollisionCountShift)
	}
	return failed
}

// txErr is stmmac_tx_err: after a fatal TX error, stop the TX DMA, drop what is in
// the ring, re-initialise every TX descriptor, rewrite the list base and restart
// the TX DMA. Called with irqMu held.
func (d *Driver) txErr() error {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	d.txStopped = true
	if err := d.rmw(dmaControl, func(v uint32) uint32 { return v &^ dmaControlST }); err != nil {
		return fmt.Errorf("stmmac tx error: stop TX DMA: %w", err)
	}
	size := d.cfg.TxRingSize
	flushed := (d.txCur - d.txDirty + size) % size
	d.ctr.netAdd(nTxErrFlushed, flushed)
	d.reportTxDone(flushed)
	for i := range size {
		var ter uint32
		if i == size-1 {
			ter = tdes1EndRing
		}
		desc := d.layout.TxDesc + uint32(i*descSize)
		if err := d.writeWords(&d.txDescBuf, desc, 0, ter); err != nil {
			return fmt.Errorf("stmmac tx error: init TX descriptor %d: %w", i, err)
		}
	}
	d.txDirty, d.txCur = 0, 0
	d.bqlReset() // netdev_tx_reset_queue
	if err := d.wr(dmaTxBaseAddr, d.layout.TxDesc); err != nil {
		return fmt.Errorf("stmmac tx error: write TX list base: %w", err)
	}
	if err := d.rmw(dmaControl, func(v uint32) uint32 { return v | dmaControlST }); err != nil {
		return fmt.Errorf("stmmac tx error: start TX DMA: %w", err)
	}
	d.ctr.netInc(nTxErrors)
	if d.open {
		d.wakeTxQueue()
	}
	return nil
}

// bqlSent is netdev_tx_sent_queue for the frame of n bytes just queued in
// descriptor entry: past the limit the stack stops the queue. txMu held.
func (d *Driver) bqlSent(entry, n int) {
	if d.bql == nil {
		return
	}
	d.txLen[entry] = n
	d.bql.Queued(uint32(n))
	if d.bql.Avail() < 0 {
		d.bqlStopped = true
		d.bqlStops++
	}
}

// bqlCompleted is netdev_tx_completed_queue: the limit adapts to the bytes TX
// clean freed, and a queue BQL stopped runs again once they fit. txMu held.
func (d *Driver) bqlCompleted(bytes int) {
	if d.bql == nil || bytes == 0 {
		return
	}
	d.bql.Completed(uint32(bytes), d.k.Now())
	if d.bql.Avail() >= 0 && d.bqlStopped {
		d.bqlStopped = false
		if d.open {
			d.scheduleQueue()
		}
	}
}

// bqlReset is netdev_tx_reset_queue. txMu held.
func (d *Driver) bqlReset() {
	d.bqlStopped = false
	if d.bql != nil {
		d.bql.Reset(d.k.Now())
	}
}

// BQLState is what Linux shows of a TX queue's byte queue limit in
// /sys/class/net/eth0/queues/tx-0/byte_queue_limits (limit, inflight), and how
// often BQL stopped the queue.
type BQLState struct {
	Limit, InFlight int
	Stops           uint64
}

// BQL is the TX queue's byte queue limit now (zero without BQL).
func (d *Driver) BQL() BQLState {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	if d.bql == nil {
		return BQLState{}
	}
	return BQLState{Limit: int(d.bql.Limit()), InFlight: int(d.bql.InFlight()), Stops: d.bqlStops}
}
