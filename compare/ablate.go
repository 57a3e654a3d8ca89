package compare

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"mesonemu/netstack"
	"mesonemu/perfrun"
)

// AblationRow is one mechanism switched off in one of the commit's two
// configurations, averaged over the seeds.
type AblationRow struct {
	Mechanism         string  `json:"mechanism"` // "none": the model as it is
	What              string  `json:"what"`
	Config            string  `json:"configuration"`
	Driver            string  `json:"driver"`
	TxDelayNs         uint32  `json:"tx_delay_ns"`
	ThroughputBps     float64 `json:"throughput_bps"`
	ThroughputSpread  float64 `json:"throughput_bps_stddev"`
	Retransmits       float64 `json:"retransmits"`
	RetransmitsSpread float64 `json:"retransmits_stddev"`
	PathRTTMicros     float64 `json:"path_rtt_us"`
	// PathRTTFromTCPInfo: TSQ was off, so the RTT is the sender's tcp_info mean.
	PathRTTFromTCPInfo bool    `json:"path_rtt_from_tcp_info,omitempty"`
	MeasuredFrameLoss  float64 `json:"measured_frame_loss"`
	Seeds              int     `json:"seeds"`
	ReportedMbps       float64 `json:"reported_mbps"`
	ReportedRetrans    float64 `json:"reported_retransmits"`
}

// AblationResult is compare --ablate's table.
type AblationResult struct {
	Board       string        `json:"board"`
	RXWatchdog  string        `json:"rx_watchdog,omitempty"`
	DurationSec float64       `json:"duration_seconds"`
	Rows        []AblationRow `json:"rows"`
	// Gap says, for the model as it is, what the commit's "before" row would
	// need to reach the real board's throughput.
	Gap *Gap `json:"before_gap,omitempty"`
	// Unfinished counts the rows left out because a run stopped (Ctrl-C)
	// before all of their seeds were done.
	Unfinished int `json:"unfinished,omitempty"`
	// Interrupted says ctx ended the runs (Ctrl-C).
	Interrupted bool `json:"interrupted,omitempty"`
}

// Gap is what a missing mechanism would have to add for the emulated
// "before" row to come down to the real board's throughput, in either of the
// two currencies TCP pays in.
type Gap struct {
	EmulatedMbps float64 `json:"emulated_mbps"`
	RealMbps     float64 `json:"real_mbps"`
	// ExtraRTTMicros is the path RTT Mathis's rule needs at the measured loss
	// minus the emulated one.
	ExtraRTTMicros float64 `json:"extra_path_rtt_us"`
	// RTOStalls is how many retransmission timeouts of MinRTOMillis (each a
	// lost retransmission) would idle the link for the missing time.
	RTOStalls    float64 `json:"rto_stalls"`
	MinRTOMillis float64 `json:"min_rto_ms"`
}

// ablationConfigs are the commit's "before" and "after" rows.
var ablationConfigs = Configs[:2]

// boardMinRTO is the board's minimum RTO as its TCP is configured.
var boardMinRTO = netstack.LinuxTCP().MinRTO

// Ablate runs the commit's two configurations with each named mechanism off in
// turn (all of perfrun.Ablations when names is empty), and as they are. When a
// run fails or ctx ends it returns the error together with the rows whose seeds
// all finished.
func Ablate(ctx context.Context, o Options, names []string) (*AblationResult, error) {
	o = o.withDefaults()
	mechs, err := ablations(names)
	if err != nil {
		return nil, err
	}
	reps, err := ablateRuns(ctx, o, mechs, func(int) bool { return true })
	res := o.ablationHeader()
	res.rows(o, mechs, reps)
	res.interrupted(ctx)
	return res, err
}

// ablations are the rows' mechanisms: "none" first, then the named ones (all
// of perfrun.Ablations when names is empty).
func ablations(names []string) ([]perfrun.Ablation, error) {
	if len(names) == 0 {
		names = perfrun.AblationNames()
	}
	mechs := []perfrun.Ablation{{Name: "none", What: "the model as it is"}}
	for _, n := range names {
		a, err := perfrun.LookupAblation(n)
		if err != nil {
			return nil, err
		}
		if a.Name != "none" {
			mechs = append(mechs, a)
		}
	}
	return mechs, nil
}

// ablationCell is one row of the ablation table: a mechanism and a configuration.
type ablationCell struct{ mech, cfg int }

// ablationJob is the index of one run among all of them: (mechanism ×
// configurations + configuration) × seeds + seed.
func ablationJob(o Options, c ablationCell, seed int) int {
	return (c.mech*len(ablationConfigs)+c.cfg)*o.Seeds + seed
}

// ablateRuns runs every run mine selects (by ablationJob); a run not done
// stays nil.
func ablateRuns(ctx context.Context, o Options, mechs []perfrun.Ablation, mine func(job int) bool) (map[ablationCell][]*perfrun.Report, error) {
	reps := make(map[ablationCell][]*perfrun.Report)
	done, total := 0, 0
	for mi := range mechs {
		for ci := range ablationConfigs {
			reps[ablationCell{mi, ci}] = make([]*perfrun.Report, o.Seeds)
			for k := range o.Seeds {
				if mine(ablationJob(o, ablationCell{mi, ci}, k)) {
					total++
				}
			}
		}
	}
	var mu sync.Mutex // Progress, Tick, done
	if o.Tick != nil {
		o.Tick(0, total)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Jobs)
	// The fixed driver's runs carry the most frames: start them first.
	for ci := len(ablationConfigs) - 1; ci >= 0; ci-- {
		c := ablationConfigs[ci]
		for mi, m := range mechs {
			for k := range o.Seeds {
				if !mine(ablationJob(o, ablationCell{mi, ci}, k)) {
					continue
				}
				g.Go(func() error {
					po := perfrun.Options{Sim: c.simOptions(o, uint64(k+1)), Duration: o.Duration}
					if m.Name != "none" {
						po.Ablate = m.Name
					}
					rep, err := o.RunTCP(gctx, po)
					if err != nil {
						return fmt.Errorf("compare --ablate %s, %s: %w", m.Name, c.Name, err)
					}
					mu.Lock()
					defer mu.Unlock()
					reps[ablationCell{mi, ci}][k] = rep
					if o.Progress != nil {
						fmt.Fprintf(o.Progress, "  %-14s %-15s seed %d: %6.1f Mbit/s, %d retransmits\n",
							m.Name, c.Name, k+1, rep.ThroughputBps/1e6, rep.Retransmits)
					}
					done++
					if o.Tick != nil {
						o.Tick(done, total)
					}
					return nil
				})
			}
		}
	}
	return reps, g.Wait()
}

// ablationHeader is the ablation table without its rows.
func (o Options) ablationHeader() *AblationResult {
	return &AblationResult{Board: o.Board, RXWatchdog: o.RXWatchdog, DurationSec: o.Duration.Seconds()}
}

// rows summarizes every row whose seeds all finished, and the gap.
func (res *AblationResult) rows(o Options, mechs []perfrun.Ablation, reps map[ablationCell][]*perfrun.Report) {
	for mi, m := range mechs {
		for ci, c := range ablationConfigs {
			if slices.Contains(reps[ablationCell{mi, ci}], nil) {
				res.Unfinished++
				continue
			}
			row := ablationRow(m, c, reps[ablationCell{mi, ci}])
			if mi == 0 && ci == 0 {
				res.Gap = gapOf(row, o.Duration)
			}
			res.Rows = append(res.Rows, row)
		}
	}
}

func ablationRow(m perfrun.Ablation, c Config, reps []*perfrun.Report) AblationRow {
	row := AblationRow{Mechanism: m.Name, What: m.What, Config: c.Name, Driver: c.Driver, TxDelayNs: c.TxDelayNs,
		Seeds: len(reps), ReportedMbps: c.ReportedMbps, ReportedRetrans: c.ReportedRetrans}
	var tput, retr, rtt, loss []float64
	for _, r := range reps {
		tput = append(tput, r.ThroughputBps)
		retr = append(retr, float64(r.Retransmits))
		rtt = append(rtt, r.PathSRTTMicros)
		loss = append(loss, r.MeasuredLoss)
		row.PathRTTFromTCPInfo = row.PathRTTFromTCPInfo || r.PathRTTFromTCPInfo
	}
	row.ThroughputBps, row.ThroughputSpread = meanStd(tput)
	row.Retransmits, row.RetransmitsSpread = meanStd(retr)
	row.PathRTTMicros, _ = meanStd(rtt)
	row.MeasuredFrameLoss, _ = meanStd(loss)
	return row
}

// gapOf is nil when the row already reaches the real board's throughput.
func gapOf(before AblationRow, d time.Duration) *Gap {
	real, emu := before.ReportedMbps, before.ThroughputBps/1e6
	if real <= 0 || emu <= real {
		return nil
	}
	g := &Gap{EmulatedMbps: emu, RealMbps: real, MinRTOMillis: float64(boardMinRTO / time.Millisecond)}
	if rtt := impliedRTT(real*1e6, before.MeasuredFrameLoss); rtt > 0 {
		g.ExtraRTTMicros = float64(rtt)/float64(time.Microsecond) - before.PathRTTMicros
	}
	// Idle time that brings the mean down to real: d·(1 − real/emu).
	g.RTOStalls = d.Seconds() * (1 - real/emu) / boardMinRTO.Seconds()
	return g
}

// WriteAblation prints the ablation table.
func WriteAblation(w io.Writer, r *AblationResult) {
	fmt.Fprintf(w, "%s%s, %.0f s iperf3 per run (virtual time), the commit's two rows with one mechanism off at a time\n\n", r.Board, watchdogNote(r.RXWatchdog), r.DurationSec)
	fmt.Fprintf(w, "%-14s %-16s %17s %9s %13s %9s %9s\n", "mechanism", "configuration", "throughput", "vs none", "retransmits", "path RTT", "loss")
	none := map[string]float64{}
	for _, x := range r.Rows {
		if x.Mechanism == "none" {
			none[x.Config] = x.ThroughputBps
		}
	}
	for _, x := range r.Rows {
		tp := fmt.Sprintf("%.1f Mbit/s", x.ThroughputBps/1e6)
		rt := fmt.Sprintf("%.0f", x.Retransmits)
		if x.Seeds > 1 {
			tp = fmt.Sprintf("%.1f±%.1f", x.ThroughputBps/1e6, x.ThroughputSpread/1e6)
			rt = fmt.Sprintf("%.0f±%.0f", x.Retransmits, x.RetransmitsSpread)
		}
		delta := "-"
		if base := none[x.Config]; x.Mechanism != "none" && base > 0 {
			delta = fmt.Sprintf("%+.0f%%", 100*(x.ThroughputBps/base-1))
		}
		rtt := fmt.Sprintf("%.0f us", x.PathRTTMicros)
		if x.PathRTTFromTCPInfo {
			rtt += "*"
		}
		fmt.Fprintf(w, "%-14s %-16s %17s %9s %13s %9s %8.3f%%\n", x.Mechanism, x.Config, tp, delta, rt, rtt, 100*x.MeasuredFrameLoss)
	}
	if r.Unfinished > 0 {
		fmt.Fprintf(w, "(interrupted: %d of %d rows unfinished, left out)\n", r.Unfinished, r.Unfinished+len(r.Rows))
	}
	fmt.Fprintf(w, "\nreal board: before the fix 153 Mbit/s, 514 retransmits; after 778 Mbit/s, 0 retransmits\n")
	fmt.Fprintf(w, "path RTT = link-layer srtt of the board's data flow (* tcp_info mean RTT: TSQ off); loss = the board's data frames the wire broke\n")
	seen := map[string]bool{}
	for _, x := range r.Rows {
		if x.Mechanism != "none" && !seen[x.Mechanism] {
			seen[x.Mechanism] = true
			fmt.Fprintf(w, "  %-14s %s\n", x.Mechanism, x.What)
		}
	}
	if g := r.Gap; g != nil {
		g.writeText(w, r.DurationSec)
	}
}

// writeText says what the gap would take, in each currency that applies
// (the path RTT only when the model's is shorter than Mathis's rule needs).
func (g *Gap) writeText(w io.Writer, durationSec float64) {
	var ways []string
	if g.ExtraRTTMicros > 0 {
		ways = append(ways, fmt.Sprintf("%.0f us of path RTT under load (Mathis's rule at the measured loss)", g.ExtraRTTMicros))
	}
	timeouts := "timeouts"
	if math.Round(g.RTOStalls) == 1 {
		timeouts = "timeout"
	}
	ways = append(ways, fmt.Sprintf("%.0f retransmission %s of %.0f ms in %.0f s (each a lost retransmission or a lost tail)",
		g.RTOStalls, timeouts, g.MinRTOMillis, durationSec))
	either := ""
	if len(ways) > 1 {
		either = " either"
	}
	fmt.Fprintf(w, "\nbefore the fix, the model gives %.0f Mbit/s where the real board gave %.0f; a missing mechanism would have to add%s\n  %s\n",
		g.EmulatedMbps, g.RealMbps, either, strings.Join(ways, ", or\n  "))
}

// interrupted marks a result whose runs ctx stopped; its rows are a list
// even when none finished.
func (res *AblationResult) interrupted(ctx context.Context) {
	markInterrupted(ctx, &res.Interrupted, &res.Rows)
}
