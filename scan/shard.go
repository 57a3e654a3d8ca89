package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"mesonemu/shard"
)

// A scan's points, the unit a shard runs: a cell of the map without a skew
// sweep, a whole skew column (every TXDLY step and PHY setting at one skew)
// with one. A column holds exactly one cell of the setting iperf3 runs at
// along the sweep, so the costly tests spread evenly over the shards.

// Points is the number of points of the scan r lays out.
func (r *Result) Points() int {
	if r.SkewSwept() {
		return len(r.SkewsPs)
	}
	return len(r.Cells)
}

// pointOf is the point cell i belongs to.
func (r *Result) pointOf(cell int) int {
	if r.SkewSwept() {
		return cell / (2 * MACSteps)
	}
	return cell
}

// Part is one shard's share of a scan: the run's header (the Result without
// its cells and what they say together) and the cells of its points, in
// order. Merge puts the parts of every shard back together.
type Part struct {
	Shard shard.Shard `json:"shard"`
	// Points is the number of points of the whole scan.
	Points int `json:"points"`
	// Run is the header every shard of one scan shares.
	Run Result `json:"run"`
	// Cells are this shard's cells, each with its index in the whole map.
	Cells []PartCell `json:"cells"`
	// Interrupted: ctx ended the shard (Ctrl-C); Cells are the ones it finished
	// (a cell whose iperf3 test was stopped has no iperf3 result).
	Interrupted bool `json:"interrupted,omitempty"`
}

// PartCell is one cell of a shard with its index in Result.Cells.
type PartCell struct {
	Index int `json:"index"`
	Cell
}

// RunPart runs shard sh's points of the scan o describes. When ctx ends it
// returns the cells finished so far, marked Interrupted, with ctx's error.
func RunPart(ctx context.Context, o Options, sh shard.Shard) (*Part, error) {
	o = o.withDefaults()
	skews, err := o.validate()
	if err != nil {
		return nil, err
	}
	if err := sh.Validate(); err != nil || !sh.On() {
		return nil, fmt.Errorf("scan: %w", errors.Join(err, errors.New("RunPart needs a shard")))
	}
	r := newResult(o, skews)
	if err := sh.Fits(r.Points()); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	mine := func(i int) bool { return sh.Has(r.pointOf(i)) }
	ferr := runFrameTests(ctx, r, o, mine)
	if ferr == nil && o.TCP {
		r.TCPSeconds, r.Reverse = o.TCPTime.Seconds(), o.Reverse
		runTCP(ctx, r, o, mine)
		if r.SkewSwept() {
			r.SkewSetting = &o.Setting
		}
	}
	p := &Part{Shard: sh, Points: r.Points(), Cells: []PartCell{}}
	for i, c := range r.Cells {
		if mine(i) && (c.Sent > 0 || c.Error != "") {
			p.Cells = append(p.Cells, PartCell{i, c})
		}
	}
	p.Run = *r
	p.Run.Cells, p.Run.Windows, p.Run.Suggested, p.Run.Skew, p.Run.Unfinished = nil, nil, nil, nil, 0
	if err := ctx.Err(); err != nil {
		p.Interrupted = true
		return p, fmt.Errorf("scan: %w", err)
	}
	return p, cellErrors(r)
}

// Merge puts the parts of every shard of one scan back together: the Result
// the unsharded scan gives, and its cell errors if some failed. It refuses
// missing or repeated shards, shards of different scans and interrupted ones.
func Merge(parts []*Part) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("scan: no shards to merge")
	}
	shards := make([]shard.Shard, len(parts))
	for i, p := range parts {
		if p.Interrupted {
			return nil, fmt.Errorf("scan: shard %s was interrupted: run it again", p.Shard)
		}
		shards[i] = p.Shard
	}
	if err := shard.Complete(shards); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	head, err := json.Marshal(parts[0].Run)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	for _, p := range parts[1:] {
		h, err := json.Marshal(p.Run)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		if !bytes.Equal(h, head) || p.Points != parts[0].Points {
			return nil, fmt.Errorf("scan: shards %s and %s are of different scans", parts[0].Shard, p.Shard)
		}
	}
	r := parts[0].Run
	r.Cells = make([]Cell, r.skewPoints()*2*MACSteps)
	if r.Points() != parts[0].Points {
		return nil, fmt.Errorf("scan: shard %s: %d points, its header lays out %d", parts[0].Shard, parts[0].Points, r.Points())
	}
	if err := place(&r, parts); err != nil {
		return nil, err
	}
	r.conclude()
	return &r, cellErrors(&r)
}

// place puts every part's cells where they belong, each exactly once.
func place(r *Result, parts []*Part) error {
	filled := make([]bool, len(r.Cells))
	for _, p := range parts {
		for _, c := range p.Cells {
			if c.Index < 0 || c.Index >= len(r.Cells) || !p.Shard.Has(r.pointOf(c.Index)) || filled[c.Index] {
				return fmt.Errorf("scan: shard %s: cell %d is not its own or given twice", p.Shard, c.Index)
			}
			r.Cells[c.Index], filled[c.Index] = c.Cell, true
		}
	}
	for i, ok := range filled {
		if !ok {
			return fmt.Errorf("scan: cell %d is in no shard", i)
		}
	}
	return nil
}
