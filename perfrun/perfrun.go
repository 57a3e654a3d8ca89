// Package perfrun is the main job: boot the board, bring the link up, run iperf3 over it.
// Outside the bus: a runner that assembles machine, stacks and iperf3.
//
// It is mesonemu's main job: boot the emulated board, bring the PHY
// link up, put a gVisor TCP/IP stack on the board's stmmac driver and another on
// the PC at the far end of the cable, and run iperf3 between them in virtual
// time. What iperf3 reports (throughput, retransmits) is whatever the registers,
// the wire and TCP make of it.
package perfrun

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"mesonemu/iperf3"
	"mesonemu/netstack"
	"mesonemu/platform"
	"mesonemu/sim"
)

// Options for one run.
type Options struct {
	Sim      sim.Options
	Duration time.Duration // virtual; default 10 s
	Reverse  bool          // the PC sends, the board receives
	Parallel int
	CC       string       // "cubic" (default) or "reno"
	BoardIP  netip.Prefix // default 198.18.0.2/24
	PCIP     netip.Prefix // default 198.18.0.1/24
	// IPv6 gives both hosts an IPv6 address too (DefaultBoardIP6,
	// DefaultPCIP6). Off, their stacks have no IPv6 and send no IPv6 frame.
	IPv6 bool
	JSON bool
	// Counters prints the ethtool-style counters after the verdict (text
	// output; the JSON report always holds them).
	Counters bool
	// Header starts RunIperf3's stderr with one line naming the board, the
	// driver and the seed (the iperf3 command's).
	Header bool
	Output io.Writer // iperf3's text output and the report; nil discards
	// Taps see every frame as it left the wire (pcap capture).
	Taps []platform.Tap
	// CPUFreq is the board CPU's frequency governor: CPUFreqOff (the clock
	// fixed at the fit's frequency) or CPUFreqOndemand (Linux's ondemand
	// over the board's OPP table); "" is DefaultCPUFreq. docs/model.md.
	CPUFreq string
	// Calibration is CalibrationFitted (every calibrated parameter, the
	// default) or CalibrationNone (none fitted to the commit's before row:
	// its sourced-only prediction); "" is the default.
	Calibration string
	// Ablate names one timing mechanism to switch off (Ablations); "" none.
	Ablate string
}

// The board CPU's governors (Options.CPUFreq).
const (
	CPUFreqOff      = "off"
	CPUFreqOndemand = "ondemand"
	// DefaultCPUFreq: whether cpufreq ran on the commit's board is
	// unconfirmed; docs/model.md gives the evidence for this choice.
	DefaultCPUFreq = CPUFreqOff
)

// The calibrations (Options.Calibration). The CPU's per-packet cost and the
// wire's skew are fitted to the fixed row and the commit's loss ratio, and
// stay in both; CalibrationNone drops what was fitted to the before row (the
// board CPU's wake turnaround, soc/board/cpu.go).
const (
	CalibrationFitted = "fitted"
	CalibrationNone   = "none"
)

// Defaults from the benchmarking ranges: IPv4's (RFC 2544) and IPv6's
// (RFC 5180, 2001:2::/48), the board ::2 and the PC ::1 as in IPv4.
var (
	DefaultBoardIP  = netip.MustParsePrefix("198.18.0.2/24")
	DefaultPCIP     = netip.MustParsePrefix("198.18.0.1/24")
	DefaultBoardIP6 = netip.MustParsePrefix("2001:2::2/64")
	DefaultPCIP6    = netip.MustParsePrefix("2001:2::1/64")
)

// Counter is one named counter of the link report.
type Counter = sim.Counter

// Report is what a run found besides iperf3's own result.
type Report struct {
	sim.Description
	Seed uint64 `json:"seed"`
	// Ablation is the mechanism switched off for this run ("none": none).
	Ablation string `json:"ablation"`
	// CPUFreq is the board CPU's governor; CPUFreqTransitions how many
	// frequency changes (each a transition stall) it made, CPUFreqEndKHz
	// the frequency it ended at (0: no governor).
	CPUFreq            string `json:"cpufreq"`
	CPUFreqTransitions uint64 `json:"cpufreq_transitions"`
	CPUFreqEndKHz      uint32 `json:"cpufreq_end_khz"`
	// Calibration is CalibrationFitted or CalibrationNone; WakeTurnaroundUs
	// the board CPU's wake turnaround the run used (0: none) and BoardWakes
	// how many times a receive interrupt found the core idle and waited it out.
	Calibration      string  `json:"calibration"`
	WakeTurnaroundUs float64 `json:"wake_turnaround_us"`
	BoardWakes       uint64  `json:"board_wakes"`
	LinkUpSeconds    float64 `json:"link_up_virtual_seconds"`
	VirtualSeconds   float64 `json:"virtual_seconds"`
	// WallSeconds is the one host-dependent number of a run.
	WallSeconds    float64 `json:"wall_seconds"`
	Retransmits    uint64  `json:"retransmits"`
	DataFramesSent uint64  `json:"board_data_frames_sent"`
	// DataFramesLost are the board's data frames the PC's MAC dropped for a
	// bad FCS (its rx_crc_errors, less any non-data frame), and
	// DataFramesAlignLost those it dropped for a lost frame start
	// (rx_align_errors). DataFramesChanged counts every data frame the wire
	// changed, a damaged preamble the PC accepts included.
	DataFramesLost      uint64 `json:"board_data_frames_dropped_bad_fcs"`
	DataFramesAlignLost uint64 `json:"board_data_frames_dropped_alignment"`
	DataFramesChanged   uint64 `json:"board_data_frames_changed_on_wire"`
	// MeasuredLoss is the share of the board's data frames the PC's MAC
	// dropped (bad FCS or lost start).
	MeasuredLoss float64 `json:"measured_frame_loss"`
	// LostNeverResent counts dropped data segments that never crossed the wire
	// intact afterwards: in flight when the test ended.
	LostNeverResent uint64 `json:"lost_segments_not_resent"`
	// PathSRTTMicros is the board's data flow's smoothed RTT as TCP Small
	// Queues measures it at the link layer (microsecond resolution), the
	// mean of samples every 10 ms of the test, and PathSRTTEndMicros its
	// value at the end (a flow that switches between a fast and a slow
	// regime ends in either); TSQThrottled is how often that limit made the
	// flow wait for TX completion.
	PathSRTTMicros    float64 `json:"path_srtt_us"`
	PathSRTTEndMicros float64 `json:"path_srtt_end_us"`
	// PathRTTFromTCPInfo: TSQ was off, so PathSRTTMicros is the sender's mean
	// RTT from tcp_info (as iperf3 reports it) instead.
	PathRTTFromTCPInfo bool   `json:"path_rtt_from_tcp_info,omitempty"`
	TSQThrottled       uint64 `json:"tsq_throttled"`
	// HeldRetransmits counts retransmissions that waited because their
	// original was still in the TX ring (Linux's TCPSpuriousRtxHostQueues).
	HeldRetransmits uint64  `json:"retransmits_held_in_host"`
	ThroughputBps   float64 `json:"throughput_bps"`
	// Interrupted: the run was stopped (Ctrl-C) before iperf3 ended; the
	// numbers are what it measured until then.
	Interrupted bool      `json:"interrupted,omitempty"`
	Counters    []Counter `json:"counters"`
	// Error is iperf3's error where the test could not run (a dead link:
	// "unable to connect to server: ...").
	Error   string       `json:"error,omitempty"`
	Verdict *LinkVerdict `json:"verdict"`
	// RealBoard is the commit's measurement on the real board, for the
	// commit's configurations only.
	RealBoard *RealBoard `json:"real_board,omitempty"`
}

// dataFrameMin separates the board's TCP data frames from its ACKs by length:
// an ACK with timestamps is 66 bytes, a data frame with a full MSS 1514 (the
// wire model never changes a frame's length).
const dataFrameMin = 100

// Run performs the whole job and returns iperf3's result with the report.
func Run(ctx context.Context, o Options) (*iperf3.Result, *Report, error) {
	wallStart := time.Now()
	o, err := o.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	out := cmp.Or(o.Output, io.Discard)
	b, err := Start(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	defer b.Close()
	s, board, pc, clock, rep := b.Sim, b.Board, b.PC, b.Clock, b.Report
	if !o.JSON {
		writeHeader(out, rep)
	}
	ln, err := pc.Listen(iperf3.DefaultPort)
	if err != nil {
		return nil, nil, err
	}
	var w io.Writer = out
	if o.JSON {
		w = io.Discard
	}
	var result *iperf3.Result
	var clientErr, serverErr error
	server := b.Go("pc iperf3 -s", func() {
		_, serverErr = iperf3.ServeOne(ctx, ln, iperf3.ServerOptions{Clock: clock, TCPInfo: netstack.TCPInfo,
			Congestion: netstack.Congestion(o.CC), Seed: o.Sim.Seed + 101, Sched: b.Sched})
	})
	client := b.Go("board iperf3 -c", func() {
		result, clientErr = iperf3.Run(ctx, iperf3.ClientOptions{
			Host: o.PCIP.Addr().String(), Seconds: int(o.Duration / time.Second), Parallel: o.Parallel, Reverse: o.Reverse,
			Dial: board.Dial, Clock: clock, TCPInfo: netstack.TCPInfo, Congestion: netstack.Congestion(o.CC),
			Output: w, Seed: o.Sim.Seed + 7, Sched: b.Sched,
		})
	})
	// A cancelled run (Ctrl-C) stops the engine where it is; what it measured
	// so far is still reported, with the counters, and ctx's error returned.
	// The server waits for its test as iperf3 -s does; a client that never
	// reached it (no route to the PC on a dead link) ends the run alone.
	b.sampleSRTT(func() bool { return !client.Done() })
	stopped := b.RunWhile(ctx, func() bool {
		return !client.Done() || (!server.Done() && clientErr == nil)
	})
	if stopped != nil && ctx.Err() == nil {
		return result, rep, stopped
	}
	b.tally()
	rep.Counters = collectCounters(s, board, pc)
	rep.Verdict = classify(rep)
	if stopped == nil {
		if clientErr != nil && !errors.Is(clientErr, context.Canceled) {
			rep.Error = clientErr.Error()
		}
		for _, err := range []error{clientErr, serverErr} {
			// A dead link is a result: iperf3's error is in the report.
			if err != nil && !errors.Is(err, context.Canceled) && rep.Verdict.Class != ClassDead {
				return result, rep, fmt.Errorf("iperf3: %w", err)
			}
		}
	}
	rep.Interrupted = stopped != nil
	if rep.DataFramesSent > 0 {
		rep.MeasuredLoss = float64(rep.DataFramesLost+rep.DataFramesAlignLost) / float64(rep.DataFramesSent)
	}
	rep.fromResult(result)
	if c, ok := commitRun(rep, o); ok {
		rep.RealBoard = &RealBoard{What: c.What, Driver: c.Driver, TxDelayNs: c.TxDelayNs, Mbps: c.Mbps,
			Retransmits: c.Retransmits, Seconds: 10}
	}
	rep.VirtualSeconds = s.Machine().Now().Seconds()
	rep.WallSeconds = time.Since(wallStart).Seconds()
	if !o.JSON {
		writeSummary(out, rep, o)
	}
	return result, rep, stopped
}

// fromResult takes the retransmits, the throughput and (where the stack kept
// none of its own) the path's RTT from iperf3's result; nil leaves them.
func (rep *Report) fromResult(result *iperf3.Result) {
	if result == nil {
		return
	}
	if s := result.End.SumSent; s != nil && s.RetransmitCount != nil && s.RetransmitCount.Retransmits > 0 {
		rep.Retransmits = uint64(s.RetransmitCount.Retransmits)
	}
	if s := result.End.SumReceived; s != nil {
		rep.ThroughputBps = s.BitsPerSecond
	}
	if rep.PathSRTTMicros == 0 && len(result.End.Streams) > 0 {
		if ti := result.End.Streams[0].Sender.SenderTCPInfo; ti != nil && ti.MeanRTT > 0 {
			rep.PathSRTTMicros, rep.PathRTTFromTCPInfo = float64(ti.MeanRTT), true
		}
	}
}

// RunReport is Run for callers that want only the report (compare, scan).
func RunReport(ctx context.Context, o Options) (*Report, error) {
	_, rep, err := Run(ctx, o)
	return rep, err
}

// Validate checks the options as Run will take them (zero values are
// defaults; CheckDuration and CheckParallel refuse a zero too). Its errors
// name each option by the flag that sets it ("--time 1.5s: ..."), as the
// command line, which passes them on, spells it.
func (o Options) Validate() error {
	_, err := o.withDefaults()
	return err
}

// CheckDuration is the length an iperf3 test may have: whole seconds (iperf3's
// -t is an integer) from 1 s to an hour.
func CheckDuration(d time.Duration) error {
	if d < time.Second || d > time.Hour || d%time.Second != 0 {
		return fmt.Errorf("--time %v: want whole seconds from 1s to 1h", d)
	}
	return nil
}

// CheckParallel is how many iperf3 streams a test may have.
func CheckParallel(n int) error {
	if n < 1 || n > 128 {
		return fmt.Errorf("--parallel %d: want 1..128", n)
	}
	return nil
}

// withDefaults fills and checks the options.
func (o Options) withDefaults() (Options, error) {
	if o.Duration == 0 {
		o.Duration = 10 * time.Second
	}
	if err := CheckDuration(o.Duration); err != nil {
		return o, err
	}
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if err := CheckParallel(o.Parallel); err != nil {
		return o, err
	}
	if o.CC == "" {
		o.CC = "cubic"
	}
	if o.CC != "cubic" && o.CC != "reno" {
		return o, fmt.Errorf("--cc %q: want cubic or reno", o.CC)
	}
	if !o.BoardIP.IsValid() {
		o.BoardIP = DefaultBoardIP
	}
	if _, err := LookupAblation(o.Ablate); err != nil {
		return o, err
	}
	if o.CPUFreq == "" {
		o.CPUFreq = DefaultCPUFreq
	}
	if o.CPUFreq != CPUFreqOff && o.CPUFreq != CPUFreqOndemand {
		return o, fmt.Errorf("--cpufreq %q: want %q or %q", o.CPUFreq, CPUFreqOff, CPUFreqOndemand)
	}
	if o.Calibration == "" {
		o.Calibration = CalibrationFitted
	}
	if o.Calibration != CalibrationFitted && o.Calibration != CalibrationNone {
		return o, fmt.Errorf("--calibration %q: want %q or %q", o.Calibration, CalibrationFitted, CalibrationNone)
	}
	if !o.PCIP.IsValid() {
		o.PCIP = DefaultPCIP
	}
	if !o.BoardIP.Addr().Is4() || !o.PCIP.Addr().Is4() {
		return o, fmt.Errorf("--board-ip %v and --pc-ip %v: want IPv4 addresses (IPv6 gives both an IPv6 address besides)", o.BoardIP, o.PCIP)
	}
	if o.BoardIP.Masked() != o.PCIP.Masked() || o.BoardIP.Addr() == o.PCIP.Addr() {
		return o, fmt.Errorf("--board-ip %v and --pc-ip %v must be two addresses in one subnet", o.BoardIP, o.PCIP)
	}
	return o, nil
}
