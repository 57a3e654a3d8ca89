package tap

import (
	"time"

	"mesonemu/emu"
	"mesonemu/sim"
)

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
	// Pacing is how closely the engine kept to the wall clock: the pacer's
	// wake-up error and every event's lag (count, mean, p99, max).
	Pacing emu.PacingReport `json:"pacing"`

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
type Counter = sim.Counter

// List names the counters in a fixed order, grouped by where they count.
func (c Counters) List() []Counter {
	const h2b, b2h, wire = "tap bridge host->board", "tap bridge board->host", "wire"
	pace := "engine pacing (" + c.Pacing.Pacer + ")"
	ns := func(v int64) uint64 { return uint64(max(v, 0)) }
	return []Counter{
		{Where: h2b, Name: "tap_read", Value: c.TapRead},
		{Where: h2b, Name: "sent_to_board", Value: c.SentToBoard},
		{Where: h2b, Name: "drop_too_long", Value: c.TooLong},
		{Where: h2b, Name: "drop_runt", Value: c.Runt},
		{Where: h2b, Name: "drop_queue_full", Value: c.QueueFull},
		{Where: h2b, Name: "drop_send_error", Value: c.SendErrors},
		{Where: h2b, Name: "drop_machine_stopped", Value: c.NotOffered},
		{Where: h2b, Name: "read_errors", Value: c.ReadErrors},
		{Where: b2h, Name: "from_board", Value: c.FromBoard},
		{Where: b2h, Name: "written_to_host", Value: c.WrittenToHost},
		{Where: b2h, Name: "drop_writer_busy", Value: c.WriterBusy},
		{Where: b2h, Name: "drop_write_error", Value: c.WriteErrors},
		{Where: b2h, Name: "drop_unwritten", Value: c.Unwritten},
		{Where: wire, Name: "tx_wire_damaged", Value: c.Wire.TxDamaged},
		{Where: wire, Name: "far_end_rx_crc_errors", Value: c.Wire.FarEndCRCErrors},
		{Where: wire, Name: "far_end_rx_align_errors", Value: c.Wire.FarEndAlignError},
		{Where: wire, Name: "rx_wire_damaged", Value: c.Wire.RxDamaged},
		{Where: wire, Name: "board_rx_crc_errors", Value: c.Wire.BoardCRCErrors},
		{Where: wire, Name: "board_rx_sfd_lost", Value: c.Wire.BoardSFDLost},
		{Where: wire, Name: "pcap_frames", Value: c.Wire.PcapFrames},
		{Where: wire, Name: "pcap_bad_fcs", Value: c.Wire.PcapBadFCS},
		{Where: wire, Name: "pcap_sfd_errors", Value: c.Wire.PcapSFDErrors},
		{Where: pace, Name: "wakeups", Value: c.Pacing.Error.Count},
		{Where: pace, Name: "wakeup_late_mean_ns", Value: ns(c.Pacing.Error.MeanNs)},
		{Where: pace, Name: "wakeup_late_p99_ns", Value: ns(c.Pacing.Error.P99Ns)},
		{Where: pace, Name: "wakeup_late_max_ns", Value: ns(c.Pacing.Error.MaxNs)},
		{Where: pace, Name: "events", Value: c.Pacing.Behind.Count},
		{Where: pace, Name: "behind_mean_ns", Value: ns(c.Pacing.Behind.MeanNs)},
		{Where: pace, Name: "behind_p99_ns", Value: ns(c.Pacing.Behind.P99Ns)},
		{Where: pace, Name: "behind_max_ns", Value: ns(c.Pacing.Behind.MaxNs)},
	}
}
