package farend

import "mesonemu/counter"

// Stats are the NIC's counters.
type Stats struct {
	RxPackets           uint64 // good frames accepted
	RxBytes             uint64 // their bytes, without FCS
	RxCRCErrors         uint64
	RxAlignErrors       uint64 // lost SFD or shifted nibbles
	RxShortLengthErrors uint64 // runts
	RxLongLengthErrors  uint64 // giants
	RxMissedErrors      uint64 // moderation ring full
	RxDropped           uint64 // no stack attached
	TxPackets           uint64
	TxBytes             uint64 // without padding and FCS
	TxDropped           uint64 // queue full
	TxErrors            uint64 // frame too long
	TxCarrierErrors     uint64 // no link or no cable
}

// Sub is the change from base to s, every counter at once.
func (s Stats) Sub(base Stats) Stats { return counter.Sub(s, base) }

// Counter is one named counter.
type Counter struct {
	Name  string
	Value uint64
}

// StatsLocked reads the counters (lock held).
func (n *NIC) StatsLocked() Stats { return n.stats }

// Stats reads the counters; it takes the machine lock.
func (n *NIC) Stats() Stats {
	n.m.Lock()
	defer n.m.Unlock()
	return n.stats
}

// Counters lists the counters under their ethtool -S names (the e1000e/igb
// spellings), always in this order. rx_length_errors is the sum of the short and
// long length errors, as the kernel's netdev statistics report it; rx_align_errors
// is what the kernel's rx_frame_errors shows.
func (s Stats) Counters() []Counter {
	return []Counter{
		{"rx_packets", s.RxPackets},
		{"rx_bytes", s.RxBytes},
		{"rx_crc_errors", s.RxCRCErrors},
		{"rx_align_errors", s.RxAlignErrors},
		{"rx_length_errors", s.RxShortLengthErrors + s.RxLongLengthErrors},
		{"rx_short_length_errors", s.RxShortLengthErrors},
		{"rx_long_length_errors", s.RxLongLengthErrors},
		{"rx_missed_errors", s.RxMissedErrors},
		{"rx_dropped", s.RxDropped},
		{"tx_packets", s.TxPackets},
		{"tx_bytes", s.TxBytes},
		{"tx_dropped", s.TxDropped},
		{"tx_errors", s.TxErrors},
		{"tx_carrier_errors", s.TxCarrierErrors},
	}
}

// RxFrames is every frame Receive was handed: accepted plus every drop.
func (s Stats) RxFrames() uint64 {
	return s.RxPackets + s.RxCRCErrors + s.RxAlignErrors + s.RxShortLengthErrors +
		s.RxLongLengthErrors + s.RxMissedErrors + s.RxDropped
}
