package stmmac

import "mesonemu/counter"

// Counters are the model's own accounting (not guest-visible registers, which reset
// with SWR and on read): they only grow, so soak checks can prove conservation:
//
//	RxSeen = RxDelivered + RxDroppedCRC + RxDroppedLength + RxDroppedNoDescriptor +
//	         RxDroppedDisabled + RxDroppedBusError + RxDroppedFiltered
type Counters struct {
	TxFrames          uint64 // frames handed to the transmitter (or looped back)
	TxOctets          uint64 // their bytes, FCS included, preamble and IFG excluded
	TxJabberFlushed   uint64 // frames cut off by the jabber timer (not transmitted)
	TxFIFOFlushed     uint64 // frames discarded by FTF before reaching the line
	TxDescFetches     uint64 // TX descriptor reads
	TxBufferUnavail   uint64 // TU events (engine suspended on a host-owned descriptor)
	TxBusErrors       uint64 // TX fatal bus errors
	TxChecksumInserts uint64 // frames whose checksums the COE filled in

	RxSeen                uint64 // frames handed to Receive
	RxDelivered           uint64 // frames written to descriptors
	RxOctets              uint64 // bytes of delivered frames (FL)
	RxDeliveredWithErrors uint64 // delivered with ES set (FEF, threshold mode, giant)
	RxDroppedCRC          uint64
	RxDroppedLength       uint64
	RxDroppedNoDescriptor uint64
	RxDroppedDisabled     uint64 // = RxReceiverOff + RxDMAStopped
	RxReceiverOff         uint64 // RE clear: the MAC did not receive
	RxDMAStopped          uint64 // SR clear or stopped by a bus error: received, not stored
	RxDroppedBusError     uint64
	RxDroppedFiltered     uint64
	RxCRCErrors           uint64 // bad FCS, dropped or forwarded
	RxTruncated           uint64 // frames cut short by a host-owned descriptor (DE)
	RxDescFetches         uint64 // RX descriptor reads
	RxBusErrors           uint64 // RX fatal bus errors

	MDIOReads, MDIOWrites uint64
	SoftwareResets        uint64
	IRQAssertions         uint64 // rising edges of the interrupt line
}

// Sub is the change from base to c, every counter at once.
func (c Counters) Sub(base Counters) Counters { return counter.Sub(c, base) }

// NamedCounter is one counter with its stable ethtool -S style name.
type NamedCounter struct {
	Name  string
	Value uint64
}

// List returns the counters in a stable order with stable names.
func (c Counters) List() []NamedCounter {
	return []NamedCounter{
		{"tx_frames", c.TxFrames},
		{"tx_octets", c.TxOctets},
		{"tx_jabber_flushed", c.TxJabberFlushed},
		{"tx_fifo_flushed", c.TxFIFOFlushed},
		{"tx_desc_fetches", c.TxDescFetches},
		{"tx_buf_unav", c.TxBufferUnavail},
		{"tx_bus_errors", c.TxBusErrors},
		{"tx_csum_inserted", c.TxChecksumInserts},
		{"rx_seen", c.RxSeen},
		{"rx_delivered", c.RxDelivered},
		{"rx_octets", c.RxOctets},
		{"rx_delivered_with_errors", c.RxDeliveredWithErrors},
		{"rx_dropped_crc", c.RxDroppedCRC},
		{"rx_dropped_length", c.RxDroppedLength},
		{"rx_dropped_no_desc", c.RxDroppedNoDescriptor},
		{"rx_dropped_disabled", c.RxDroppedDisabled},
		{"rx_receiver_off", c.RxReceiverOff},
		{"rx_dma_stopped", c.RxDMAStopped},
		{"rx_dropped_bus_error", c.RxDroppedBusError},
		{"rx_dropped_filtered", c.RxDroppedFiltered},
		{"rx_crc_errors", c.RxCRCErrors},
		{"rx_truncated", c.RxTruncated},
		{"rx_desc_fetches", c.RxDescFetches},
		{"rx_bus_errors", c.RxBusErrors},
		{"mdio_reads", c.MDIOReads},
		{"mdio_writes", c.MDIOWrites},
		{"software_resets", c.SoftwareResets},
		{"irq_assertions", c.IRQAssertions},
	}
}

// countOutcome books one Receive outcome.
func (c *Counters) countOutcome(o RxOutcome) {
	switch o {
	case Delivered:
		c.RxDelivered++
	case DroppedCRC:
		c.RxDroppedCRC++
	case DroppedLength:
		c.RxDroppedLength++
	case DroppedNoDescriptor:
		c.RxDroppedNoDescriptor++
	case DroppedDisabled:
		c.RxDroppedDisabled++
	case DroppedBusError:
		c.RxDroppedBusError++
	case DroppedFiltered:
		c.RxDroppedFiltered++
	}
}
