package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"mesonemu/perfrun"
	"mesonemu/shard"
	"mesonemu/sim"
)

// A comparison's points, the unit a shard runs, are its runs: one seed of one
// configuration (index configuration × seeds + seed), or with the ablation one
// seed of one mechanism and configuration (index (mechanism × 2 +
// configuration) × seeds + seed). Every run is deterministic and independent
// of the others, so the merged table is the unsharded one.

// TCPRun is what a row takes from one iperf3 run's report.
type TCPRun struct {
	ClockChain         string  `json:"clock_chain"`
	EffectiveTXDelayPs float64 `json:"effective_tx_delay_ps"`
	ThroughputBps      float64 `json:"throughput_bps"`
	Retransmits        uint64  `json:"retransmits"`
	PathSRTTMicros     float64 `json:"path_srtt_us"`
	PathRTTFromTCPInfo bool    `json:"path_rtt_from_tcp_info,omitempty"`
	MeasuredFrameLoss  float64 `json:"measured_frame_loss"`
}

func tcpRunOf(r *perfrun.Report) *TCPRun {
	if r == nil {
		return nil
	}
	return &TCPRun{ClockChain: r.ClockChain, EffectiveTXDelayPs: r.EffectiveTX, ThroughputBps: r.ThroughputBps, Retransmits: r.Retransmits,
		PathSRTTMicros: r.PathSRTTMicros, PathRTTFromTCPInfo: r.PathRTTFromTCPInfo, MeasuredFrameLoss: r.MeasuredLoss}
}

// report is the run as the rows read it.
func (t *TCPRun) report() *perfrun.Report {
	return &perfrun.Report{Description: sim.Description{ClockChain: t.ClockChain, EffectiveTX: t.EffectiveTXDelayPs},
		ThroughputBps: t.ThroughputBps, Retransmits: t.Retransmits, PathSRTTMicros: t.PathSRTTMicros,
		PathRTTFromTCPInfo: t.PathRTTFromTCPInfo, MeasuredLoss: t.MeasuredFrameLoss}
}

// PartRun is one run of a shard: the frame-level test and, on a live link,
// the iperf3 run (nil when the link is dead or the run did not finish).
type PartRun struct {
	Index              int     `json:"index"`
	Config             string  `json:"configuration"`
	Mechanism          string  `json:"mechanism,omitempty"`
	Seed               int     `json:"seed"`
	PredictedFrameLoss float64 `json:"predicted_frame_loss"`
	FrameLoss          float64 `json:"frame_loss"`
	LinkDead           bool    `json:"link_dead,omitempty"`
	TCP                *TCPRun `json:"tcp"`
}

// Part is one shard's share of compare (Table set) or compare --ablate
// (Ablation set): the header every shard of the run shares and the runs of
// its points, in order.
type Part struct {
	Shard  shard.Shard `json:"shard"`
	Points int         `json:"points"`
	Seeds  int         `json:"seeds"`
	Table  *Result     `json:"table,omitempty"`
	// Ablation's Rows hold the mechanisms, in order, with no numbers.
	Ablation *AblationResult `json:"ablation,omitempty"`
	Runs     []PartRun       `json:"runs"`
	// Interrupted: ctx ended the shard (Ctrl-C); Runs are those it finished.
	Interrupted bool `json:"interrupted,omitempty"`
}

// RunPart runs shard sh's points of the comparison. When ctx ends it returns
// the runs finished so far, marked Interrupted, with the error.
func RunPart(ctx context.Context, o Options, sh shard.Shard) (*Part, error) {
	o = o.withDefaults()
	n := len(Configs) * o.Seeds
	if err := checkShard(sh, n); err != nil {
		return nil, err
	}
	runs, _, err := measure(ctx, o, func(j int) bool { return sh.Has(j) })
	p := &Part{Shard: sh, Points: n, Seeds: o.Seeds, Table: o.header(), Runs: []PartRun{}}
	p.Table.Rows = []Row{}
	for i, c := range Configs {
		for k, r := range runs[i] {
			if !sh.Has(i*o.Seeds+k) || !r.dead && r.rep == nil {
				continue
			}
			p.Runs = append(p.Runs, PartRun{Index: i*o.Seeds + k, Config: c.Name, Seed: k + 1,
				PredictedFrameLoss: r.predicted, FrameLoss: r.frameLoss, LinkDead: r.dead, TCP: tcpRunOf(r.rep)})
		}
	}
	p.Interrupted = ctx.Err() != nil
	return p, err
}

// RunAblationPart is RunPart for Ablate.
func RunAblationPart(ctx context.Context, o Options, names []string, sh shard.Shard) (*Part, error) {
	o = o.withDefaults()
	mechs, err := ablations(names)
	if err != nil {
		return nil, err
	}
	n := len(mechs) * len(ablationConfigs) * o.Seeds
	if err := checkShard(sh, n); err != nil {
		return nil, err
	}
	reps, err := ablateRuns(ctx, o, mechs, func(j int) bool { return sh.Has(j) })
	p := &Part{Shard: sh, Points: n, Seeds: o.Seeds, Ablation: o.ablationHeader(), Runs: []PartRun{}}
	for _, m := range mechs {
		p.Ablation.Rows = append(p.Ablation.Rows, AblationRow{Mechanism: m.Name})
	}
	for mi, m := range mechs {
		for ci, c := range ablationConfigs {
			for k, rep := range reps[ablationCell{mi, ci}] {
				if j := ablationJob(o, ablationCell{mi, ci}, k); rep != nil {
					p.Runs = append(p.Runs, PartRun{Index: j, Config: c.Name, Mechanism: m.Name, Seed: k + 1, TCP: tcpRunOf(rep)})
				}
			}
		}
	}
	p.Interrupted = ctx.Err() != nil
	return p, err
}

func checkShard(sh shard.Shard, points int) error {
	if err := sh.Validate(); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if !sh.On() {
		return errors.New("compare: a part needs a shard")
	}
	if err := sh.Fits(points); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}

// MergeParts checks that parts are every shard of one run, none interrupted,
// and returns the runs by point index.
func mergeParts(parts []*Part) ([]PartRun, error) {
	if len(parts) == 0 {
		return nil, errors.New("compare: no shards to merge")
	}
	shards := make([]shard.Shard, len(parts))
	for i, p := range parts {
		if p.Interrupted {
			return nil, fmt.Errorf("compare: shard %s was interrupted: run it again", p.Shard)
		}
		shards[i] = p.Shard
	}
	if err := shard.Complete(shards); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	head, err := json.Marshal(Part{Points: parts[0].Points, Seeds: parts[0].Seeds, Table: parts[0].Table, Ablation: parts[0].Ablation})
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	byIndex := make([]PartRun, parts[0].Points)
	filled := make([]bool, len(byIndex))
	for _, p := range parts {
		h, err := json.Marshal(Part{Points: p.Points, Seeds: p.Seeds, Table: p.Table, Ablation: p.Ablation})
		if err != nil || !bytes.Equal(h, head) {
			return nil, fmt.Errorf("compare: shards %s and %s are of different runs", parts[0].Shard, p.Shard)
		}
		for _, r := range p.Runs {
			if r.Index < 0 || r.Index >= len(byIndex) || !p.Shard.Has(r.Index) || filled[r.Index] {
				return nil, fmt.Errorf("compare: shard %s: run %d is not its own or given twice", p.Shard, r.Index)
			}
			byIndex[r.Index], filled[r.Index] = r, true
		}
	}
	for i, ok := range filled {
		if !ok {
			return nil, fmt.Errorf("compare: run %d is in no shard", i)
		}
	}
	return byIndex, nil
}

// options are the comparison's options as far as its rows read them (the
// run's length is whole seconds).
func (p *Part) options(board, watchdog string, seconds float64) Options {
	o := Options{Board: board, RXWatchdog: watchdog, Seeds: p.Seeds, Duration: time.Duration(math.Round(seconds)) * time.Second}
	return o.withDefaults()
}

// Merge puts the shards of one comparison back together: the table the
// unsharded run gives.
func Merge(parts []*Part) (*Result, error) {
	runs, err := mergeParts(parts)
	if err != nil {
		return nil, err
	}
	h := parts[0].Table
	if h == nil {
		return nil, errors.New("compare: the shards are of compare --ablate: merge them as such")
	}
	o := parts[0].options(h.Board, h.RXWatchdog, h.DurationSec)
	if len(runs) != len(Configs)*o.Seeds {
		return nil, fmt.Errorf("compare: %d runs, want %d", len(runs), len(Configs)*o.Seeds)
	}
	byCfg := make([][]seedRun, len(Configs))
	for i := range byCfg {
		byCfg[i] = make([]seedRun, o.Seeds)
		for k := range byCfg[i] {
			r := runs[i*o.Seeds+k]
			byCfg[i][k] = seedRun{predicted: r.PredictedFrameLoss, frameLoss: r.FrameLoss, dead: r.LinkDead}
			if r.TCP != nil {
				byCfg[i][k].rep = r.TCP.report()
			}
		}
	}
	res := *h // the header as the shards made it: every field a run sets
	res.Rows, res.Unfinished, res.Interrupted = nil, 0, false
	res.rows(o, byCfg)
	return &res, nil
}

// MergeAblation is Merge for compare --ablate.
func MergeAblation(parts []*Part) (*AblationResult, error) {
	runs, err := mergeParts(parts)
	if err != nil {
		return nil, err
	}
	h := parts[0].Ablation
	if h == nil {
		return nil, errors.New("compare: the shards are of compare without --ablate: merge them as such")
	}
	o := parts[0].options(h.Board, h.RXWatchdog, h.DurationSec)
	var mechs []perfrun.Ablation
	for i, r := range h.Rows {
		m, err := perfrun.LookupAblation(r.Mechanism)
		if i == 0 {
			m, err = perfrun.Ablation{Name: "none", What: "the model as it is"}, nil
		}
		if err != nil || (i == 0) != (r.Mechanism == "none") {
			return nil, fmt.Errorf("compare: the shards' mechanism %q: %w", r.Mechanism, errors.Join(err, errors.New("not an ablation's row")))
		}
		mechs = append(mechs, m)
	}
	if len(mechs)*len(ablationConfigs)*o.Seeds != len(runs) {
		return nil, fmt.Errorf("compare: %d runs, want %d", len(runs), len(mechs)*len(ablationConfigs)*o.Seeds)
	}
	reps := make(map[ablationCell][]*perfrun.Report)
	for mi := range mechs {
		for ci := range ablationConfigs {
			c := ablationCell{mi, ci}
			reps[c] = make([]*perfrun.Report, o.Seeds)
			for k := range o.Seeds {
				if t := runs[ablationJob(o, c, k)].TCP; t != nil {
					reps[c][k] = t.report()
				}
			}
		}
	}
	res := *h
	res.Rows, res.Gap, res.Unfinished, res.Interrupted = nil, nil, 0, false
	res.rows(o, mechs, reps)
	return &res, nil
}
