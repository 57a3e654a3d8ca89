package stmmac

import (
	"fmt"
	"sync/atomic"

	"mesonemu/counter"
)

// xstat indexes the driver's extra statistics (struct stmmac_extra_stats). The
// order is stmmac_gstrings_stats of Linux v5.4's stmmac_ethtool.c, so Stats lists
// them as `ethtool -S` does. The groups that stay zero on this configuration and
// that this driver does not maintain ("Extended RDES status", "PCS", "debug
// register", "TSO") are left out.
type xstat int

const (
	// Transmit errors
	xTxUnderflow xstat = iota
	xTxCarrier
	xTxLossCarrier
	xVLANTag
	xTxDeferred
	xTxVLAN
	xTxJabber
	xTxFrameFlushed
	xTxPayloadError
	xTxIPHeaderError
	// Receive errors
	xRxDesc
	xSAFilterFail
	xOverflowError
	xIPCCsumError
	xRxCollision
	xRxCRCErrors
	xDribblingBit
	xRxLength
	xRxMII
	xRxMulticast
	xRxGMACOverflow
	xRxWatchdog
	xDARxFilterFail
	xSARxFilterFail
	xRxMissedCntr
	xRxOverflowCntr
	xRxVLAN
	xRxSplitHdrPktN
	// Tx/Rx IRQ error info
	xTxUndeflowIRQ
	xTxProcessStoppedIRQ
	xTxJabberIRQ
	xRxOverflowIRQ
	xRxBufUnavIRQ
	xRxProcessStoppedIRQ
	xRxWatchdogIRQ
	xTxEarlyIRQ
	xFatalBusErrorIRQ
	// Tx/Rx IRQ events
	xRxEarlyIRQ
	xThreshold
	xTxPktN
	xRxPktN
	xNormalIRQN
	xRxNormalIRQN
	xNAPIPoll
	xTxNormalIRQN
	xTxClean
	xTxSetICBit
	xIRQReceivePMTIRQN
	// MMC info
	xMMCTxIRQN
	xMMCRxIRQN
	xMMCRxCsumOffloadIRQN
	// EEE
	xIRQTxPathInLPIModeN
	xIRQTxPathExitLPIModeN
	xIRQRxPathInLPIModeN
	xIRQRxPathExitLPIModeN
	xPHYEEEWakeupErrorN
	numXStats
)

// xstatNames are the ethtool strings, byte for byte as Linux v5.4 prints them
// (including its "tx_undeflow_irq" spelling).
var xstatNames = [numXStats]string{
	"tx_underflow", "tx_carrier", "tx_losscarrier", "vlan_tag", "tx_deferred", "tx_vlan",
	"tx_jabber", "tx_frame_flushed", "tx_payload_error", "tx_ip_header_error",
	"rx_desc", "sa_filter_fail", "overflow_error", "ipc_csum_error", "rx_collision",
	"rx_crc_errors", "dribbling_bit", "rx_length", "rx_mii", "rx_multicast",
	"rx_gmac_overflow", "rx_watchdog", "da_rx_filter_fail", "sa_rx_filter_fail",
	"rx_missed_cntr", "rx_overflow_cntr", "rx_vlan", "rx_split_hdr_pkt_n",
	"tx_undeflow_irq", "tx_process_stopped_irq", "tx_jabber_irq", "rx_overflow_irq",
	"rx_buf_unav_irq", "rx_process_stopped_irq", "rx_watchdog_irq", "tx_early_irq",
	"fatal_bus_error_irq",
	"rx_early_irq", "threshold", "tx_pkt_n", "rx_pkt_n", "normal_irq_n", "rx_normal_irq_n",
	"napi_poll", "tx_normal_irq_n", "tx_clean", "tx_set_ic_bit", "irq_receive_pmt_irq_n",
	"mmc_tx_irq_n", "mmc_rx_irq_n", "mmc_rx_csum_offload_irq_n",
	"irq_tx_path_in_lpi_mode_n", "irq_tx_path_exit_lpi_mode_n",
	"irq_rx_path_in_lpi_mode_n", "irq_rx_path_exit_lpi_mode_n", "phy_eee_wakeup_error_n",
}

// mmcCounter is one MMC register: its ethtool name and offset in the MMC block.
type mmcCounter struct {
	name string
	off  uint32
}

// mmcCounters is stmmac_mmc[] of Linux v5.4 with the offsets of mmc_core.c, in the
// order dwmac_mmc_read reads and ethtool prints them.
var mmcCounters = []mmcCounter{
	{"mmc_tx_octetcount_gb", 0x14}, {"mmc_tx_framecount_gb", 0x18},
	{"mmc_tx_broadcastframe_g", 0x1c}, {"mmc_tx_multicastframe_g", 0x20},
	{"mmc_tx_64_octets_gb", 0x24}, {"mmc_tx_65_to_127_octets_gb", 0x28},
	{"mmc_tx_128_to_255_octets_gb", 0x2c}, {"mmc_tx_256_to_511_octets_gb", 0x30},
	{"mmc_tx_512_to_1023_octets_gb", 0x34}, {"mmc_tx_1024_to_max_octets_gb", 0x38},
	{"mmc_tx_unicast_gb", 0x3c}, {"mmc_tx_multicast_gb", 0x40},
	{"mmc_tx_broadcast_gb", 0x44}, {"mmc_tx_underflow_error", 0x48},
	{"mmc_tx_singlecol_g", 0x4c}, {"mmc_tx_multicol_g", 0x50},
	{"mmc_tx_deferred", 0x54}, {"mmc_tx_latecol", 0x58},
	{"mmc_tx_exesscol", 0x5c}, {"mmc_tx_carrier_error", 0x60},
	{"mmc_tx_octetcount_g", 0x64}, {"mmc_tx_framecount_g", 0x68},
	{"mmc_tx_excessdef", 0x6c}, {"mmc_tx_pause_frame", 0x70},
	{"mmc_tx_vlan_frame_g", 0x74},
	{"mmc_rx_framecount_gb", 0x80}, {"mmc_rx_octetcount_gb", 0x84},
	{"mmc_rx_octetcount_g", 0x88}, {"mmc_rx_broadcastframe_g", 0x8c},
	{"mmc_rx_multicastframe_g", 0x90}, {"mmc_rx_crc_error", 0x94},
	{"mmc_rx_align_error", 0x98}, {"mmc_rx_run_error", 0x9c},
	{"mmc_rx_jabber_error", 0xa0}, {"mmc_rx_undersize_g", 0xa4},
	{"mmc_rx_oversize_g", 0xa8}, {"mmc_rx_64_octets_gb", 0xac},
	{"mmc_rx_65_to_127_octets_gb", 0xb0}, {"mmc_rx_128_to_255_octets_gb", 0xb4},
	{"mmc_rx_256_to_511_octets_gb", 0xb8}, {"mmc_rx_512_to_1023_octets_gb", 0xbc},
	{"mmc_rx_1024_to_max_octets_gb", 0xc0}, {"mmc_rx_unicast_g", 0xc4},
	{"mmc_rx_length_error", 0xc8}, {"mmc_rx_autofrangetype", 0xcc},
	{"mmc_rx_pause_frames", 0xd0}, {"mmc_rx_fifo_overflow", 0xd4},
	{"mmc_rx_vlan_frames_gb", 0xd8}, {"mmc_rx_watchdog_error", 0xdc},
	// v5.4 accumulates the checksum-offload interrupt mask and status registers like
	// counters (reset-on-read does not clear them), so the "mask" entry wraps by one
	// per read of an all-ones mask. Reproduced as Linux prints it.
	{"mmc_rx_ipc_intr_mask", 0x100}, {"mmc_rx_ipc_intr", 0x108},
	{"mmc_rx_ipv4_gd", 0x110}, {"mmc_rx_ipv4_hderr", 0x114},
	{"mmc_rx_ipv4_nopay", 0x118}, {"mmc_rx_ipv4_frag", 0x11c},
	{"mmc_rx_ipv4_udsbl", 0x120},
	{"mmc_rx_ipv4_gd_octets", 0x150}, {"mmc_rx_ipv4_hderr_octets", 0x154},
	{"mmc_rx_ipv4_nopay_octets", 0x158}, {"mmc_rx_ipv4_frag_octets", 0x15c},
	{"mmc_rx_ipv4_udsbl_octets", 0x160},
	{"mmc_rx_ipv6_gd_octets", 0x164}, {"mmc_rx_ipv6_hderr_octets", 0x168},
	{"mmc_rx_ipv6_nopay_octets", 0x16c},
	{"mmc_rx_ipv6_gd", 0x124}, {"mmc_rx_ipv6_hderr", 0x128}, {"mmc_rx_ipv6_nopay", 0x12c},
	{"mmc_rx_udp_gd", 0x130}, {"mmc_rx_udp_err", 0x134},
	{"mmc_rx_tcp_gd", 0x138}, {"mmc_rx_tcp_err", 0x13c},
	{"mmc_rx_icmp_gd", 0x140}, {"mmc_rx_icmp_err", 0x144},
	{"mmc_rx_udp_gd_octets", 0x170}, {"mmc_rx_udp_err_octets", 0x174},
	{"mmc_rx_tcp_gd_octets", 0x178}, {"mmc_rx_tcp_err_octets", 0x17c},
	{"mmc_rx_icmp_gd_octets", 0x180}, {"mmc_rx_icmp_err_octets", 0x184},
}

// Stat is one named counter, as one line of `ethtool -S`.
type Stat struct {
	Name  string
	Value uint64
}

// NetStats are the net_device statistics (`ip -s link`) the driver maintains.
type NetStats struct {
	RxPackets, TxPackets, RxBytes, TxBytes                                uint64
	RxErrors, TxErrors, RxDropped, TxDropped                              uint64
	Collisions, RxLengthErrors, RxOverErrors, RxCRCErrors, RxMissedErrors uint64
	TxCarrierErrors, TxFIFOErrors                                         uint64
	// TxErrFlushed is not a Linux counter: the frames stmmac_tx_err threw away from
	// the TX ring after a fatal error (Linux frees them silently), so that nothing
	// vanishes without a count.
	TxErrFlushed uint64
}

// Sub is the change from base to s, every counter at once.
func (s NetStats) Sub(base NetStats) NetStats { return counter.Sub(s, base) }

// netStat indexes the atomic net_device counters.
type netStat int

const (
	nRxPackets netStat = iota
	nTxPackets
	nRxBytes
	nTxBytes
	nRxErrors
	nTxErrors
	nRxDropped
	nTxDropped
	nCollisions
	nRxLengthErrors
	nRxOverErrors
	nRxCRCErrors
	nRxMissedErrors
	nTxCarrierErrors
	nTxFIFOErrors
	nTxErrFlushed
	numNetStats
)

// counters holds every software counter; all are atomics so that the interrupt
// path, Xmit and readers never share a lock for them.
type counters struct {
	x   [numXStats]atomic.Uint64
	net [numNetStats]atomic.Uint64
}

func (c *counters) inc(s xstat)             { c.x[s].Add(1) }
func (c *counters) add(s xstat, n uint64)   { c.x[s].Add(n) }
func (c *counters) netInc(s netStat)        { c.net[s].Add(1) }
func (c *counters) netAdd(s netStat, n int) { c.net[s].Add(uint64(n)) }

func (c *counters) reset() {
	for i := range c.x {
		c.x[i].Store(0)
	}
}

// NetStats returns the net_device statistics.
func (d *Driver) NetStats() NetStats {
	n := &d.ctr.net
	return NetStats{
		RxPackets: n[nRxPackets].Load(), TxPackets: n[nTxPackets].Load(),
		RxBytes: n[nRxBytes].Load(), TxBytes: n[nTxBytes].Load(),
		RxErrors: n[nRxErrors].Load(), TxErrors: n[nTxErrors].Load(),
		RxDropped: n[nRxDropped].Load(), TxDropped: n[nTxDropped].Load(),
		Collisions: n[nCollisions].Load(), RxLengthErrors: n[nRxLengthErrors].Load(),
		RxOverErrors: n[nRxOverErrors].Load(), RxCRCErrors: n[nRxCRCErrors].Load(),
		RxMissedErrors: n[nRxMissedErrors].Load(), TxCarrierErrors: n[nTxCarrierErrors].Load(),
		TxFIFOErrors: n[nTxFIFOErrors].Load(), TxErrFlushed: n[nTxErrFlushed].Load(),
	}
}

// Stats is `ethtool -S`: the MMC counters read from the hardware (when the HW
// feature register reports them), then the driver's extra statistics, in Linux's
// order. Reading it, like ethtool, reads and accumulates the reset-on-read MMC
// registers and the missed-frame counter.
//
// Linux v5.4 reads DMA_MISSED_FRAME_CTR only on dwmac100 (dma_diagnostic_fr), so its
// rx_missed_cntr stays 0 on a dwmac1000; this driver reads it here as well so that
// frames the DMA dropped for want of a descriptor show up (an addition to Linux).
func (d *Driver) Stats() ([]Stat, error) {
	d.statsMu.Lock()
	defer d.statsMu.Unlock()
	if err := d.readMissedFrames(); err != nil {
		return nil, err
	}
	out := make([]Stat, 0, len(mmcCounters)+int(numXStats))
	if d.hasMMC {
		for i, c := range mmcCounters {
			v, err := d.rd(mmcBase + c.off)
			if err != nil {
				return nil, fmt.Errorf("stmmac: read %s: %w", c.name, err)
			}
			// struct stmmac_counters holds 32-bit accumulators.
			d.mmc[i] += v
		}
		for i, c := range mmcCounters {
			out = append(out, Stat{Name: c.name, Value: uint64(d.mmc[i])})
		}
	}
	for i := range numXStats {
		out = append(out, Stat{Name: xstatNames[i], Value: d.ctr.x[i].Load()})
	}
	return out, nil
}

// Stat returns one counter of Stats by name.
func (d *Driver) Stat(name string) (uint64, error) {
	all, err := d.Stats()
	if err != nil {
		return 0, err
	}
	for _, s := range all {
		if s.Name == name {
			return s.Value, nil
		}
	}
	return 0, fmt.Errorf("stmmac: no statistic named %q", name)
}

// readMissedFrames is dwmac100_dma_diagnostic_fr: the counter register clears on read;
// an overflow flag stands for a full counter. statsMu held.
func (d *Driver) readMissedFrames() error {
	v, err := d.rd(dmaMissedFrame)
	if err != nil {
		return fmt.Errorf("stmmac: read missed-frame counter: %w", err)
	}
	if v == 0 {
		return nil
	}
	over := uint64((v & missedFrameOVECntr) >> 17)
	if v&missedFrameOVE != 0 {
		over = 0x800
	}
	missed := uint64(v & missedFrameMCntr)
	if v&missedFrameOVEM != 0 {
		missed = 0xffff
	}
	d.ctr.add(xRxOverflowCntr, over)
	d.ctr.net[nRxOverErrors].Add(over)
	d.ctr.add(xRxMissedCntr, missed)
	d.ctr.net[nRxMissedErrors].Add(missed)
	return nil
}

// AlwaysListed names the statistics a link report shows even at zero: the
// ones that say whether frames were lost (a zero there is the finding).
func AlwaysListed(name string) bool {
	switch name {
	case "rx_crc_errors", "rx_missed_cntr", "tx_pkt_n", "rx_pkt_n":
		return true
	}
	return false
}
