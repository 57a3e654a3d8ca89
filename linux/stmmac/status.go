package stmmac

// statusCounter is one bit of a status word (DMA CSR5, the MAC interrupt
// status, RDES0, TDES0) with the counters Linux bumps when it is set: an
// ethtool extra stat and, for some, a net_device stat. The bit counts only
// while the word's summary bit (gate) is set too, when gate is not 0: Linux
// looks at the abnormal and error bits only under AIS, NIS or ES.
type statusCounter struct {
	bit, gate uint32
	x         xstat
	net       netStat // noNet: the bit has no net_device counter
}

// noNet marks a statusCounter without a net_device counter.
const noNet netStat = -1

// countStatus bumps the counters of every bit of st that table names.
func (c *counters) countStatus(st uint32, table []statusCounter) {
	for _, e := range table {
		if st&e.bit == 0 || (e.gate != 0 && st&e.gate == 0) {
			continue
		}
		c.inc(e.x)
		if e.net != noNet {
			c.netInc(e.net)
		}
	}
}

// dmaStatusCounters is what dwmac_dma_interrupt counts of CSR5 (RI, counted only
// when the RX interrupt is enabled, is left to the handler).
var dmaStatusCounters = []statusCounter{
	{dmaStatusUNF, dmaStatusAIS, xTxUndeflowIRQ, noNet},
	{dmaStatusTJT, dmaStatusAIS, xTxJabberIRQ, noNet},
	{dmaStatusOVF, dmaStatusAIS, xRxOverflowIRQ, noNet},
	{dmaStatusRU, dmaStatusAIS, xRxBufUnavIRQ, noNet},
	{dmaStatusRPS, dmaStatusAIS, xRxProcessStoppedIRQ, noNet},
	{dmaStatusRWT, dmaStatusAIS, xRxWatchdogIRQ, noNet},
	{dmaStatusETI, dmaStatusAIS, xTxEarlyIRQ, noNet},
	{dmaStatusTPS, dmaStatusAIS, xTxProcessStoppedIRQ, noNet},
	{dmaStatusFBI, dmaStatusAIS, xFatalBusErrorIRQ, noNet},
	{dmaStatusNIS, 0, xNormalIRQN, noNet},
	{dmaStatusTI, dmaStatusNIS, xTxNormalIRQN, noNet},
	{dmaStatusERI, dmaStatusNIS, xRxEarlyIRQ, noNet},
}

// hostIRQCounters is what dwmac1000_irq_status counts of the unmasked MAC
// interrupt status (PMT and LPI, which need a register read, are left to it).
var hostIRQCounters = []statusCounter{
	{gmacIntStatusMMCTIS, 0, xMMCTxIRQN, noNet},
	{gmacIntStatusMMCRIS, 0, xMMCRxIRQN, noNet},
	{gmacIntStatusMMCCSUM, 0, xMMCRxCsumOffloadIRQN, noNet},
}

// lpiCounters is what dwmac1000_irq_status counts of the LPI control/status
// register.
var lpiCounters = []statusCounter{
	{lpiTLPIEN, 0, xIRQTxPathInLPIModeN, noNet},
	{lpiTLPIEX, 0, xIRQTxPathExitLPIModeN, noNet},
	{lpiRLPIEN, 0, xIRQRxPathInLPIModeN, noNet},
	{lpiRLPIEX, 0, xIRQRxPathExitLPIModeN, noNet},
}

// rxStatusCounters is what ndesc_get_rx_status (v5.4) counts of RDES0.
var rxStatusCounters = []statusCounter{
	{rdes0DescriptorError, rdes0ErrorSummary, xRxDesc, noNet},
	{rdes0SAFilterFail, rdes0ErrorSummary, xSAFilterFail, noNet},
	{rdes0OverflowError, rdes0ErrorSummary, xOverflowError, noNet},
	{rdes0IPCCsumError, rdes0ErrorSummary, xIPCCsumError, noNet},
	{rdes0Collision, rdes0ErrorSummary, xRxCollision, nCollisions},
	{rdes0CRCError, rdes0ErrorSummary, xRxCRCErrors, nRxCRCErrors},
	{rdes0Dribbling, 0, xDribblingBit, noNet},
	{rdes0LengthError, 0, xRxLength, noNet},
	{rdes0MIIError, 0, xRxMII, noNet},
	{rdes0VLANTag, 0, xVLANTag, noNet},
}

// txStatusCounters is what ndesc_get_tx_status counts of TDES0 (the collision
// count field is added by the caller).
var txStatusCounters = []statusCounter{
	{tdes0UnderflowError, tdes0ErrorSummary, xTxUnderflow, nTxFIFOErrors},
	{tdes0NoCarrier, tdes0ErrorSummary, xTxCarrier, nTxCarrierErrors},
	{tdes0LossCarrier, tdes0ErrorSummary, xTxLossCarrier, nTxCarrierErrors},
	{tdes0VLANFrame, 0, xTxVLAN, noNet},
	{tdes0Deferred, 0, xTxDeferred, noNet},
}
