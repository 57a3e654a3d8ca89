package stmmac

import (
	"encoding/binary"
	"fmt"

	"mesonemu/emu"
)

// Software reset timing of dwmac_dma_reset: readl_poll_timeout(..., 10000, 100000).
const (
	resetPollInterval = 10 * emu.Millisecond
	resetTimeout      = 100 * emu.Millisecond
)

// initRings is init_dma_desc_rings for normal descriptors in ring mode: every RX
// descriptor owned by the DMA with its buffer, every TX descriptor free (TER on the
// last), and the software ring indices at zero. The descriptors are written whole,
// because dma_alloc_coherent hands Linux zeroed memory and guest RAM may not be.
func (d *Driver) initRings() error {
	l, n := d.layout, d.cfg.RxRingSize
	for i := range n {
		a := l.RxDesc + uint32(i*descSize)
		words := [4]uint32{
			rdes0OWN,
			rxDes1(d.cfg.BufSize, i == n-1, d.useRIWT),
			l.rxBufAddr(i, d.cfg.BufSize),
			0, // ring mode: buffer 2 unused below 16 KiB buffers
		}
		if err := d.writeDesc(a, words); err != nil {
			return fmt.Errorf("init RX descriptor %d: %w", i, err)
		}
	}
	n = d.cfg.TxRingSize
	for i := range n {
		var ter uint32
		if i == n-1 {
			ter = tdes1EndRing
		}
		if err := d.writeDesc(l.TxDesc+uint32(i*descSize), [4]uint32{0, ter, 0, 0}); err != nil {
			return fmt.Errorf("init TX descriptor %d: %w", i, err)
		}
	}
	d.irqMu.Lock()
	d.rxCur, d.rxDirty, d.rxToRefill = 0, 0, 0
	d.irqMu.Unlock()
	d.txMu.Lock()
	d.txCur, d.txDirty, d.txCount = 0, 0, 0
	d.bqlReset() // netdev_tx_reset_queue in init_dma_tx_desc_rings
	d.txMu.Unlock()
	return nil
}

func (d *Driver) writeDesc(addr uint32, w [4]uint32) error {
	var buf [descSize]byte
	return d.writeWords(&buf, addr, w[:]...)
}

// writeWords stores consecutive little-endian words at addr with one CPU copy,
// staged in buf (the TX path passes one it owns under txMu, so the frame path
// allocates nothing). Descriptors are written this way: the DMA engine reads a
// descriptor only while it holds the bus, so one copy is what Linux's stores plus
// dma_wmb() guarantee (OWN seen together with the rest), with fewer bus accesses.
func (d *Driver) writeWords(buf *[descSize]byte, addr uint32, words ...uint32) error {
	if len(words) > len(buf)/4 {
		return fmt.Errorf("write %d words at %#08x: at most %d", len(words), addr, len(buf)/4)
	}
	for i, v := range words {
		binary.LittleEndian.PutUint32(buf[4*i:], v)
	}
	return d.bus.WriteRAM(addr, buf[:4*len(words)])
}

// hwSetup is stmmac_hw_setup for a single-queue dwmac1000 without PCS, PTP, TSO or
// safety features, step by step in Linux v5.4's order.
func (d *Driver) hwSetup() error {
	// stmmac_init_dma_engine: software reset, bus mode and interrupt mask, list bases.
	if err := d.dmaReset(); err != nil {
		return err
	}
	if err := d.dmaInit(); err != nil {
		return err
	}
	if err := d.wr(dmaRcvBaseAddr, d.layout.RxDesc); err != nil {
		return fmt.Errorf("write RX descriptor list base: %w", err)
	}
	if err := d.wr(dmaTxBaseAddr, d.layout.TxDesc); err != nil {
		return fmt.Errorf("write TX descriptor list base: %w", err)
	}
	// stmmac_set_umac_addr.
	if err := d.setMACAddr(); err != nil {
		return err
	}
	if err := d.coreInit(); err != nil {
		return err
	}
	// stmmac_rx_ipc is left out: this driver does not use RX checksum offload (the
	// receiver gets CHECKSUM_NONE frames), so IPC stays at its reset value 0.
	//
	// "Enable the MAC Rx/Tx": v5.4's stmmac_hw_setup sets TE|RE here already; phylink's
	// mac_link_up sets them again and mac_link_down clears them.
	if err := d.macSet(true); err != nil {
		return err
	}
	if err := d.dmaOperationMode(); err != nil {
		return err
	}
	if err := d.mmcSetup(); err != nil {
		return err
	}
	if d.useRIWT {
		if err := d.wr(dmaRxWatchdog, d.cfg.RIWT); err != nil {
			return fmt.Errorf("write RX watchdog: %w", err)
		}
	}
	// stmmac_start_all_dma: RX channels first, then TX.
	if err := d.rmw(dmaControl, func(v uint32) uint32 { return v | dmaControlSR }); err != nil {
		return fmt.Errorf("start RX DMA: %w", err)
	}
	if err := d.rmw(dmaControl, func(v uint32) uint32 { return v | dmaControlST }); err != nil {
		return fmt.Errorf("start TX DMA: %w", err)
	}
	return nil
}

// dmaReset is dwmac_dma_reset: set SWR, then poll every 10 ms, for up to 100 ms,
// until the hardware clears it. Like readl_poll_timeout, the register is read once
// more after the deadline before giving up.
func (d *Driver) dmaReset() error {
	if err := d.rmw(dmaBusMode, func(v uint32) uint32 { return v | dmaBusModeSftReset }); err != nil {
		return fmt.Errorf("DMA software reset: %w", err)
	}
	ok, err := d.pollClear(dmaBusMode, dmaBusModeSftReset, resetPollInterval, resetTimeout)
	if err != nil {
		return fmt.Errorf("DMA software reset: %w", err)
	}
	if !ok {
		return fmt.Errorf("DMA software reset: SWR still set after %v", (resetTimeout + resetPollInterval).Duration())
	}
	return nil
}

// pollClear is readl_poll_timeout(addr, v, !(v & mask), interval, timeout): read;
// done if the bits are clear; once the time slept exceeds the timeout, read one
// last time and give up; otherwise sleep for the interval (usleep_range's upper
// bound, where an idle kernel wakes up). It reports whether the bits cleared, after
// at most timeout/interval + 3 reads.
func (d *Driver) pollClear(off, mask uint32, interval, timeout emu.Time) (bool, error) {
	for slept := emu.Time(0); ; slept += interval {
		v, err := d.rd(off)
		if err != nil {
			return false, err
		}
		if v&mask == 0 {
			return true, nil
		}
		if slept > timeout {
			v, err := d.rd(off)
			if err != nil {
				return false, err
			}
			return v&mask == 0, nil
		}
		d.k.Delay(interval)
	}
}

// dmaInit is dwmac1000_dma_init with Meson8b's platform data: PBL 8 for TX and RX,
// 8xPBL, USP, no fixed or mixed burst, no AAL, normal descriptors (no ATDS); then
// the default interrupt mask in CSR7.
func (d *Driver) dmaInit() error {
	err := d.rmw(dmaBusMode, func(v uint32) uint32 {
		v |= dmaBusModeMaxPBL | dmaBusModeUSP
		v &^= dmaBusModePBLMask | dmaBusModeRPBLMask
		v |= DefaultPBL << dmaBusModePBLShift
		v |= DefaultPBL << dmaBusModeRPBL
		return v
	})
	if err != nil {
		return fmt.Errorf("write DMA bus mode: %w", err)
	}
	// v5.4 writes DMA_INTR_DEFAULT_MASK (RIE included) whether or not RX mitigation is
	// used: with RIWT the DMA still raises RI, only later (watchdog expiry).
	if err := d.wr(dmaIntrEna, dmaIntrDefaultMask); err != nil {
		return fmt.Errorf("write DMA interrupt enable: %w", err)
	}
	return nil
}

// setMACAddr is stmmac_set_mac_addr for address register 0.
func (d *Driver) setMACAddr() error {
	a := d.cfg.MAC
	hi := uint32(a[5])<<8 | uint32(a[4]) | gmacHiRegAE
	lo := uint32(a[3])<<24 | uint32(a[2])<<16 | uint32(a[1])<<8 | uint32(a[0])
	if err := d.wr(gmacAddrHigh0, hi); err != nil {
		return fmt.Errorf("write MAC address high: %w", err)
	}
	if err := d.wr(gmacAddrLow0, lo); err != nil {
		return fmt.Errorf("write MAC address low: %w", err)
	}
	return nil
}

// coreInit is dwmac1000_core_init for MTU 1500 without PCS: OR in GMAC_CORE_INIT,
// mask the RGMII/PCS/timestamp interrupts, and tag VLAN frames without filtering.
func (d *Driver) coreInit() error {
	if err := d.rmw(gmacControl, func(v uint32) uint32 { return v | gmacCoreInit }); err != nil {
		return fmt.Errorf("core init: %w", err)
	}
	if err := d.wr(gmacIntMask, gmacIntDefaultMask); err != nil {
		return fmt.Errorf("core init: interrupt mask: %w", err)
	}
	if err := d.wr(gmacVLANTag, 0); err != nil {
		return fmt.Errorf("core init: VLAN tag: %w", err)
	}
	return nil
}

// dmaOperationMode is stmmac_dma_operation_mode in store-and-forward mode for both
// directions: dwmac1000_dma_operation_mode_rx (RSF; flow control off because the
// RX FIFO size is unknown to the driver, i.e. below 4 KiB), then _tx (TSF|OSF).
func (d *Driver) dmaOperationMode() error {
	err := d.rmw(dmaControl, func(v uint32) uint32 {
		v |= dmaControlRSF
		v &^= dmaControlRFAMask | dmaControlRFDMask | dmaControlEFC
		return v
	})
	if err != nil {
		return fmt.Errorf("DMA operation mode (RX): %w", err)
	}
	if err := d.rmw(dmaControl, func(v uint32) uint32 { return v | dmaControlTSF | dmaControlOSF }); err != nil {
		return fmt.Errorf("DMA operation mode (TX): %w", err)
	}
	return nil
}

// mmcSetup is stmmac_mmc_setup: mask every MMC interrupt, then (if the core has the
// counters) set reset-on-read, reset, preset and full/half preset.
func (d *Driver) mmcSetup() error {
	for _, off := range []uint32{mmcRxIntrMask, mmcTxIntrMask, mmcRxIPCIntrMask} {
		if err := d.wr(mmcBase+off, mmcDefaultMask); err != nil {
			return fmt.Errorf("MMC interrupt mask: %w", err)
		}
	}
	if !d.hasMMC {
		return nil
	}
	if err := d.rmw(mmcBase+mmcCntrl, func(v uint32) uint32 { return v | mmcMode&mmcCntrlMask }); err != nil {
		return fmt.Errorf("MMC control: %w", err)
	}
	d.statsMu.Lock()
	clear(d.mmc)
	d.statsMu.Unlock()
	return nil
}

// setRxMode is dwmac1000_set_filter as __dev_open calls it after ndo_open: no
// multicast list (empty 64-bin hash), a single unicast address, and PR|PCF when
// promiscuous.
func (d *Driver) setRxMode() error {
	if d.hasMulticast() {
		return d.writeFilter()
	}
	var value uint32
	if d.cfg.Promiscuous {
		value = frameFilterPR | frameFilterPCF
	}
	if err := d.wr(gmacHashLow, 0); err != nil {
		return fmt.Errorf("write hash table: %w", err)
	}
	if err := d.wr(gmacHashHigh, 0); err != nil {
		return fmt.Errorf("write hash table: %w", err)
	}
	if err := d.wr(gmacFrameFilter, value); err != nil {
		return fmt.Errorf("write frame filter: %w", err)
	}
	return nil
}
