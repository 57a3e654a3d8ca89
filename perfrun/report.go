package perfrun

import (
	"fmt"
	"io"

	"mesonemu/farend"
	"mesonemu/linux/stmmac"
	"mesonemu/netstack"
	"mesonemu/sim"
)

// writeHeader prints what the board booted into, before iperf3 runs.
func writeHeader(w io.Writer, r *Report) {
	d := r.Description
	delay := fmt.Sprintf("%d ns", d.TxDelayNs)
	if !d.TxDelayFromDT {
		delay += " (property absent: driver default)"
	}
	fmt.Fprintf(w, "mesonemu: board %s (%s), driver %s, phy-mode %s, tx-delay %s, seed %d\n",
		d.Board, d.SoC, d.Driver, d.PhyMode, delay, r.Seed)
	fmt.Fprintf(w, "clocks:   %s\n", d.ClockChain)
	fmt.Fprintf(w, "PRG_ETH0: 0x%08x (txdly %d, m250_div %d, m250_sel %d, rgmii_tx_clk_en %d)\n",
		d.PRGEth0["raw"], d.PRGEth0["txdly"], d.PRGEth0["m250_div"], d.PRGEth0["m250_sel"], d.PRGEth0["rgmii_tx_clk_en"])
	fmt.Fprintf(w, "TX delay: MAC %.0f ps [%s], PHY %s\n", d.EffectiveTX, d.EffectiveWhy, onOff(d.PHYTXDelay))
	fmt.Fprintf(w, "RX delay: MAC %.0f ps, PHY %s\n", d.EffectiveRX, onOff(d.PHYRXDelay))
	st := d.Stmmac
	fmt.Fprintf(w, "stmmac:   Linux %s: IC every %d frames, TX timer %d us at HZ %d, RIWT 0x%02x (%.0f us)\n",
		st.Tree, st.TxCoalFrames, st.TxCoalTimerUs, st.HZ, st.RIWT, st.RIWTMicros)
	if st.RXWatchdog == sim.RXWatchdogReload {
		fmt.Fprintf(w, "silicon:  RX watchdog reloaded by every DIC frame; board CPU %.2f us per packet (fitted under that reading)\n", st.CPUPerPacketNs/1000)
	}
	if a, err := LookupAblation(r.Ablation); err == nil && a.Name != "none" {
		fmt.Fprintf(w, "ablation: %s: %s\n", a.Name, a.What)
	}
	switch {
	case d.PCProfile != "" && d.PCProfile != farend.DefaultPCProfile:
		p, _ := farend.LookupPCProfile(d.PCProfile)
		fmt.Fprintf(w, "PC NIC:   %s (--pc %s): %s\n", p.NIC, p.Name, p.Why)
	case d.PCRxModerationUs > 0:
		fmt.Fprintf(w, "PC NIC:   interrupt moderation %.0f us\n", d.PCRxModerationUs)
	}
	if r.WakeTurnaroundUs > 0 {
		fmt.Fprintf(w, "board:    CPU wake turnaround %.0f us (CALIBRATED to the commit's before row; --calibration none: without)\n", r.WakeTurnaroundUs)
	}
	fmt.Fprintf(w, "link:     %s (after %.2f s)\n", d.Link, r.LinkUpSeconds)
	fmt.Fprintf(w, "predicted frame loss (1514 B, random payload): TX %.3g, RX %.3g\n", d.PredictedTX, d.PredictedRX)
	fmt.Fprintf(w, "time:     virtual (one deterministic engine: the same seed gives the same run)\n\n")
}

// writeIperf3Header is the iperf3 command's one line about the machine, on
// the stream of its summary (stderr: stdout is iperf3's own output).
func writeIperf3Header(w io.Writer, r *Report, o Options) {
	d := r.Description
	fmt.Fprintf(w, "mesonemu: board %s (%s), driver %s, phy-mode %s, tx-delay %d ns, seed %d; in-process PC at %v, virtual time\n",
		d.Board, d.SoC, d.Driver, d.PhyMode, d.TxDelayNs, r.Seed, o.PCIP.Addr())
}

func onOff(b bool) string {
	if b {
		return "2 ns (on)"
	}
	return "off"
}

// collectCounters gathers ethtool -S style counters from every stage.
func collectCounters(s *sim.Sim, board, pc *netstack.Host) []Counter {
	st, err := s.Guest.MAC.Stats()
	if err != nil {
		st = nil // the driver could not read them: the MAC's rows are left out
	}
	out := sim.LinkCounters(st, s.Hardware().Path(), s.Hardware().FarEnd().Stats())
	acks := pc.EP.AckStats()
	out = append(out,
		Counter{Where: "pc delayed ack", Name: "acks_superseded", Value: acks.Superseded},
		Counter{Where: "pc delayed ack", Name: "acks_sent_by_timer", Value: acks.Delayed},
		Counter{Where: "pc delayed ack", Name: "acks_held_at_end", Value: acks.HeldAtEnd})
	for _, h := range []*netstack.Host{board, pc} {
		tcp := h.Stack.Stats().TCP
		for _, c := range []struct {
			name string
			v    uint64
		}{
			{"segments_sent", tcp.SegmentsSent.Value()}, {"retransmits", tcp.Retransmits.Value()},
			{"fast_retransmit", tcp.FastRetransmit.Value()}, {"sack_recovery", tcp.SACKRecovery.Value()},
			{"tlp_recovery", tcp.TLPRecovery.Value()}, {"timeouts", tcp.Timeouts.Value()},
			{"spurious_recovery", tcp.SpuriousRecovery.Value()}, {"spurious_rto_recovery", tcp.SpuriousRTORecovery.Value()},
			{"segments_acked_with_dsack", tcp.SegmentsAckedWithDSACK.Value()},
			{"segment_queue_dropped", h.SegmentQueueDrops()},
			{"stack_dropped_packets", h.Stack.Stats().DroppedPackets.Value()},
			{"listen_overflow_ack_drop", tcp.ListenOverflowAckDrop.Value()},
			{"resets_received", tcp.ResetsReceived.Value()},
			{"resets_sent", tcp.ResetsSent.Value()},
			{"tcp_invalid_segments", tcp.InvalidSegmentsReceived.Value()},
			{"tcp_valid_segments", tcp.ValidSegmentsReceived.Value()},
		} {
			out = append(out, Counter{Where: h.Name + " tcp", Name: c.name, Value: c.v})
		}
		st := h.EP.Stats()
		out = append(out,
			Counter{Where: h.Name + " qdisc", Name: "tx_queued", Value: st.TxQueued},
			Counter{Where: h.Name + " qdisc", Name: "tx_dropped_at_close", Value: st.TxDroppedAtClose},
			Counter{Where: h.Name + " qdisc", Name: "tsq_throttled", Value: h.EP.SmallQueueStats().Waits},
			Counter{Where: h.Name + " backlog", Name: "rx_backlog_drops", Value: st.RxBacklogDrops})
	}
	return out
}

// keyCounter names driver counters printed even when zero.

// Commit is one of the real board's measurements in the fix's commit message.
type Commit struct {
	What        string
	Driver      string
	TxDelayNs   uint32
	Mbps        float64
	Retransmits uint64
}

// CommitRuns are the commit's two iperf3 runs on an Odroid-C1 (board -> PC, 10 s,
// phy-mode rgmii, the PHY's delay off): the numbers a run is set beside.
var CommitRuns = []Commit{
	{"before the fix", "pre-fix", 4, 153, 514},
	{"after the fix", "fixed", 2, 778, 0},
}

// basisOf says which of a commit row's numbers a parameter was fitted to
// (soc/board: the wire's skew to the before row's loss ratio, the CPU's
// per-packet cost to the after row, its wake turnaround to the before row's
// throughput) and which the model predicts.
func basisOf(c Commit, r *Report) string {
	if c.Driver == "fixed" {
		return "throughput CALIBRATED (the board CPU's per-packet cost, fitted to this row); 0 retransmits predicted"
	}
	if r.WakeTurnaroundUs > 0 {
		return fmt.Sprintf("throughput CALIBRATED (the board CPU's %.0f us wake turnaround, fitted to this row), "+
			"frame loss CALIBRATED (wire skew); retransmits, K and path RTT predicted; --calibration none: the sourced-only prediction",
			r.WakeTurnaroundUs)
	}
	return "predicted: nothing fitted to this row's throughput (the wire skew is fitted to its loss ratio)"
}

// commitRun is the commit measurement whose configuration this run has, if any:
// the board, driver, delays and traffic of the commit, nothing switched off.
func commitRun(r *Report, o Options) (Commit, bool) {
	d := r.Description
	so := o.Sim
	plain := d.Board == "odroid-c1" && d.PhyMode == "rgmii" && !d.PHYTXDelay && r.Ablation == "none" &&
		!o.Reverse && o.Parallel == 1 && o.CC == "cubic" && so.Speed == 0 && so.FarEnd.RxDelay == 0 && so.FarEnd.RxTimer == 0 &&
		(so.Mechanism == "" || so.Mechanism == "A") && (so.Kernel == "" || so.Kernel == d.Stmmac.Tree) &&
		d.Stmmac.Tree == stmmac.DefaultTree && !o.IPv6
	for _, c := range CommitRuns {
		if plain && d.Driver == c.Driver && d.TxDelayNs == c.TxDelayNs {
			return c, true
		}
	}
	return Commit{}, false
}

// Verdict is the few numbers the summary states, each read from the counter
// (Where, Name) it names, so that the summary cannot contradict the counters.
type Verdict struct {
	Mbps        float64 // iperf3's receiver line (0 when it did not finish)
	Retransmits uint64  // the sender's TCP retransmits counter
	Sender      string  // "board" or "pc"
	// Frames the sender sent and the receiving MAC dropped: for the board
	// sending, its data frames and the PC NIC's rx_crc_errors share of them.
	DataFrames, BadFCS, Align uint64
	LossPercent               float64
}

// verdict reads the summary's numbers.
func verdict(r *Report, o Options) Verdict {
	v := Verdict{Mbps: r.ThroughputBps / 1e6, Sender: "board"}
	if o.Reverse {
		v.Sender = "pc"
	}
	v.Retransmits = r.Counter(v.Sender+" tcp", "retransmits")
	if o.Reverse {
		v.DataFrames = r.Counter("pc nic", "tx_packets")
		v.BadFCS = r.Counter("board eth0 (stmmac)", "rx_crc_errors")
	} else {
		v.DataFrames, v.BadFCS, v.Align = r.DataFramesSent, r.DataFramesLost, r.DataFramesAlignLost
	}
	if v.DataFrames > 0 {
		v.LossPercent = 100 * float64(v.BadFCS+v.Align) / float64(v.DataFrames)
	}
	return v
}

// Counter is the value of one counter of the report (0 when absent).
func (r *Report) Counter(where, name string) uint64 {
	for _, c := range r.Counters {
		if c.Where == where && c.Name == name {
			return c.Value
		}
	}
	return 0
}

// writeSummary ends the text output: the verdict beside the real board's
// numbers where the configuration is the commit's, the counters when asked
// for (or when the run was interrupted), and the time it took.
func writeSummary(w io.Writer, r *Report, o Options) {
	if o.Counters || r.Interrupted {
		writeCounters(w, r)
	}
	v := verdict(r, o)
	fmt.Fprintln(w)
	if r.Interrupted {
		fmt.Fprintf(w, "interrupted at %.2f s of virtual time: iperf3 did not finish; the intervals above and these numbers are what it measured\n", r.VirtualSeconds)
		fmt.Fprintf(w, "verdict:  %d retransmits by the %s's TCP so far\n", v.Retransmits, v.Sender)
	} else {
		fmt.Fprintf(w, "verdict:  %.0f Mbit/s received, %d retransmits by the %s's TCP\n", v.Mbps, v.Retransmits, v.Sender)
	}
	if o.Reverse {
		fmt.Fprintf(w, "          the board's MAC dropped %d frames for a bad FCS (its rx_crc_errors) of the PC's %d\n", v.BadFCS, v.DataFrames)
	} else {
		align := ""
		if v.Align > 0 {
			align = fmt.Sprintf(" and %d for a lost frame start", v.Align)
		}
		fmt.Fprintf(w, "          the PC dropped %d of the board's %d data frames for a bad FCS%s (%.3f %%)\n", v.BadFCS, v.DataFrames, align, v.LossPercent)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "iperf3:   error - %s\n", r.Error)
	}
	writeLinkVerdict(w, r.Verdict)
	if c, ok := commitRun(r, o); ok {
		fmt.Fprintf(w, "real:     Odroid-C1 %s (%s driver, %d ns): %.0f Mbit/s, %d retransmits in 10 s (the commit's iperf3 run)\n",
			c.What, c.Driver, c.TxDelayNs, c.Mbps, c.Retransmits)
		fmt.Fprintf(w, "basis:    %s\n", basisOf(c, r))
	}
	if !o.Counters && !r.Interrupted {
		fmt.Fprintf(w, "counters: --counters lists them (ethtool -S style), --json holds them\n")
	}
	fmt.Fprintf(w, "wall time %.1f s for %.2f s of virtual time (%.2f wall s per virtual s)\n",
		r.WallSeconds, r.VirtualSeconds, r.WallSeconds/max(r.VirtualSeconds, 1e-9))
}

// writeCounters lists every counter and what TCP made of the losses.
func writeCounters(w io.Writer, r *Report) {
	sim.WriteCounters(w, r.Counters)
	fmt.Fprintf(w, "\nTCP: %d of the dropped segments never crossed again (in flight at the end)\n", r.LostNeverResent)
	if r.PathRTTFromTCPInfo {
		fmt.Fprintf(w, "     sender's mean RTT %.0f us (tcp_info; TCP Small Queues off)\n", r.PathSRTTMicros)
	} else if r.PathSRTTMicros > 0 {
		fmt.Fprintf(w, "     sender's path RTT under load %.0f us (link-layer srtt); TCP Small Queues throttled %d times;\n",
			r.PathSRTTMicros, r.TSQThrottled)
		fmt.Fprintf(w, "     %d retransmissions waited for TX completion of their original\n", r.HeldRetransmits)
	}
}
