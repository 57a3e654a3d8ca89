package tap

import "time"

// Counters account for every frame the bridge handled, so that
//
//	TapRead   = SentToBoard + TooLong + Runt + QueueFull + SendErrors + NotOffered (+ in hand)
//	FromBoard = WrittenToHost + WriterBusy + WriteErrors + Unwritten (+ queued)
//
// hold at every instant, and exactly once the bridge is closed (with the
// machine stopped: frames still in hand then are NotOffered).
type Counters struct {
	// Host -> board.
	TapRead     uint64 `json:"tap_read"`      // frames read from the TAP
	SentToBoard uint64 `json:"sent_to_board"` // accepted by the far-end NIC for the cable
	TooLong     uint64 `json:"drop_too_long"` // longer than MaxFrameLen
	Runt        uint64 `json:"drop_runt"`     // shorter than an Ethernet header
	QueueFull   uint64 `json:"drop_queue_full"`
	SendErrors  uint64 `json:"drop_send_error"`      // no link, no cable, refused by the NIC
	NotOffered  uint64 `json:"drop_machine_stopped"` // read, but the machine stopped before offering them
	ReadErrors  uint64 `json:"read_errors"`          // failed reads (no frame)

	// Board -> host.
	FromBoard     uint64 `json:"from_board"` // good frames the far-end NIC handed over
	WrittenToHost uint64 `json:"written_to_host"`
	WriterBusy    uint64 `json:"drop_writer_busy"` // writer queue full
	WriteErrors   uint64 `json:"drop_write_error"` // the TAP refused the frame (host side down)
	Unwritten     uint64 `json:"drop_unwritten"`   // still queued when the bridge closed

	// ClockLag is the most any event of the board's machine ran behind its
	// time on the wall clock. In TAP mode the host kernel's clock never waits,
	// so anything but ~0 means the board's TCP timers and iperf3's seconds
	// ran slow against the host's.
	ClockLag time.Duration `json:"clock_lag_ns"`

	// The wire, filled in by Run: what the cable's far ends threw away.
	Wire WireCounters `json:"wire"`
}

// WireCounters are the link's own losses during a Run: the frames the host
// never saw or sent in vain.
type WireCounters struct {
	TxDamaged        uint64 `json:"tx_wire_damaged"`       // board -> host frames the TX wire changed
	FarEndCRCErrors  uint64 `json:"far_end_rx_crc_errors"` // dropped by the far end for a bad FCS
	FarEndAlignError uint64 `json:"far_end_rx_align_errors"`
	RxDamaged        uint64 `json:"rx_wire_damaged"` // host -> board frames the RX wire changed
	BoardCRCErrors   uint64 `json:"board_rx_crc_errors"`
	BoardSFDLost     uint64 `json:"board_rx_sfd_lost"`
	// What the pcap file holds (0 without one).
	PcapFrames    uint64 `json:"pcap_frames"`
	PcapBadFCS    uint64 `json:"pcap_bad_fcs"`
	PcapSFDErrors uint64 `json:"pcap_sfd_errors"`
}

// CRCErrors is every frame a receiver dropped for a bad FCS, both directions.
func (w WireCounters) CRCErrors() uint64 { return w.FarEndCRCErrors + w.BoardCRCErrors }

// Counter is one named counter for printing.
type Counter struct {
	Where string `json:"where"`
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// List names the counters in a fixed order, grouped by where they count.
func (c Counters) List() []Counter {
	const h2b, b2h, wire = "tap bridge host->board", "tap bridge board->host", "wire"
	return []Counter{
		{h2b, "tap_read", c.TapRead},
		{h2b, "sent_to_board", c.SentToBoard},
		{h2b, "drop_too_long", c.TooLong},
		{h2b, "drop_runt", c.Runt},
		{h2b, "drop_queue_full", c.QueueFull},
		{h2b, "drop_send_error", c.SendErrors},
		{h2b, "drop_machine_stopped", c.NotOffered},
		{h2b, "read_errors", c.ReadErrors},
		{b2h, "from_board", c.FromBoard},
		{b2h, "written_to_host", c.WrittenToHost},
		{b2h, "drop_writer_busy", c.WriterBusy},
		{b2h, "drop_write_error", c.WriteErrors},
		{b2h, "drop_unwritten", c.Unwritten},
		{wire, "tx_wire_damaged", c.Wire.TxDamaged},
		{wire, "far_end_rx_crc_errors", c.Wire.FarEndCRCErrors},
		{wire, "far_end_rx_align_errors", c.Wire.FarEndAlignError},
		{wire, "rx_wire_damaged", c.Wire.RxDamaged},
		{wire, "board_rx_crc_errors", c.Wire.BoardCRCErrors},
		{wire, "board_rx_sfd_lost", c.Wire.BoardSFDLost},
		{wire, "pcap_frames", c.Wire.PcapFrames},
		{wire, "pcap_bad_fcs", c.Wire.PcapBadFCS},
		{wire, "pcap_sfd_errors", c.Wire.PcapSFDErrors},
	}
}
