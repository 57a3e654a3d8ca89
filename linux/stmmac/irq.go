package stmmac

import "fmt"

// Return bits of dwmac_dma_interrupt (enum dma_irq_status in common.h).
const (
	txHardError       = 0x1
	txHardErrorBumpTC = 0x2
	handleRx          = 0x4
	handleTx          = 0x8
)

// sfDMAMode is SF_DMA_MODE, the "threshold" value meaning store-and-forward.
const sfDMAMode = 1

// interrupt is stmmac_interrupt for a GMAC: the MAC core status first
// (dwmac1000_irq_status), then the DMA (stmmac_dma_interrupt), which schedules the
// NAPI contexts. The NAPI polls then run as the softirq would on interrupt exit.
func (d *Driver) interrupt() {
	d.irqMu.Lock()
	defer d.irqMu.Unlock()
	if !d.running {
		return
	}
	if err := d.hostIRQStatus(); err != nil {
		d.noteAsync(err)
		return
	}
	status, err := d.dmaInterrupt()
	if err != nil {
		d.noteAsync(err)
		return
	}
	// stmmac_napi_check: an RX event masks the DMA interrupts (CSR7 = 0) while the
	// RX NAPI runs, and always brings the TX NAPI along.
	if status&handleRx != 0 && !d.rxScheduled {
		if err := d.wr(dmaIntrEna, 0); err != nil {
			d.noteAsync(fmt.Errorf("stmmac irq: disable DMA interrupts: %w", err))
			return
		}
		d.rxScheduled = true
		if !d.cfg.RxIRQLeavesTx {
			status |= handleTx
		}
	}
	if status&handleTx != 0 {
		d.txScheduled = true
	}
	// TX error handling of stmmac_dma_interrupt. As in Linux, a hard error is acted
	// on only when it is the only thing reported (status == tx_hard_error).
	switch {
	case status&txHardErrorBumpTC != 0:
		if d.ctr.x[xThreshold].Load() != sfDMAMode && d.tc <= 256 {
			// Unreachable in store-and-forward mode, which this driver always uses
			// (Linux would raise the TX threshold and reprogram CSR6 here).
			d.tc += 64
			d.ctr.x[xThreshold].Store(uint64(d.tc))
		}
	case status == txHardError:
		if err := d.txErr(); err != nil {
			d.noteAsync(err)
		}
	}
	d.softirq()
}

// dmaInterrupt is dwmac_dma_interrupt: read CSR5, count the abnormal and normal
// sources, decide what the NAPI contexts must do, and acknowledge bits 16:0.
func (d *Driver) dmaInterrupt() (int, error) {
	st, err := d.rd(dmaStatus)
	if err != nil {
		return 0, fmt.Errorf("stmmac irq: read DMA status: %w", err)
	}
	d.ctr.countStatus(st, dmaStatusCounters)
	ret := 0
	if st&dmaStatusAIS != 0 {
		switch {
		case st&(dmaStatusTPS|dmaStatusFBI) != 0:
			ret = txHardError
		case st&dmaStatusUNF != 0:
			ret = txHardErrorBumpTC
		}
	}
	if st&dmaStatusNIS != 0 {
		if st&dmaStatusRI != 0 {
			// Schedule NAPI only on a real RIE event: CSR7 is 0 while NAPI runs.
			ena, err := d.rd(dmaIntrEna)
			if err != nil {
				return 0, fmt.Errorf("stmmac irq: read DMA interrupt enable: %w", err)
			}
			if ena&dmaIntrEnaRIE != 0 {
				d.ctr.inc(xRxNormalIRQN)
				ret |= handleRx
			}
		}
		if st&dmaStatusTI != 0 {
			ret |= handleTx
		}
	}
	// Not Linux: remember a suspended RX DMA so that refill can resume it.
	if st&dmaStatusRU != 0 {
		d.rxSuspended = true
	}
	// GLI/GMI/GPI only produce a warning in Linux ("unexpected status").
	if err := d.wr(dmaStatus, st&dmaStatusW1CMask); err != nil {
		return 0, fmt.Errorf("stmmac irq: acknowledge DMA status: %w", err)
	}
	return ret, nil
}

// hostIRQStatus is dwmac1000_irq_status: count the unmasked MAC core events and
// clear PMT and LPI events by reading their status registers.
func (d *Driver) hostIRQStatus() error {
	st, err := d.rd(gmacIntStatus)
	if err != nil {
		return fmt.Errorf("stmmac irq: read MAC interrupt status: %w", err)
	}
	mask, err := d.rd(gmacIntMask)
	if err != nil {
		return fmt.Errorf("stmmac irq: read MAC interrupt mask: %w", err)
	}
	st &^= mask
	d.ctr.countStatus(st, hostIRQCounters)
	if st&gmacIntStatusPMT != 0 {
		if _, err := d.rd(gmacPMT); err != nil {
			return fmt.Errorf("stmmac irq: read PMT: %w", err)
		}
		d.ctr.inc(xIRQReceivePMTIRQN)
	}
	if st&gmacIntStatusLPIIS != 0 {
		v, err := d.rd(lpiCtrlStatus)
		if err != nil {
			return fmt.Errorf("stmmac irq: read LPI status: %w", err)
		}
		d.ctr.countStatus(v, lpiCounters)
	}
	return nil
}

// softirq is net_rx_action for this device: poll the scheduled NAPI contexts (RX
// first, as it was scheduled first) until they complete or netdev_budget packets
// are spent; what is left runs from a zero-delay timer, as ksoftirqd would pick it
// up. irqMu held.
func (d *Driver) softirq() {
	budget := d.cfg.NetdevBudget
	for budget > 0 && (d.rxScheduled || d.txScheduled) {
		if d.rxScheduled {
			budget -= d.pollRx()
		}
		if d.txScheduled {
			budget -= d.pollTx()
		}
	}
	if d.rxScheduled || d.txScheduled {
		if d.softirqTimer == nil {
			d.softirqTimer = d.k.AfterFunc(0, d.softirqFired)
		} else {
			d.softirqTimer.Reset(0)
		}
	}
}

func (d *Driver) softirqFired() {
	d.irqMu.Lock()
	defer d.irqMu.Unlock()
	if d.running {
		d.softirq()
	}
}

// pollRx is stmmac_napi_poll_rx: harvest up to the NAPI budget; when done early,
// complete and unmask the DMA interrupts again (stmmac_enable_dma_irq).
func (d *Driver) pollRx() int {
	d.ctr.inc(xNAPIPoll)
	budget := d.cfg.NAPIBudget
	work := d.rxHarvest(budget)
	if work < budget {
		d.rxScheduled = false
		if err := d.wr(dmaIntrEna, dmaIntrDefaultMask); err != nil {
			d.noteAsync(fmt.Errorf("stmmac napi: enable DMA interrupts: %w", err))
		}
	}
	return work
}

// pollTx is stmmac_napi_poll_tx: clean up to a whole ring, complete when under the
// budget, and give the TX DMA a poll demand while frames are still queued
// ("Force transmission restart").
func (d *Driver) pollTx() int {
	d.ctr.inc(xNAPIPoll)
	budget := d.cfg.NAPIBudget
	work := min(d.txClean(d.cfg.TxRingSize), budget)
	if work < budget {
		d.txScheduled = false
	}
	d.txMu.Lock()
	pending := d.txCur != d.txDirty && d.open
	d.txMu.Unlock()
	if pending {
		if err := d.wr(dmaXmtPollDemand, 1); err != nil {
			d.noteAsync(fmt.Errorf("stmmac napi: TX poll demand: %w", err))
		}
	}
	return work
}
