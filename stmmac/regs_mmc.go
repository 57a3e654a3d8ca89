package stmmac

import "mesonemu/reg"

// MMC block: GMAC_MMC_CTRL at 0x100; counter offsets are mmc_core.c's, relative to it.
const (
	mmcBase       = 0x100
	offMMCCntrl   = mmcBase + 0x00
	offMMCRxIntr  = mmcBase + 0x04
	offMMCTxIntr  = mmcBase + 0x08
	offMMCIPCIntr = mmcBase + 0x108
	mmcBlockEnd   = 0x300 // first offset after the MMC block
)

// MMC_CNTRL.
var (
	mmcCntReset    = fld("CNTRST", 0, 0, reg.SC, "reset all counters")
	mmcCntStopRoll = fld("CNTSTOPRO", 1, 1, reg.RW, "counters saturate instead of rolling over")
	mmcRstOnRead   = fld("RSTONRD", 2, 2, reg.RW, "counters reset on read")
	mmcCntFreeze   = fld("CNTFREEZ", 3, 3, reg.RW, "freeze counters")
	mmcCntPreset   = fld("CNTPRST", 4, 4, reg.SC, "preset counters")
	mmcPresetFull  = fld("CNTPRSTLVL", 5, 5, reg.RW, "preset to almost full (1) or almost half (0)")
)

// mmcCounter indexes the counters the model keeps (in the order of mmcCounterDefs).
type mmcCounter int

const (
	mmcTxOctetCountGB mmcCounter = iota
	mmcTxFrameCountGB
	mmcTxBroadcastFrameG
	mmcTxMulticastFrameG
	mmcTx64OctetsGB
	mmcTx65To127OctetsGB
	mmcTx128To255OctetsGB
	mmcTx256To511OctetsGB
	mmcTx512To1023OctetsGB
	mmcTx1024ToMaxOctetsGB
	mmcTxUnicastGB
	mmcTxMulticastGB
	mmcTxBroadcastGB
	mmcTxUnderflowError
	mmcTxSingleColG
	mmcTxMultiColG
	mmcTxDeferred
	mmcTxLateCol
	mmcTxExessCol
	mmcTxCarrierError
	mmcTxOctetCountG
	mmcTxFrameCountG
	mmcTxExcessDef
	mmcTxPauseFrame
	mmcTxVLANFrameG
	mmcRxFrameCountGB
	mmcRxOctetCountGB
	mmcRxOctetCountG
	mmcRxBroadcastFrameG
	mmcRxMulticastFrameG
	mmcRxCRCError
	mmcRxAlignError
	mmcRxRunError
	mmcRxJabberError
	mmcRxUndersizeG
	mmcRxOversizeG
	mmcRx64OctetsGB
	mmcRx65To127OctetsGB
	mmcRx128To255OctetsGB
	mmcRx256To511OctetsGB
	mmcRx512To1023OctetsGB
	mmcRx1024ToMaxOctetsGB
	mmcRxUnicastG
	mmcRxLengthError
	mmcRxAutoFrangeType
	mmcRxPauseFrames
	mmcRxFIFOOverflow
	mmcRxVLANFramesGB
	mmcRxWatchdogError
	mmcRxIPv4Gd
	mmcRxIPv4HdErr
	mmcRxIPv4NoPay
	mmcRxIPv4Frag
	mmcRxIPv4UDSbl
	mmcRxIPv6Gd
	mmcRxIPv6HdErr
	mmcRxIPv6NoPay
	mmcRxUDPGd
	mmcRxUDPErr
	mmcRxTCPGd
	mmcRxTCPErr
	mmcRxICMPGd
	mmcRxICMPErr
	mmcRxIPv4GdOctets
	mmcRxIPv4HdErrOctets
	mmcRxIPv4NoPayOctets
	mmcRxIPv4FragOctets
	mmcRxIPv4UDSblOctets
	mmcRxIPv6GdOctets
	mmcRxIPv6HdErrOctets
	mmcRxIPv6NoPayOctets
	mmcRxUDPGdOctets
	mmcRxUDPErrOctets
	mmcRxTCPGdOctets
	mmcRxTCPErrOctets
	mmcRxICMPGdOctets
	mmcRxICMPErrOctets
	mmcCounterCount
)

// mmcCounterDefs names each counter as Linux's struct stmmac_counters does and gives
// its offset relative to the MMC block; octet counters preset differently from frame
// counters.
var mmcCounterDefs = [mmcCounterCount]struct {
	name  string
	off   uint32
	octet bool
}{
	mmcTxOctetCountGB:      {"mmc_tx_octetcount_gb", 0x14, true},
	mmcTxFrameCountGB:      {"mmc_tx_framecount_gb", 0x18, false},
	mmcTxBroadcastFrameG:   {"mmc_tx_broadcastframe_g", 0x1c, false},
	mmcTxMulticastFrameG:   {"mmc_tx_multicastframe_g", 0x20, false},
	mmcTx64OctetsGB:        {"mmc_tx_64_octets_gb", 0x24, false},
	mmcTx65To127OctetsGB:   {"mmc_tx_65_to_127_octets_gb", 0x28, false},
	mmcTx128To255OctetsGB:  {"mmc_tx_128_to_255_octets_gb", 0x2c, false},
	mmcTx256To511OctetsGB:  {"mmc_tx_256_to_511_octets_gb", 0x30, false},
	mmcTx512To1023OctetsGB: {"mmc_tx_512_to_1023_octets_gb", 0x34, false},
	mmcTx1024ToMaxOctetsGB: {"mmc_tx_1024_to_max_octets_gb", 0x38, false},
	mmcTxUnicastGB:         {"mmc_tx_unicast_gb", 0x3c, false},
	mmcTxMulticastGB:       {"mmc_tx_multicast_gb", 0x40, false},
	mmcTxBroadcastGB:       {"mmc_tx_broadcast_gb", 0x44, false},
	mmcTxUnderflowError:    {"mmc_tx_underflow_error", 0x48, false},
	mmcTxSingleColG:        {"mmc_tx_singlecol_g", 0x4c, false},
	mmcTxMultiColG:         {"mmc_tx_multicol_g", 0x50, false},
	mmcTxDeferred:          {"mmc_tx_deferred", 0x54, false},
	mmcTxLateCol:           {"mmc_tx_latecol", 0x58, false},
	mmcTxExessCol:          {"mmc_tx_exesscol", 0x5c, false},
	mmcTxCarrierError:      {"mmc_tx_carrier_error", 0x60, false},
	mmcTxOctetCountG:       {"mmc_tx_octetcount_g", 0x64, true},
	mmcTxFrameCountG:       {"mmc_tx_framecount_g", 0x68, false},
	mmcTxExcessDef:         {"mmc_tx_excessdef", 0x6c, false},
	mmcTxPauseFrame:        {"mmc_tx_pause_frame", 0x70, false},
	mmcTxVLANFrameG:        {"mmc_tx_vlan_frame_g", 0x74, false},
	mmcRxFrameCountGB:      {"mmc_rx_framecount_gb", 0x80, false},
	mmcRxOctetCountGB:      {"mmc_rx_octetcount_gb", 0x84, true},
	mmcRxOctetCountG:       {"mmc_rx_octetcount_g", 0x88, true},
	mmcRxBroadcastFrameG:   {"mmc_rx_broadcastframe_g", 0x8c, false},
	mmcRxMulticastFrameG:   {"mmc_rx_multicastframe_g", 0x90, false},
	mmcRxCRCError:          {"mmc_rx_crc_error", 0x94, false},
	mmcRxAlignError:        {"mmc_rx_align_error", 0x98, false},
	mmcRxRunError:          {"mmc_rx_run_error", 0x9c, false},
	mmcRxJabberError:       {"mmc_rx_jabber_error", 0xa0, false},
	mmcRxUndersizeG:        {"mmc_rx_undersize_g", 0xa4, false},
	mmcRxOversizeG:         {"mmc_rx_oversize_g", 0xa8, false},
	mmcRx64OctetsGB:        {"mmc_rx_64_octets_gb", 0xac, false},
	mmcRx65To127OctetsGB:   {"mmc_rx_65_to_127_octets_gb", 0xb0, false},
	mmcRx128To255OctetsGB:  {"mmc_rx_128_to_255_octets_gb", 0xb4, false},
	mmcRx256To511OctetsGB:  {"mmc_rx_256_to_511_octets_gb", 0xb8, false},
	mmcRx512To1023OctetsGB: {"mmc_rx_512_to_1023_octets_gb", 0xbc, false},
	mmcRx1024ToMaxOctetsGB: {"mmc_rx_1024_to_max_octets_gb", 0xc0, false},
	mmcRxUnicastG:          {"mmc_rx_unicast_g", 0xc4, false},
	mmcRxLengthError:       {"mmc_rx_length_error", 0xc8, false},
	mmcRxAutoFrangeType:    {"mmc_rx_autofrangetype", 0xcc, false},
	mmcRxPauseFrames:       {"mmc_rx_pause_frames", 0xd0, false},
	mmcRxFIFOOverflow:      {"mmc_rx_fifo_overflow", 0xd4, false},
	mmcRxVLANFramesGB:      {"mmc_rx_vlan_frames_gb", 0xd8, false},
	mmcRxWatchdogError:     {"mmc_rx_watchdog_error", 0xdc, false},
	mmcRxIPv4Gd:            {"mmc_rx_ipv4_gd", 0x110, false},
	mmcRxIPv4HdErr:         {"mmc_rx_ipv4_hderr", 0x114, false},
	mmcRxIPv4NoPay:         {"mmc_rx_ipv4_nopay", 0x118, false},
	mmcRxIPv4Frag:          {"mmc_rx_ipv4_frag", 0x11c, false},
	mmcRxIPv4UDSbl:         {"mmc_rx_ipv4_udsbl", 0x120, false},
	mmcRxIPv6Gd:            {"mmc_rx_ipv6_gd", 0x124, false},
	mmcRxIPv6HdErr:         {"mmc_rx_ipv6_hderr", 0x128, false},
	mmcRxIPv6NoPay:         {"mmc_rx_ipv6_nopay", 0x12c, false},
	mmcRxUDPGd:             {"mmc_rx_udp_gd", 0x130, false},
	mmcRxUDPErr:            {"mmc_rx_udp_err", 0x134, false},
	mmcRxTCPGd:             {"mmc_rx_tcp_gd", 0x138, false},
	mmcRxTCPErr:            {"mmc_rx_tcp_err", 0x13c, false},
	mmcRxICMPGd:            {"mmc_rx_icmp_gd", 0x140, false},
	mmcRxICMPErr:           {"mmc_rx_icmp_err", 0x144, false},
	mmcRxIPv4GdOctets:      {"mmc_rx_ipv4_gd_octets", 0x150, true},
	mmcRxIPv4HdErrOctets:   {"mmc_rx_ipv4_hderr_octets", 0x154, true},
	mmcRxIPv4NoPayOctets:   {"mmc_rx_ipv4_nopay_octets", 0x158, true},
	mmcRxIPv4FragOctets:    {"mmc_rx_ipv4_frag_octets", 0x15c, true},
	mmcRxIPv4UDSblOctets:   {"mmc_rx_ipv4_udsbl_octets", 0x160, true},
	mmcRxIPv6GdOctets:      {"mmc_rx_ipv6_gd_octets", 0x164, true},
	mmcRxIPv6HdErrOctets:   {"mmc_rx_ipv6_hderr_octets", 0x168, true},
	mmcRxIPv6NoPayOctets:   {"mmc_rx_ipv6_nopay_octets", 0x16c, true},
	mmcRxUDPGdOctets:       {"mmc_rx_udp_gd_octets", 0x170, true},
	mmcRxUDPErrOctets:      {"mmc_rx_udp_err_octets", 0x174, true},
	mmcRxTCPGdOctets:       {"mmc_rx_tcp_gd_octets", 0x178, true},
	mmcRxTCPErrOctets:      {"mmc_rx_tcp_err_octets", 0x17c, true},
	mmcRxICMPGdOctets:      {"mmc_rx_icmp_gd_octets", 0x180, true},
	mmcRxICMPErrOctets:     {"mmc_rx_icmp_err_octets", 0x184, true},
}

// mmcRegisters is the MMC register table of this instance: the control register, the
// (not generated) interrupt registers and the counters, which the frame path counts
// into by index (mmcAdd) and which clear on read while RSTONRD is set.
func (c *MAC) mmcRegisters() []reg.Register {
	regs := []reg.Register{
		{Name: "MMC_CNTRL", Offset: offMMCCntrl, AfterWrite: func(_, cur uint32) { c.mmcControl(cur) }, Fields: []reg.Field{
			mmcCntReset, mmcCntStopRoll, mmcRstOnRead, mmcCntFreeze, mmcCntPreset, mmcPresetFull,
		}},
		{Name: "MMC_RX_INTR", Offset: offMMCRxIntr, Fields: []reg.Field{fld("STATUS", 23, 0, reg.RO, "RX counter half/full (not generated)")}},
		{Name: "MMC_TX_INTR", Offset: offMMCTxIntr, Fields: []reg.Field{fld("STATUS", 24, 0, reg.RO, "TX counter half/full (not generated)")}},
		{Name: "MMC_RX_INTR_MASK", Offset: mmcBase + 0x0c, Fields: []reg.Field{fld("MASK", 23, 0, reg.RW, "")}},
		{Name: "MMC_TX_INTR_MASK", Offset: mmcBase + 0x10, Fields: []reg.Field{fld("MASK", 24, 0, reg.RW, "")}},
		{Name: "MMC_RX_IPC_INTR_MASK", Offset: mmcBase + 0x100, Fields: []reg.Field{fld("MASK", 29, 0, reg.RW, "")}},
		{Name: "MMC_RX_IPC_INTR", Offset: offMMCIPCIntr, Fields: []reg.Field{fld("STATUS", 29, 0, reg.RO, "(not generated)")}},
	}
	for _, d := range mmcCounterDefs {
		off := mmcBase + d.off
		regs = append(regs, reg.Register{Name: d.name, Offset: off,
			Fields: []reg.Field{fld("COUNT", 31, 0, reg.RO, "")},
			AfterRead: func(uint32) {
				if c.mmcCtl&mmcRstOnRead.Mask() != 0 {
					c.mmcRegs.Set(off, 0)
				}
			}})
	}
	return regs
}
