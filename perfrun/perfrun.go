// Package perfrun is mesonemu's main job: boot the emulated board, bring the PHY
// link up, put a gVisor TCP/IP stack on the board's stmmac driver and another on
// the PC at the far end of the cable, and run iperf3 between them in virtual
// time. What iperf3 reports (throughput, retransmits) is whatever the registers,
// the wire and TCP make of it.
package perfrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"golang.org/x/sync/errgroup"

	"mesonemu/netstack"
	"mesonemu/netstack/iperf3"
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
	// TimeScale is virtual seconds per wall second while the emulator works
	// (idle stretches are skipped); 0 picks AutoTimeScale.
	TimeScale float64
	JSON      bool
	Output    io.Writer // iperf3's text output and the report; nil discards
	// Taps see every frame as it left the wire (pcap capture).
	Taps []platform.Tap
}

// AutoTimeScale is the pace of virtual time against wall time while the
// emulator's goroutines work (emu.RunQuiescent; idle stretches are skipped).
// Whatever host time passes while they work leaks into the emulated timing at
// this rate: at 0.25 the fixed run gave 671-816 Mbit/s from run to run, at
// 0.05 838-856, at 0.01 859.3 twice (5 s runs, 7.75 us per packet). A 10 s
// test takes ~45 s of wall time on a 2-core host.
const AutoTimeScale = 0.01

// Defaults from the benchmarking range (RFC 2544).
var (
	DefaultBoardIP = netip.MustParsePrefix("198.18.0.2/24")
	DefaultPCIP    = netip.MustParsePrefix("198.18.0.1/24")
)

// Counter is one named counter of the link report.
type Counter struct {
	Where string `json:"where"`
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// Report is what a run found besides iperf3's own result.
type Report struct {
	sim.Description
	Seed          uint64  `json:"seed"`
	TimeScale     float64 `json:"time_scale"`
	LinkUpSeconds float64 `json:"link_up_virtual_seconds"`
	WallSeconds   float64 `json:"wall_seconds"`
	// ClockSkippedSeconds is the virtual time the quiescence clock jumped over
	// while every goroutine was blocked (the emulated system's own work is
	// charged there, as events); ClockFlowedSeconds what passed with the wall
	// clock at TimeScale (scale × wall time): the most host time that can have
	// leaked into the emulated timing.
	ClockSkippedSeconds float64 `json:"clock_skipped_virtual_seconds"`
	ClockFlowedSeconds  float64 `json:"clock_flowed_virtual_seconds"`
	Retransmits         uint64  `json:"retransmits"`
	DataFramesSent      uint64  `json:"board_data_frames_sent"`
	DataFramesLost      uint64  `json:"board_data_frames_dropped_bad_fcs"`
	MeasuredLoss        float64 `json:"measured_frame_loss"`
	// LostNeverResent counts dropped data segments that never crossed the wire
	// intact afterwards: in flight when the test ended.
	LostNeverResent uint64 `json:"lost_segments_not_resent"`
	// PathSRTTMicros is the board's data flow's smoothed RTT as TCP Small
	// Queues measures it at the link layer (microsecond resolution), and
	// TSQThrottled how often that limit made the flow wait for TX completion.
	PathSRTTMicros float64 `json:"path_srtt_us"`
	TSQThrottled   uint64  `json:"tsq_throttled"`
	// HeldRetransmits counts retransmissions that waited because their
	// original was still in the TX ring (Linux's TCPSpuriousRtxHostQueues).
	HeldRetransmits uint64    `json:"retransmits_held_in_host"`
	ThroughputBps   float64   `json:"throughput_bps"`
	Counters        []Counter `json:"counters"`
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
	out := o.Output
	if out == nil {
		out = io.Discard
	}
	b, err := Start(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	defer b.Close()
	s, board, pc, clock, rep := b.Sim, b.Board, b.PC, b.Clock, b.Report
	if !o.JSON {
		writeHeader(out, rep)
	}
	runCtx := b.ctx
	ln, err := pc.Listen(iperf3.DefaultPort)
	if err != nil {
		return nil, nil, err
	}
	var result *iperf3.Result
	g, gctx := errgroup.WithContext(runCtx)
	serverReady := make(chan struct{})
	g.Go(func() error {
		close(serverReady)
		_, err := iperf3.ServeOne(gctx, ln, iperf3.ServerOptions{Clock: clock, TCPInfo: netstack.TCPInfo,
			Congestion: netstack.Congestion(o.CC), Seed: o.Sim.Seed + 101})
		return err
	})
	g.Go(func() error {
		<-serverReady
		var err error
		var w io.Writer = out
		if o.JSON {
			w = io.Discard
		}
		result, err = iperf3.Run(gctx, iperf3.ClientOptions{
			Host: o.PCIP.Addr().String(), Seconds: int(o.Duration / time.Second), Parallel: o.Parallel, Reverse: o.Reverse,
			Dial: board.Dial, Clock: clock, TCPInfo: netstack.TCPInfo, Congestion: netstack.Congestion(o.CC),
			Output: w, Seed: o.Sim.Seed + 7,
		})
		return err
	})
	if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		return result, rep, fmt.Errorf("iperf3: %w", err)
	}
	b.tally()
	if rep.DataFramesSent > 0 {
		rep.MeasuredLoss = float64(rep.DataFramesLost) / float64(rep.DataFramesSent)
	}
	if result != nil {
		if rc := result.End.SumSent.RetransmitCount; rc != nil && rc.Retransmits > 0 {
			rep.Retransmits = uint64(rc.Retransmits)
		}
		rep.ThroughputBps = result.End.SumReceived.BitsPerSecond
	}
	rep.Counters = collectCounters(s, board, pc, b.pcNIC)
	rep.WallSeconds = time.Since(wallStart).Seconds()
	if !o.JSON {
		writeCounters(out, rep)
	}
	return result, rep, nil
}

// withDefaults fills and checks the options.
func (o Options) withDefaults() (Options, error) {
	if o.Duration == 0 {
		o.Duration = 10 * time.Second
	}
	if o.Duration < time.Second || o.Duration > time.Hour {
		return o, fmt.Errorf("time %v: want 1s..1h", o.Duration)
	}
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if o.Parallel < 1 || o.Parallel > 128 {
		return o, fmt.Errorf("parallel %d: want 1..128", o.Parallel)
	}
	if o.CC == "" {
		o.CC = "cubic"
	}
	if !o.BoardIP.IsValid() {
		o.BoardIP = DefaultBoardIP
	}
	if !o.PCIP.IsValid() {
		o.PCIP = DefaultPCIP
	}
	if o.BoardIP.Masked() != o.PCIP.Masked() || o.BoardIP.Addr() == o.PCIP.Addr() {
		return o, fmt.Errorf("board %v and PC %v must be different addresses in one subnet", o.BoardIP, o.PCIP)
	}
	if o.TimeScale == 0 {
		o.TimeScale = AutoTimeScale
	}
	if o.TimeScale < 0.001 || o.TimeScale > 1 {
		return o, fmt.Errorf("time scale %g: want 0.001..1 (virtual seconds per wall second)", o.TimeScale)
	}
	return o, nil
}
