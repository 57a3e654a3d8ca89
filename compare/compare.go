// Package compare runs the fix's outcome matrix and sets it beside the real board's numbers.
// Outside the bus: a runner that boots whole machines through sim and perfrun.
//
// It runs the configurations of the fix's outcome matrix side by side
// — the commit's "before" (pre-fix driver, 4 ns) and "after" (fixed driver, 2 ns),
// and for context the other reported rows — and sets the emulator's numbers next
// to what was measured on the real Odroid-C1.
package compare

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"mesonemu/linktest"
	"mesonemu/perfrun"
	"mesonemu/sim"
)

// Config is one row of the outcome matrix.
type Config struct {
	Name       string
	Driver     string
	TxDelayNs  uint32
	PhyMode    string
	PHYTXDelay bool // force the PHY's TX delay on after boot (phytool)
	// Reported is what the commit and its thread said about the real board.
	Reported        string
	ReportedMbps    float64 // 0: not given
	ReportedRetrans float64 // -1: not given
	// Calibration is the run's perfrun.Options.Calibration ("": fitted).
	Calibration string
	// Basis says whether a parameter was fitted to this row's reported
	// numbers (BasisCalibrated) or not (BasisPredicted).
	Basis string
}

// The bases of a row's numbers (Config.Basis).
const (
	BasisCalibrated = "calibrated"
	BasisPredicted  = "predicted"
)

// Configs are the rows of docs/reference/meson8b-ethernet.md §10, the commit's two first.
// The before row's throughput is fitted by the board CPU's wake turnaround,
// the after row's by its per-packet cost; the last row is the before row
// without the turnaround, its sourced-only prediction.
var Configs = []Config{
	{"before the fix", "pre-fix", 4, "rgmii", false, "153 Mbit/s, 514 retransmits in 10 s", 153, 514, "", BasisCalibrated},
	{"after the fix", "fixed", 2, "rgmii", false, "778 Mbit/s, 0 retransmits", 778, 0, "", BasisCalibrated},
	{"pre-fix, 2 ns", "pre-fix", 2, "rgmii", false, "100% packet loss, even DHCP failed", 0, -1, "", BasisPredicted},
	{"fixed, 4 ns", "fixed", 4, "rgmii", false, "\"still packet loss\"", 0, -1, "", BasisPredicted},
	{"PHY delay only", "fixed", 2, "rgmii-txid", false, "\"working fine\"", 0, -1, "", BasisPredicted},
	{"MAC 2 ns + PHY", "fixed", 2, "rgmii", true, "not reported", 0, -1, "", BasisPredicted},
	{"before, sourced", "pre-fix", 4, "rgmii", false, "153 Mbit/s, 514 retransmits in 10 s", 153, 514, perfrun.CalibrationNone, BasisPredicted},
}

// Row is one configuration's result, averaged over the seeds.
type Row struct {
	Name               string  `json:"name"`
	Driver             string  `json:"driver"`
	TxDelayNs          uint32  `json:"tx_delay_ns"`
	PhyMode            string  `json:"phy_mode"`
	PHYTXDelay         bool    `json:"phy_tx_delay"`
	ClockChain         string  `json:"clock_chain"`
	EffectiveTXDelayPs float64 `json:"effective_tx_delay_ps"`
	PredictedFrameLoss float64 `json:"predicted_frame_loss"`
	MeasuredFrameLoss  float64 `json:"measured_frame_loss"`
	ThroughputBps      float64 `json:"throughput_bps"`
	ThroughputSpread   float64 `json:"throughput_bps_stddev"`
	Retransmits        float64 `json:"retransmits"`
	RetransmitsSpread  float64 `json:"retransmits_stddev"`
	// PathRTTMicros is the board's data flow's round trip under load (link-layer
	// srtt, as perfrun reports it), mean over the seeds.
	PathRTTMicros float64 `json:"path_rtt_us"`
	// ImpliedRTTMicros is the round trip at which Mathis's rule gives the real
	// board's throughput at this row's measured loss (0: no real throughput or no
	// loss): what the emulated path would need to reproduce the real number.
	ImpliedRTTMicros float64 `json:"implied_rtt_us,omitempty"`
	// Basis is BasisCalibrated when a parameter was fitted to this row's
	// reported numbers, else BasisPredicted; Calibration the run's
	// (perfrun.CalibrationFitted or CalibrationNone).
	Basis       string `json:"basis"`
	Calibration string `json:"calibration"`
	// LinkDead: frames do not get through (measured loss above 50 %), so TCP
	// cannot connect and no iperf3 test runs.
	LinkDead        bool    `json:"link_dead"`
	Seeds           int     `json:"seeds"`
	Reported        string  `json:"reported"`
	ReportedMbps    float64 `json:"reported_mbps,omitempty"`
	ReportedRetrans float64 `json:"reported_retransmits,omitempty"`
}

// Options for a comparison.
type Options struct {
	Board string
	// RXWatchdog is the MAC's RX watchdog reading (sim.Options.RXWatchdog; ""
	// the board's).
	RXWatchdog string
	Duration   time.Duration // virtual, per iperf3 run
	Seeds      int
	// Frames for the frame-level loss measurement of each row.
	Frames int
	// Jobs is how many runs go at once (default: the number of cores). Every
	// run is deterministic, so the result does not depend on it.
	Jobs     int
	Progress io.Writer // one line per finished run, in the order they finish; nil: none
	// Tick, if set, hears how many of the iperf3 runs are done, after each one
	// (and once with 0 before the first); it is called one at a time.
	Tick func(done, total int)
	// RunTCP runs one configuration's iperf3 test; nil: perfrun.Run in this
	// process. The command passes one that runs it in a child process of one
	// thread, where the engine is cheapest.
	RunTCP func(ctx context.Context, o perfrun.Options) (*perfrun.Report, error)
}

// Result is the whole table.
type Result struct {
	Board       string  `json:"board"`
	RXWatchdog  string  `json:"rx_watchdog,omitempty"`
	DurationSec float64 `json:"duration_seconds"`
	Rows        []Row   `json:"rows"`
	// Unfinished counts the configurations left out because a run stopped
	// (Ctrl-C) before all of their seeds were done.
	Unfinished int `json:"unfinished,omitempty"`
	// Interrupted says ctx ended the runs (Ctrl-C): the rows are those that
	// finished before.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Run measures every configuration. When a run fails or ctx ends it returns
// the error together with the rows whose seeds all finished.
func Run(ctx context.Context, o Options) (*Result, error) {
	o = o.withDefaults()
	runs, framesDone, err := measure(ctx, o, func(int) bool { return true })
	res := o.header()
	if !framesDone {
		res.Unfinished = len(Configs)
	} else {
		res.rows(o, runs)
	}
	res.interrupted(ctx)
	return res, err
}

// header is the table without its rows.
func (o Options) header() *Result {
	return &Result{Board: o.Board, RXWatchdog: o.RXWatchdog, DurationSec: o.Duration.Seconds()}
}

// rows summarizes every configuration whose seeds all finished.
func (res *Result) rows(o Options, runs [][]seedRun) {
	for i, c := range Configs {
		if !finished(runs[i]) {
			res.Unfinished++
			continue
		}
		res.Rows = append(res.Rows, summarize(o, c, runs[i]))
	}
}

// measure runs the seeds of every configuration that mine selects (by job
// index, configuration × seeds + seed) into runs[configuration][seed];
// framesDone says the frame-level tests all finished.
func measure(ctx context.Context, o Options, mine func(job int) bool) (runs [][]seedRun, framesDone bool, err error) {
	runs = make([][]seedRun, len(Configs))
	for i := range runs {
		runs[i] = make([]seedRun, o.Seeds)
	}
	// The frame-level tests first: they are quick and tell which links are
	// dead. Then the TCP runs, cleanest link first: a clean link carries the
	// most frames and takes the longest, and starting it early keeps the jobs
	// busy to the end. The order of work never reaches the output.
	var jobs []job
	for i := range Configs {
		for k := range o.Seeds {
			if mine(i*o.Seeds + k) {
				jobs = append(jobs, job{i, k})
			}
		}
	}
	if err := frameTests(ctx, o, jobs, runs); err != nil {
		return runs, false, err
	}
	var live []job
	for _, j := range jobs {
		if !runs[j.cfg][j.seed].dead {
			live = append(live, j)
		}
	}
	sort.SliceStable(live, func(a, b int) bool {
		return runs[live[a].cfg][live[a].seed].frameLoss < runs[live[b].cfg][live[b].seed].frameLoss
	})
	return runs, true, tcpTests(ctx, o, live, runs)
}

// interrupted marks a result whose runs ctx stopped; its rows are a list
// even when none finished.
func (res *Result) interrupted(ctx context.Context) {
	markInterrupted(ctx, &res.Interrupted, &res.Rows)
}

// markInterrupted sets *flag when ctx has ended, and makes *rows an empty
// list rather than null in the JSON.
func markInterrupted[R any](ctx context.Context, flag *bool, rows *[]R) {
	if ctx.Err() == nil {
		return
	}
	*flag = true
	if *rows == nil {
		*rows = []R{}
	}
}

// job is one seed of one configuration (indices into Configs and the seeds).
type job struct{ cfg, seed int }

// frameTests runs the frame-level test of every job into runs.
func frameTests(ctx context.Context, o Options, jobs []job, runs [][]seedRun) error {
	g, _ := errgroup.WithContext(ctx)
	g.SetLimit(o.Jobs)
	for _, j := range jobs {
		g.Go(func() error {
			r, err := frameTest(o, Configs[j.cfg], uint64(j.seed+1))
			if err != nil {
				return fmt.Errorf("compare %s: %w", Configs[j.cfg].Name, err)
			}
			runs[j.cfg][j.seed] = r
			return nil
		})
	}
	return g.Wait()
}

// tcpTests runs the iperf3 test of every live job into runs, in the order
// given, reporting each to o.Progress and o.Tick as it ends.
func tcpTests(ctx context.Context, o Options, live []job, runs [][]seedRun) error {
	var mu sync.Mutex // Progress, Tick, done
	done := 0
	if o.Tick != nil {
		o.Tick(0, len(live))
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Jobs)
	for _, j := range live {
		c, r := Configs[j.cfg], &runs[j.cfg][j.seed]
		g.Go(func() error {
			var err error
			r.rep, err = o.RunTCP(gctx, perfrun.Options{Sim: c.simOptions(o, uint64(j.seed+1)), Duration: o.Duration,
				Calibration: c.Calibration})
			if err != nil {
				return fmt.Errorf("compare %s: %w", c.Name, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "  %-16s seed %d: %6.1f Mbit/s, %d retransmits, %.3f %% of data frames lost\n",
					c.Name, j.seed+1, r.rep.ThroughputBps/1e6, r.rep.Retransmits, 100*r.rep.MeasuredLoss)
			}
			done++
			if o.Tick != nil {
				o.Tick(done, len(live))
			}
			return nil
		})
	}
	return g.Wait()
}

// finished: every seed's run of a configuration is done (or its link dead).
func finished(runs []seedRun) bool {
	for _, r := range runs {
		if !r.dead && r.rep == nil {
			return false
		}
	}
	return true
}

func (o Options) withDefaults() Options {
	if o.Seeds < 1 {
		o.Seeds = 1
	}
	if o.Duration == 0 {
		o.Duration = 10 * time.Second
	}
	if o.Frames == 0 {
		o.Frames = 20000
	}
	if o.Jobs < 1 {
		o.Jobs = runtime.NumCPU()
	}
	if o.RunTCP == nil {
		o.RunTCP = perfrun.RunReport
	}
	return o
}

// seedRun is one configuration with one seed: the frame-level test, then, on a
// live link, the iperf3 run.
type seedRun struct {
	predicted, frameLoss float64
	dead                 bool
	rep                  *perfrun.Report
}

func (c Config) simOptions(o Options, seed uint64) sim.Options {
	d := c.TxDelayNs
	so := sim.Options{Board: o.Board, Driver: c.Driver, TxDelayNs: &d, PhyMode: c.PhyMode, Seed: seed, RXWatchdog: o.RXWatchdog}
	if c.PHYTXDelay {
		on := true
		so.PHYTXDelay = &on
	}
	return so
}

// frameTest is a configuration's frame-level test with one seed.
func frameTest(o Options, c Config, seed uint64) (seedRun, error) {
	// One seed's frame test is short: compare checks its context between them.
	lt, err := linktest.Run(context.Background(), c.simOptions(o, seed), linktest.Options{Frames: o.Frames, Direction: linktest.DirectionTX})
	if err != nil {
		return seedRun{}, err
	}
	return seedRun{predicted: lt.TX.PredictedLoss, frameLoss: lt.TX.MeasuredLoss, dead: lt.TX.MeasuredLoss > 0.5}, nil
}

// summarize turns a configuration's runs (in seed order) into its row.
func summarize(o Options, c Config, runs []seedRun) Row {
	row := Row{Name: c.Name, Driver: c.Driver, TxDelayNs: c.TxDelayNs, PhyMode: c.PhyMode, PHYTXDelay: c.PHYTXDelay,
		Seeds: o.Seeds, Reported: c.Reported, ReportedMbps: c.ReportedMbps, ReportedRetrans: c.ReportedRetrans,
		Basis: c.Basis, Calibration: cmp.Or(c.Calibration, perfrun.CalibrationFitted)}
	var tput, retr, loss, rtt []float64
	for _, r := range runs {
		row.PredictedFrameLoss = r.predicted
		if r.dead {
			row.LinkDead = true
			loss = append(loss, r.frameLoss)
			tput = append(tput, 0)
			continue
		}
		row.ClockChain, row.EffectiveTXDelayPs = r.rep.ClockChain, r.rep.EffectiveTX
		tput = append(tput, r.rep.ThroughputBps)
		retr = append(retr, float64(r.rep.Retransmits))
		rtt = append(rtt, r.rep.PathSRTTMicros)
		loss = append(loss, r.rep.MeasuredLoss)
	}
	if row.ClockChain == "" {
		if s, err := sim.New(c.simOptions(o, 0)); err == nil {
			if desc, err := s.Describe(); err == nil {
				row.ClockChain, row.EffectiveTXDelayPs = desc.ClockChain, desc.EffectiveTX
			}
		}
	}
	row.ThroughputBps, row.ThroughputSpread = meanStd(tput)
	row.Retransmits, row.RetransmitsSpread = meanStd(retr)
	row.MeasuredFrameLoss, _ = meanStd(loss)
	row.PathRTTMicros, _ = meanStd(rtt)
	if !row.LinkDead && row.ReportedMbps > 0 {
		row.ImpliedRTTMicros = impliedRTT(row.ReportedMbps*1e6, row.MeasuredFrameLoss).Seconds() * 1e6
	}
	return row
}

// Mathis et al.'s rule, BW = MSS/RTT × C/√p, as docs/reference/rgmii-timing.md §8.2 applies it:
// MSS 1448 bytes (1500 MTU with TCP timestamps) and C = √(3/2), since Linux
// counts ACKed bytes and delayed ACKs do not halve its window growth.
const mathisMSSBytes = 1448

var mathisC = math.Sqrt(1.5)

// impliedRTT is the round trip at which the rule gives throughput bps at frame
// loss p (0 when p is not a loss rate).
func impliedRTT(bps, p float64) time.Duration {
	if p <= 0 || p >= 1 || bps <= 0 {
		return 0
	}
	return time.Duration(mathisMSSBytes * 8 * mathisC / (bps * math.Sqrt(p)) * float64(time.Second))
}

func meanStd(x []float64) (mean, sd float64) {
	if len(x) == 0 {
		return 0, 0
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// WriteTable prints the comparison: the emulator's numbers, then beside each
// row what the commit and its thread reported of the real board.
func WriteTable(w io.Writer, r *Result) {
	fmt.Fprintf(w, "%s%s, %.0f s iperf3 per run (virtual time)\n\n", r.Board, watchdogNote(r.RXWatchdog), r.DurationSec)
	fmt.Fprintf(w, "%-16s %-8s %-5s %-10s %-5s %9s %10s %10s %17s %13s %9s  %s\n",
		"configuration", "driver", "delay", "phy-mode", "PHY", "MAC ps", "predicted", "measured", "throughput", "retransmits", "path RTT", "basis")
	for _, x := range r.Rows {
		phy := "off"
		if x.PHYTXDelay || x.PhyMode == "rgmii-txid" || x.PhyMode == "rgmii-id" {
			phy = "on"
		}
		tp := fmt.Sprintf("%.1f Mbit/s", x.ThroughputBps/1e6)
		rt := fmt.Sprintf("%.0f", x.Retransmits)
		if x.Seeds > 1 && !x.LinkDead {
			tp = fmt.Sprintf("%.1f±%.1f", x.ThroughputBps/1e6, x.ThroughputSpread/1e6)
			rt = fmt.Sprintf("%.0f±%.0f", x.Retransmits, x.RetransmitsSpread)
		}
		pr := fmt.Sprintf("%.0f us", x.PathRTTMicros)
		if x.LinkDead {
			tp, rt, pr = "link dead", "-", "-"
		}
		fmt.Fprintf(w, "%-16s %-8s %2d ns %-10s %-5s %9.0f %10.3g %9.3f%% %17s %13s %9s  %s\n",
			x.Name, x.Driver, x.TxDelayNs, x.PhyMode, phy, x.EffectiveTXDelayPs, x.PredictedFrameLoss, 100*x.MeasuredFrameLoss, tp, rt, pr, x.Basis)
	}
	if r.Unfinished > 0 {
		fmt.Fprintf(w, "(interrupted: %d of %d configurations unfinished, left out)\n", r.Unfinished, r.Unfinished+len(r.Rows))
	}
	fmt.Fprintf(w, "\nthe real board (the commit and its thread):\n")
	for _, x := range r.Rows {
		fmt.Fprintf(w, "  %-16s %s%s\n", x.Name, x.Reported, ratio(x))
	}
	fmt.Fprintf(w, "\nmeasured = frame loss of the board's data frames (TCP runs) or of 1514-byte test frames (dead links)\n")
	fmt.Fprintf(w, "path RTT = the board's data flow's round trip under load (link-layer srtt, mean over the test)\n")
	fmt.Fprintf(w, "basis = calibrated: a parameter was fitted to the row's real numbers (before: the board CPU's wake\n")
	fmt.Fprintf(w, "  turnaround; after: its per-packet cost); predicted: none was. \"before, sourced\" is the before row\n")
	fmt.Fprintf(w, "  with nothing fitted to it (run --calibration none): the sourced-only prediction\n")
	for _, x := range r.Rows {
		if x.ImpliedRTTMicros > 0 {
			fmt.Fprintf(w, "%s: at the measured loss the real %.0f Mbit/s need a round trip of %.0f us\n  by Mathis's rule (C = %.2f, MSS %d); the emulated path has %.0f us\n",
				x.Name, x.ReportedMbps, x.ImpliedRTTMicros, mathisC, mathisMSSBytes, x.PathRTTMicros)
		}
	}
}

func ratio(x Row) string {
	if x.ReportedMbps == 0 || x.LinkDead {
		return ""
	}
	return fmt.Sprintf(" (emulated/real throughput %.2f)", x.ThroughputBps/1e6/x.ReportedMbps)
}

// watchdogNote names the RX watchdog's reading in a table's title when the
// user chose one.
func watchdogNote(reading string) string {
	if reading == "" {
		return ""
	}
	return ", RX watchdog read as " + reading
}
