package stmmac

import "mesonemu/reg"

// DMA block offsets (dwmac_dma.h / dwmac1000.h names).
const (
	dmaBase         = 0x1000
	offBusMode      = 0x1000
	offTxPoll       = 0x1004
	offRxPoll       = 0x1008
	offRxBase       = 0x100c
	offTxBase       = 0x1010
	offStatus       = 0x1014
	offOpMode       = 0x1018
	offIntEnable    = 0x101c
	offMissed       = 0x1020
	offRIWT         = 0x1024
	offCurTxDesc    = 0x1048
	offCurRxDesc    = 0x104c
	offCurTxBuf     = 0x1050
	offCurRxBuf     = 0x1054
	offHWFeature    = 0x1058
	busModeReset    = 0x00020100 // PBL = 1, RPBL = 1, reset complete
	axiBusModeReset = 0x00110001 // Assumption: UNDEF = 1, 1 outstanding read and write
)

// DMA_BUS_MODE.
var (
	busSWR  = fld("SWR", 0, 0, reg.SC, "software reset: resets DMA and MAC, self-clearing")
	busDSL  = fld("DSL", 6, 2, reg.RW, "descriptor skip length in words (ring mode)")
	busATDS = fld("ATDS", 7, 7, reg.RW, "alternate (32-byte) descriptor size")
)

// DMA_STATUS (CSR5); DMA_INTR_ENA (CSR7) enables the same bits.
var (
	stTI  = fld("TI", 0, 0, reg.W1C, "transmit interrupt")
	stTPS = fld("TPS", 1, 1, reg.W1C, "transmit process stopped")
	stTU  = fld("TU", 2, 2, reg.W1C, "transmit buffer unavailable")
	stTJT = fld("TJT", 3, 3, reg.W1C, "transmit jabber timeout")
	stOVF = fld("OVF", 4, 4, reg.W1C, "receive overflow")
	stUNF = fld("UNF", 5, 5, reg.W1C, "transmit underflow")
	stRI  = fld("RI", 6, 6, reg.W1C, "receive interrupt")
	stRU  = fld("RU", 7, 7, reg.W1C, "receive buffer unavailable")
	stRPS = fld("RPS", 8, 8, reg.W1C, "receive process stopped")
	stRWT = fld("RWT", 9, 9, reg.W1C, "receive watchdog timeout")
	stETI = fld("ETI", 10, 10, reg.W1C, "early transmit")
	stFBI = fld("FBI", 13, 13, reg.W1C, "fatal bus error")
	stERI = fld("ERI", 14, 14, reg.W1C, "early receive")
	stAIS = fld("AIS", 15, 15, reg.W1C, "abnormal summary (OR of enabled abnormal sources)")
	stNIS = fld("NIS", 16, 16, reg.W1C, "normal summary (OR of enabled normal sources)")
	stRS  = fld("RS", 19, 17, reg.RO, "RX process state")
	stTS  = fld("TS", 22, 20, reg.RO, "TX process state")
	stEB  = fld("EB", 25, 23, reg.RO, "bus error: 23 TX DMA, 24 read, 25 descriptor")
	stGLI = fld("GLI", 26, 26, reg.RO, "MAC line interface interrupt")

	stNormal   = reg.Masks(stTI, stTU, stRI, stERI)
	stAbnormal = reg.Masks(stTPS, stTJT, stOVF, stUNF, stRU, stRPS, stRWT, stETI, stFBI)
)

// EB (error bits) values, CSR5 25:23.
const (
	ebTxDMA      = 1 << 0
	ebRead       = 1 << 1
	ebDescriptor = 1 << 2
)

// DMA_CONTROL, the operation mode (CSR6).
var (
	opSR  = fld("SR", 1, 1, reg.RW, "start/stop receive")
	opRTC = fld("RTC", 4, 3, reg.RW, "RX threshold: 64, 32, 96, 128 bytes")
	opFUF = fld("FUF", 6, 6, reg.RW, "forward undersized good frames")
	opFEF = fld("FEF", 7, 7, reg.RW, "forward error frames")
	opST  = fld("ST", 13, 13, reg.RW, "start/stop transmission")
	opFTF = fld("FTF", 20, 20, reg.SC, "flush TX FIFO, self-clearing")
	opRSF = fld("RSF", 25, 25, reg.RW, "RX store and forward")
)

// DMA_MISSED_FRAME_CTR: two saturating counters, cleared by reading.
var (
	missedCount       = fld("MISFRMCNT", 15, 0, reg.RC, "frames missed for lack of a descriptor")
	missedOverflow    = fld("MISCNTOVF", 16, 16, reg.RC, "missed counter overflow")
	missedFIFOCount   = fld("OVFFRMCNT", 27, 17, reg.RC, "frames missed by FIFO overflow")
	missedFIFOOverflw = fld("OVFCNTOVF", 28, 28, reg.RC, "overflow counter overflow")
)

// DMA_RX_WATCHDOG.
var riwtCount = fld("RIWT", 7, 0, reg.RW, "RI delay for DIC frames, x256 CSR clocks")

// dmaRegisters is the DMA register table of this instance, with the side effects of
// guest accesses as hooks; DMA_HW_FEATURE's reset value is Config's.
func (c *MAC) dmaRegisters() []reg.Register {
	return append(c.dmaEngineRegisters(), dmaBusRegisters(c.cfg.HWFeature)...)
}

// dmaEngineRegisters are the registers that start, stop and steer the engines and
// the interrupt line.
func (c *MAC) dmaEngineRegisters() []reg.Register {
	updateIRQ := func(_, _ uint32) { c.updateIRQ() }
	return []reg.Register{
		{Name: "DMA_BUS_MODE", Offset: offBusMode, Reset: busModeReset, AfterWrite: func(_, cur uint32) {
			if cur&busSWR.Mask() != 0 && !c.swrEv.Pending() {
				c.softwareReset()
			}
		}, Fields: []reg.Field{
			busSWR,
			fld("DA", 1, 1, reg.RW, "arbitration: RX before TX"),
			busDSL, busATDS,
			fld("PBL", 13, 8, reg.RW, "programmable burst length"),
			fld("PR", 15, 14, reg.RW, "RX:TX priority ratio"),
			fld("FB", 16, 16, reg.RW, "fixed burst"),
			fld("RPBL", 22, 17, reg.RW, "RX burst length"),
			fld("USP", 23, 23, reg.RW, "use separate PBL"),
			fld("PBLx8", 24, 24, reg.RW, "PBL x 8"),
			fld("AAL", 25, 25, reg.RW, "address-aligned beats"),
			fld("MB", 26, 26, reg.RW, "mixed burst"),
		}},
		{Name: "DMA_XMT_POLL_DEMAND", Offset: offTxPoll, AfterWrite: func(_, _ uint32) { c.txPollDemand() },
			Fields: []reg.Field{fld("TPD", 31, 0, reg.WO, "any write resumes the TX DMA")}},
		{Name: "DMA_RCV_POLL_DEMAND", Offset: offRxPoll, AfterWrite: func(_, _ uint32) { c.rxPollDemand() },
			Fields: []reg.Field{fld("RPD", 31, 0, reg.WO, "any write resumes the RX DMA")}},
		// A stopped engine starts from the list base; a running one keeps its position.
		{Name: "DMA_RCV_BASE_ADDR", Offset: offRxBase, AfterWrite: func(_, cur uint32) {
			if c.rx.state == Stopped {
				c.rx.cur = cur
			}
		}, Fields: []reg.Field{fld("RDESLA", 31, 2, reg.RW, "RX descriptor list base (word aligned)")}},
		{Name: "DMA_TX_BASE_ADDR", Offset: offTxBase, AfterWrite: func(_, cur uint32) {
			if c.tx.state == Stopped {
				c.tx.cur = cur
			}
		}, Fields: []reg.Field{fld("TDESLA", 31, 2, reg.RW, "TX descriptor list base (word aligned)")}},
		{Name: "DMA_STATUS", Offset: offStatus, AfterWrite: updateIRQ, Fields: []reg.Field{
			stTI, stTPS, stTU, stTJT, stOVF, stUNF, stRI, stRU, stRPS, stRWT, stETI, stFBI, stERI, stAIS, stNIS,
			stRS, stTS, stEB, stGLI,
			fld("GMI", 27, 27, reg.RO, "MMC interrupt"),
			fld("GPI", 28, 28, reg.RO, "PMT interrupt"),
			fld("TTI", 29, 29, reg.RO, "timestamp trigger"),
			fld("GLPII", 30, 30, reg.RO, "LPI interrupt"),
		}},
		{Name: "DMA_CONTROL", Offset: offOpMode, AfterWrite: c.opModeWritten, Fields: []reg.Field{
			opSR,
			fld("OSF", 2, 2, reg.RW, "operate on second frame"),
			opRTC, opFUF, opFEF,
			fld("EFC", 8, 8, reg.RW, "hardware flow control"),
			fld("RFA", 10, 9, reg.RW, "flow control activate threshold"),
			fld("RFD", 12, 11, reg.RW, "flow control deactivate threshold"),
			opST,
			fld("TTC", 16, 14, reg.RW, "TX threshold"),
			opFTF,
			fld("TSF", 21, 21, reg.RW, "TX store and forward"),
			fld("RFD2", 22, 22, reg.RW, "RFD bit 2"),
			fld("RFA2", 23, 23, reg.RW, "RFA bit 2"),
			fld("DFF", 24, 24, reg.RW, "disable flushing of received frames"),
			opRSF,
			fld("DT", 26, 26, reg.RW, "do not drop TCP/IP checksum error frames"),
		}},
		{Name: "DMA_INTR_ENA", Offset: offIntEnable, AfterWrite: updateIRQ, Fields: []reg.Field{
			sameBit(stTI, "TIE", ""), sameBit(stTPS, "TSE", ""), sameBit(stTU, "TUE", ""),
			sameBit(stTJT, "TJE", ""), sameBit(stOVF, "OVE", ""), sameBit(stUNF, "UNE", ""),
			sameBit(stRI, "RIE", ""), sameBit(stRU, "RUE", ""), sameBit(stRPS, "RSE", ""),
			sameBit(stRWT, "RWE", ""), sameBit(stETI, "ETE", ""), sameBit(stFBI, "FBE", ""),
			sameBit(stERI, "ERE", ""), sameBit(stAIS, "AIE", "abnormal summary enable"),
			sameBit(stNIS, "NIE", "normal summary enable"),
		}},
		{Name: "DMA_MISSED_FRAME_CTR", Offset: offMissed, Fields: []reg.Field{
			missedCount, missedOverflow, missedFIFOCount, missedFIFOOverflw,
		}},
		{Name: "DMA_RX_WATCHDOG", Offset: offRIWT, Fields: []reg.Field{riwtCount}},
	}
}

// dmaBusRegisters are the AXI settings, the engines' current positions and the
// feature word: storage and read-only state without side effects.
func dmaBusRegisters(hwFeature uint32) []reg.Register {
	return []reg.Register{
		{Name: "DMA_AXI_BUS_MODE", Offset: 0x1028, Reset: axiBusModeReset, Fields: []reg.Field{
			fld("UNDEF", 0, 0, reg.RW, ""), fld("BLEN4", 1, 1, reg.RW, ""), fld("BLEN8", 2, 2, reg.RW, ""),
			fld("BLEN16", 3, 3, reg.RW, ""), fld("BLEN32", 4, 4, reg.RW, ""), fld("BLEN64", 5, 5, reg.RW, ""),
			fld("BLEN128", 6, 6, reg.RW, ""), fld("BLEN256", 7, 7, reg.RW, ""), fld("AXI_AAL", 12, 12, reg.RW, ""),
			fld("ONEKBBE", 13, 13, reg.RW, ""), fld("RD_OSR_LMT", 19, 16, reg.RW, ""), fld("WR_OSR_LMT", 23, 20, reg.RW, ""),
			fld("LPI_XIT_FRM", 30, 30, reg.RW, ""), fld("EN_LPI", 31, 31, reg.RW, ""),
		}},
		{Name: "DMA_AXI_STATUS", Offset: 0x102c, Fields: []reg.Field{fld("STATUS", 1, 0, reg.RO, "AXI master busy")}},
		{Name: "DMA_HOST_TX_DESC", Offset: offCurTxDesc, Fields: []reg.Field{fld("ADDR", 31, 0, reg.RO, "current TX descriptor")}},
		{Name: "DMA_HOST_RX_DESC", Offset: offCurRxDesc, Fields: []reg.Field{fld("ADDR", 31, 0, reg.RO, "current RX descriptor")}},
		{Name: "DMA_CUR_TX_BUF_ADDR", Offset: offCurTxBuf, Fields: []reg.Field{fld("ADDR", 31, 0, reg.RO, "current TX buffer")}},
		{Name: "DMA_CUR_RX_BUF_ADDR", Offset: offCurRxBuf, Fields: []reg.Field{fld("ADDR", 31, 0, reg.RO, "current RX buffer")}},
		{Name: "DMA_HW_FEATURE", Offset: offHWFeature, Reset: hwFeature, Fields: []reg.Field{
			fld("MIISEL", 0, 0, reg.RO, "10/100"), fld("GMIISEL", 1, 1, reg.RO, "1000"),
			fld("HDSEL", 2, 2, reg.RO, "half duplex"), fld("HASHSEL", 4, 4, reg.RO, "hash filter"),
			fld("ADDMACADRSEL", 5, 5, reg.RO, "multiple MAC addresses"), fld("PCSSEL", 6, 6, reg.RO, "PCS"),
			fld("SMASEL", 8, 8, reg.RO, "MDIO"), fld("RWKSEL", 9, 9, reg.RO, "remote wake-up"),
			fld("MGKSEL", 10, 10, reg.RO, "magic packet"), fld("MMCSEL", 11, 11, reg.RO, "MMC counters"),
			fld("TSVER1SEL", 12, 12, reg.RO, ""), fld("TSVER2SEL", 13, 13, reg.RO, ""),
			fld("EEESEL", 14, 14, reg.RO, "EEE"), fld("AVSEL", 15, 15, reg.RO, ""),
			fld("TXCOESEL", 16, 16, reg.RO, "TX checksum offload"), fld("RXTYP1COE", 17, 17, reg.RO, ""),
			fld("RXTYP2COE", 18, 18, reg.RO, "RX checksum offload type 2"), fld("RXFIFOSIZE", 19, 19, reg.RO, "RX FIFO > 2 KiB"),
			fld("RXCHCNT", 21, 20, reg.RO, ""), fld("TXCHCNT", 23, 22, reg.RO, ""),
			fld("ENHDESSEL", 24, 24, reg.RO, "alternate (enhanced) descriptors"),
		}},
	}
}
