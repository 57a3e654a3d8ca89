package scan

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"mesonemu/linktest"
	"mesonemu/perfrun"
	"mesonemu/platform"
	"mesonemu/sim"
)

// Run sweeps every cell on a pool of o.Workers goroutines, each cell with its own
// emulated board, then finds the windows and the suggestion. Every cell uses the
// same seed, so a cell's outcome does not depend on which worker ran it or when.
// A cell that cannot be run is kept with its Error set; Run then returns the
// result together with the joined cell errors. It stops early when ctx is
// cancelled: during the frame tests with no result, during the iperf3 tests
// with the result so far (cells whose test did not finish have no TCPResult)
// and ctx's error.
func Run(ctx context.Context, o Options) (*Result, error) {
	o = o.withDefaults()
	skews, err := o.validate()
	if err != nil {
		return nil, err
	}
	r := newResult(o, skews)
	if err := runFrameTests(ctx, r, o, all); err != nil {
		return nil, err
	}
	if o.TCP {
		r.TCPSeconds, r.Reverse = o.TCPTime.Seconds(), o.Reverse
		r.Unfinished = runTCP(ctx, r, o, all)
		if r.SkewSwept() {
			r.SkewSetting = &o.Setting
		}
	}
	r.conclude()
	if err := ctx.Err(); err != nil && o.TCP {
		r.Interrupted = true
		return r, errors.Join(fmt.Errorf("scan: %w", err), cellErrors(r))
	}
	return r, cellErrors(r)
}

// conclude derives what the cells say together: the iperf3 sweep along the
// skew, the windows and the suggestion.
func (r *Result) conclude() {
	if r.SkewSetting != nil {
		r.Skew = skewPoints(r, *r.SkewSetting)
	}
	r.Windows = windows(r)
	r.Suggested = suggest(r)
}

// newResult lays out the map's cells, one per MAC step, PHY delay and skew.
func newResult(o Options, skews []float64) *Result {
	b, _ := o.Sim.Validate() // checked by validate
	mech := o.Sim.Mechanism
	if mech == "" {
		mech = platform.MechanismA
	}
	boardSkew := b.TX.BoardSkewPs
	if mech == platform.MechanismB {
		boardSkew = b.TXMechanismB.BoardSkewPs
	}
	r := &Result{Board: b.Name, Driver: o.Sim.Driver, Mechanism: string(mech), Frames: o.Frames,
		Size: o.Size, Payload: o.Payload, Seed: o.Sim.Seed, BoardSkewPs: boardSkew, SkewsPs: skews}
	r.Cells = make([]Cell, r.skewPoints()*2*MACSteps)
	for s := range r.skewPoints() {
		skew := boardSkew
		if len(skews) > 0 {
			skew = skews[s]
		}
		for _, phy := range []bool{false, true} {
			for mac := range MACSteps {
				*r.Cell(mac, phy, s) = Cell{MACTxDelaySteps: mac, TxDelayNs: uint32(2 * mac), PHYTxDelay: phy, TXSkewPs: skew}
			}
		}
	}
	return r
}

// all selects every cell.
func all(int) bool { return true }

// runFrameTests runs the quick TX test of every cell mine selects on
// o.Workers workers.
func runFrameTests(ctx context.Context, r *Result, o Options, mine func(cell int) bool) error {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Workers, len(r.Cells)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				runCell(&r.Cells[i], o)
			}
		}()
	}
feed:
	for i := range r.Cells {
		if !mine(i) {
			continue
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	return nil
}

// skewPoints is the iperf3 result along the skew at the chosen setting.
func skewPoints(r *Result, at Setting) []SkewPoint {
	var pts []SkewPoint
	for k := range r.SkewsPs {
		c := r.Cell(at.MACTxDelaySteps, at.PHYTxDelay, k)
		if c.TCPResult == nil {
			continue // the cell failed: its Error says why
		}
		pts = append(pts, SkewPoint{SkewPs: c.TXSkewPs, PredictedFrameLoss: c.PredictedLoss, TCPResult: *c.TCPResult})
	}
	return pts
}

// cellErrors joins the cells' errors, if any failed.
func cellErrors(r *Result) error {
	var errs []error
	for _, c := range r.Cells {
		if c.Error != "" {
			errs = append(errs, fmt.Errorf("TXDLY %d, PHY TX delay %v, skew %g ps: %s", c.MACTxDelaySteps, c.PHYTxDelay, c.TXSkewPs, c.Error))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("scan: %d of %d cells failed: %w", len(errs), len(r.Cells), err)
	}
	return nil
}

// runCell boots the cell's own board and runs its quick TX test. The cell
// arrives with its coordinates filled in.
func runCell(c *Cell, o Options) {
	so := o.Sim
	txDelay := c.TxDelayNs
	phy := c.PHYTxDelay
	skew := c.TXSkewPs
	so.PhyMode = PhyMode
	so.TxDelayNs = &txDelay
	so.PHYTXDelay = &phy
	so.TXSkewPs = &skew
	// A cell is a short test: the scan checks its context between cells.
	res, err := linktest.Run(context.Background(), so, o.test())
	if err != nil {
		c.Error = err.Error()
		return
	}
	tx := res.TX
	if tx == nil {
		c.Error = "linktest returned no TX result"
		return
	}
	c.Sent, c.Received = tx.Sent, tx.Received
	c.Loss, c.PredictedLoss = tx.MeasuredLoss, tx.PredictedLoss
	c.Pass = tx.Sent > 0 && tx.Received == tx.Sent && tx.PredictedLoss < PassPredictedLoss
	b := tx.Budget
	c.Budget = b
	c.MACDelayPs = b.Timing.MACDelayPs
	c.PHYDelayPs = b.Timing.PHYDelayPs
	c.TotalDelayPs = b.DelayPs
	c.PhasePs = b.PhasePs
	c.WrongHalf = b.WrongHalf
	lim := b.Limiting()
	c.SetupMarginPs, c.HoldMarginPs = lim.SetupMarginPs, lim.HoldMarginPs
}

// runTCP gives every cell mine selects its iperf3 test, o.Workers at a time. A dead link
// gets none: iperf3 would only wait out its connect timeout there. It returns
// how many tests ctx's end left unfinished.
func runTCP(ctx context.Context, r *Result, o Options, mine func(cell int) bool) (unfinished int) {
	var todo []*Cell
	for i := range r.Cells {
		c := &r.Cells[i]
		if !mine(i) || c.Error != "" || r.SkewSwept() && (c.MACTxDelaySteps != o.Setting.MACTxDelaySteps || c.PHYTxDelay != o.Setting.PHYTxDelay) {
			continue
		}
		if c.Sent > 0 && c.Received == 0 {
			c.TCPResult = &TCPResult{MeasuredFrameLoss: c.Loss, LinkDead: true}
			continue
		}
		todo = append(todo, c)
	}
	var mu sync.Mutex // done, o.Tick
	done := 0
	if o.Tick != nil {
		o.Tick(0, len(todo))
	}
	sem := make(chan struct{}, o.Workers)
	var wg sync.WaitGroup
	for _, c := range todo {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return countUnfinished(todo)
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			defer func() {
				mu.Lock()
				done++
				if o.Tick != nil {
					o.Tick(done, len(todo))
				}
				mu.Unlock()
			}()
			skew := c.TXSkewPs
			rep, err := o.RunTCP(ctx, perfrun.Options{Sim: o.CellOptions(c.MACTxDelaySteps, c.PHYTxDelay, &skew),
				Duration: o.TCPTime, Reverse: o.Reverse})
			if err != nil {
				if ctx.Err() == nil { // a test Ctrl-C stopped is unfinished, not failed
					c.Error = "iperf3: " + err.Error()
				}
				return
			}
			c.TCPResult = &TCPResult{ThroughputBps: rep.ThroughputBps, Retransmits: rep.Retransmits,
				MeasuredFrameLoss: rep.MeasuredLoss, PathRTTMicros: rep.PathSRTTMicros}
		}()
	}
	wg.Wait()
	return countUnfinished(todo)
}

// countUnfinished: cells given a test that neither finished nor failed.
func countUnfinished(todo []*Cell) int {
	n := 0
	for _, c := range todo {
		if c.TCPResult == nil && c.Error == "" {
			n++
		}
	}
	return n
}

// CellOptions are the sim.Options of one cell (skewPs nil: the board's own
// skew), for callers that want to re-run or plot a cell (the suggested one,
// say) with the same board and driver.
func (o Options) CellOptions(mac int, phy bool, skewPs *float64) sim.Options {
	so := o.withDefaults().Sim
	d := uint32(2 * mac)
	so.PhyMode = PhyMode
	so.TxDelayNs = &d
	so.PHYTXDelay = &phy
	so.TXSkewPs = skewPs
	return so
}
