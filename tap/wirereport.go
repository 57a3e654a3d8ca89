package tap

import (
	"errors"
	"fmt"
	"io"
	"time"

	"mesonemu/emu"
	"mesonemu/farend"
	"mesonemu/linux/stmmac"
	"mesonemu/platform"
	"mesonemu/sim"
)

// WireReport is what a Wire run counted. As JSON it is one object whose
// "counters" list has the main job's {where, name, value} entries.
type WireReport struct {
	sim.Description
	Seed       uint64 `json:"seed"`
	BoardTAP   string `json:"board_tap"`
	BoardNetns string `json:"board_netns,omitempty"`
	TAP        string `json:"tap"`
	Netns      string `json:"netns,omitempty"`
	// WallSeconds is how long frames were carried.
	WallSeconds float64 `json:"wall_seconds"`
	// ClockLagNs is the most an event of the board's machine ran behind the
	// wall clock: near zero while the host keeps up.
	ClockLagNs int64 `json:"clock_lag_ns"`
	// Pacing is how closely the engine kept to the wall clock: the pacer's
	// wake-up error and every event's lag.
	Pacing emu.PacingReport `json:"pacing"`
	// BoardCC is the board namespace's net.ipv4.tcp_congestion_control, and
	// BoardCCLossBased whether it backs off on loss (K means something).
	BoardCC          string    `json:"board_congestion_control,omitempty"`
	BoardCCLossBased bool      `json:"board_congestion_control_loss_based"`
	Counters         []Counter `json:"counters"`

	raw wireRaw
}

// wireRaw is every stage's own counters, for the list and the conservation
// check.
type wireRaw struct {
	port              BoardPortCounters
	bridge            Counters
	path              platform.PathCounters
	farEnd            farend.Stats
	driver            stmmac.NetStats
	ethtool           []stmmac.Stat
	pcap              [3]uint64
	hasPcap           bool
	boardHost, pcHost HostTAPStats
	hasHost           bool
}

// list names the counters in the order a frame meets them: board's Linux to
// the PC, then back.
func (r wireRaw) list(boardTAP, pcTAP string) []Counter {
	var out []Counter
	add := func(where string, kv ...any) {
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, Counter{Where: where, Name: kv[i].(string), Value: kv[i+1].(uint64)})
		}
	}
	bk, pk := "board-side TAP "+boardTAP+" (host kernel)", "pc-side TAP "+pcTAP+" (host kernel)"
	if r.hasHost {
		add(bk, "tx_packets", r.boardHost.TxPackets, "tx_dropped", r.boardHost.TxDropped)
	}
	p := r.port
	add("board port tap->eth0", "tap_read", p.TapRead, "drop_too_long", p.TooLong, "drop_runt", p.Runt,
		"drop_qdisc_full", p.QdiscFull, "drop_machine_stopped", p.NotTaken, "to_qdisc", p.ToQdisc, "driver_took", p.DriverTook,
		"driver_refused", p.DriverRefused, "held_at_close", p.HeldAtClose, "read_errors", p.ReadErrors)
	out = append(out, sim.LinkCounters(r.ethtool, r.path, r.farEnd)...)
	b := r.bridge
	add("pc tap bridge nic->tap", "from_nic", b.FromBoard, "written_to_tap", b.WrittenToHost,
		"drop_writer_busy", b.WriterBusy, "drop_write_error", b.WriteErrors, "drop_unwritten", b.Unwritten)
	if r.hasHost {
		add(pk, "rx_packets", r.pcHost.RxPackets, "rx_dropped", r.pcHost.RxDropped,
			"tx_packets", r.pcHost.TxPackets, "tx_dropped", r.pcHost.TxDropped)
	}
	add("pc tap bridge tap->nic", "tap_read", b.TapRead, "sent_to_nic", b.SentToBoard, "drop_too_long", b.TooLong,
		"drop_runt", b.Runt, "drop_queue_full", b.QueueFull, "drop_send_error", b.SendErrors,
		"drop_machine_stopped", b.NotOffered, "read_errors", b.ReadErrors)
	add("board port eth0->tap", "rx_from_driver", p.RxQueued+p.RxBacklogDrops+p.RxRunt, "rx_backlog_drops", p.RxBacklogDrops,
		"rx_runt", p.RxRunt, "rx_delivered", p.RxDelivered, "rx_left_in_backlog", p.RxLeftInBacklog,
		"written_to_tap", p.WrittenToTAP, "drop_writer_busy", p.WriterBusy, "drop_write_error", p.WriteErrors,
		"drop_unwritten", p.Unwritten)
	if r.hasHost {
		add(bk, "rx_packets", r.boardHost.RxPackets, "rx_dropped", r.boardHost.RxDropped)
	}
	if r.hasPcap {
		add("pcap", "frames", r.pcap[0], "bad_fcs", r.pcap[1], "sfd_errors", r.pcap[2])
	}
	return out
}

// Counter returns the value of the counter where/name (false if absent).
func (r *WireReport) Counter(where, name string) (uint64, bool) {
	for _, c := range r.Counters {
		if c.Where == where && c.Name == name {
			return c.Value, true
		}
	}
	return 0, false
}

// Conservation checks that every frame is delivered or counted by cause, at
// each stage where the counts must agree exactly once the machine stopped.
// Between stages frames may sit in a ring or a NIC queue when the run ends;
// there the check is an inequality.
func (r *WireReport) Conservation() error {
	p, b, pa, fe := r.raw.port, r.raw.bridge, r.raw.path, r.raw.farEnd
	var errs []error
	eq := func(what string, lhs, rhs uint64) {
		if lhs != rhs {
			errs = append(errs, fmt.Errorf("%s: %d != %d", what, lhs, rhs))
		}
	}
	le := func(what string, lhs, rhs uint64) {
		if lhs > rhs {
			errs = append(errs, fmt.Errorf("%s: %d > %d", what, lhs, rhs))
		}
	}
	// Board's Linux -> PC's Linux.
	eq("board tap_read = too_long + runt + qdisc_full + machine_stopped + to_qdisc", p.TapRead, p.TooLong+p.Runt+p.QdiscFull+p.NotTaken+p.ToQdisc)
	eq("board to_qdisc = driver_took + driver_refused + held_at_close", p.ToQdisc, p.DriverTook+p.DriverRefused+p.HeldAtClose)
	le("wire tx_frames <= driver_took", pa.TxFromMAC, p.DriverTook)
	eq("wire tx_frames = no_clock + no_link + bad_timing + at_far_end", pa.TxFromMAC, pa.TxNoClock+pa.TxNoLink+pa.TxBadTiming+pa.TxAtFarEnd)
	eq("wire tx_at_far_end = pc nic's received frames, good and bad", pa.TxAtFarEnd, fe.RxFrames())
	le("bridge from_nic <= pc nic rx_packets", b.FromBoard, fe.RxPackets)
	eq("bridge from_nic = written + writer_busy + write_error + unwritten", b.FromBoard, b.WrittenToHost+b.WriterBusy+b.WriteErrors+b.Unwritten)
	// PC's Linux -> board's Linux.
	eq("bridge tap_read = sent + too_long + runt + queue_full + send_error + machine_stopped", b.TapRead,
		b.SentToBoard+b.TooLong+b.Runt+b.QueueFull+b.SendErrors+b.NotOffered)
	le("pc nic tx_packets <= bridge sent_to_nic", fe.TxPackets, b.SentToBoard)
	le("wire rx_frames <= pc nic tx_packets", pa.RxFromFarEnd, fe.TxPackets)
	eq("wire rx_frames = no_link + bad_timing + sfd_lost + at_mac", pa.RxFromFarEnd, pa.RxNoLink+pa.RxBadTiming+pa.RxSFDLost+pa.RxAtMAC)
	eq("driver rx_packets = board port rx_queued + backlog_drops + runt", r.raw.driver.RxPackets, p.RxQueued+p.RxBacklogDrops+p.RxRunt)
	eq("board rx_queued = rx_delivered + left_in_backlog", p.RxQueued, p.RxDelivered+p.RxLeftInBacklog)
	eq("board rx_delivered = written + writer_busy + write_error + unwritten", p.RxDelivered, p.WrittenToTAP+p.WriterBusy+p.WriteErrors+p.Unwritten)
	return errors.Join(errs...)
}

// WriteText prints the report as the main job prints its link counters.
func (r *WireReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "mesonemu wire: board %s, %s driver, tx-delay %d ns, phy-mode %s, seed %d\n",
		r.Board, r.Driver, r.TxDelayNs, r.PhyMode, r.Seed)
	fmt.Fprintf(w, "carried %.1f s of wall time; the board's clock ran at most %v late\n",
		r.WallSeconds, time.Duration(r.ClockLagNs).Round(time.Microsecond))
	writePacing(w, r.Pacing)
	sim.WriteCounters(w, r.Counters)
	tx, crc := r.raw.path.TxFromMAC, r.raw.farEnd.RxCRCErrors
	loss := 0.0
	if tx > 0 {
		loss = float64(crc) / float64(tx)
	}
	fmt.Fprintf(w, "\nwire: the PC's NIC dropped %d of the board's %d frames for a bad FCS (%.3f %%)\n", crc, tx, 100*loss)
}
