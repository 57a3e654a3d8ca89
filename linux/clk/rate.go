package clk

import "fmt"

func canRound(c *Clock) bool {
	_, d := c.ops.(RateDeterminer)
	_, r := c.ops.(RateRounder)
	return d || r
}

// initRateReq is clk_core_init_rate_req: the best parent starts as the current
// one, at its cached rate.
func initRateReq(c *Clock, req *RateRequest) {
	if c.parent != nil {
		req.BestParent = hwOf(c.parent)
		req.BestParentRate = c.parent.rate
		return
	}
	req.BestParent = nil
	req.BestParentRate = 0
}

// determineRound is clk_core_determine_round_nolock.
func (fw *Framework) determineRound(c *Clock, req *RateRequest) error {
	if c == nil {
		return nil
	}
	if c.protectCount > 0 {
		req.Rate = c.rate
		return nil
	}
	if d, ok := c.ops.(RateDeterminer); ok {
		return d.DetermineRate(hwOf(c), req)
	}
	if r, ok := c.ops.(RateRounder); ok {
		rate, err := r.RoundRate(hwOf(c), req.Rate, &req.BestParentRate)
		if err != nil {
			return err
		}
		// .round_rate returns a 32-bit long: 2^31 and above is a negative errno
		// to the framework.
		if int32(rate) < 0 {
			return fmt.Errorf("%s: round_rate gave %d Hz, negative as a 32-bit long: %w", c.name, rate, ErrInvalid)
		}
		req.Rate = rate
		return nil
	}
	return fmt.Errorf("%s: cannot round: %w", c.name, ErrInvalid)
}

// roundNolock is clk_core_round_rate_nolock: round on this clock if it can,
// otherwise pass the request to the parent (CLK_SET_RATE_PARENT) or answer with
// the current rate.
func (fw *Framework) roundNolock(c *Clock, req *RateRequest) error {
	if c == nil {
		req.Rate = 0
		return nil
	}
	if err := fw.enter(c); err != nil {
		fw.leave()
		return err
	}
	defer fw.leave()
	initRateReq(c, req)
	if canRound(c) {
		return fw.determineRound(c, req)
	}
	if c.flags&SetRateParent != 0 {
		return fw.roundNolock(c.parent, req)
	}
	req.Rate = c.rate
	return nil
}

// reqRoundNolock is clk_core_req_round_rate_nolock: the rate clk_set_rate would
// end up with, as if the clock were not protected; 0 when the walk fails.
func (fw *Framework) reqRoundNolock(c *Clock, rate uint32) uint32 {
	n := fw.nukeProtect(c)
	req := RateRequest{Rate: rate, MinRate: c.minRate, MaxRate: c.maxRate}
	err := fw.roundNolock(c, &req)
	fw.restoreProtect(c, n)
	if err != nil {
		fw.note(err)
		return 0
	}
	return req.Rate
}

// calcSubtree is clk_calc_subtree: record the new rate and parent of c and
// speculate its children's rates.
func (fw *Framework) calcSubtree(c *Clock, newRate uint32, newParent *Clock, index uint8) {
	c.newRate = newRate
	c.newParent = newParent
	c.newParentIndex = index
	c.newChild = nil
	if newParent != nil && newParent != c.parent {
		newParent.newChild = c
	}
	for _, ch := range c.children {
		ch.newRate = fw.recalc(ch, newRate)
		fw.calcSubtree(ch, ch.newRate, nil, 0)
	}
}

// calcNewRates is clk_calc_new_rates: find the topmost clock that has to change
// for c to run at rate, recording every clock's new rate and parent on the way.
// nil means the change is impossible.
func (fw *Framework) calcNewRates(c *Clock, rate uint32) *Clock {
	if c == nil {
		return nil
	}
	if err := fw.enter(c); err != nil {
		fw.leave()
		return nil
	}
	defer fw.leave()

	top := c
	parent, oldParent := c.parent, c.parent
	var bestParentRate, newRate uint32 // Linux starts bestParentRate at parent->rate; only the rounding branch reads it
	index := 0

	switch {
	case canRound(c):
		req := RateRequest{Rate: rate, MinRate: c.minRate, MaxRate: c.maxRate}
		initRateReq(c, &req)
		if err := fw.determineRound(c, &req); err != nil {
			fw.note(err)
			return nil
		}
		bestParentRate = req.BestParentRate
		newRate = req.Rate
		parent = nil
		if req.BestParent != nil {
			parent = req.BestParent.core()
		}
		if newRate < c.minRate || newRate > c.maxRate {
			return nil
		}
	case parent == nil || c.flags&SetRateParent == 0:
		// pass-through clock without adjustable parent
		c.newRate = c.rate
		return nil
	default:
		// pass-through clock with adjustable parent
		top = fw.calcNewRates(parent, rate)
		fw.calcSubtree(c, parent.newRate, parent, 0)
		return top
	}

	if parent != oldParent && c.flags&SetParentGate != 0 && c.prepareCount > 0 {
		return nil
	}
	if parent != nil && len(c.parentNames) > 1 {
		if index = fw.fetchParentIndex(c, parent); index < 0 {
			return nil
		}
	}
	if c.flags&SetRateParent != 0 && parent != nil && bestParentRate != parent.rate {
		top = fw.calcNewRates(parent, bestParentRate)
	}
	fw.calcSubtree(c, newRate, parent, uint8(index))
	return top
}

// changeRate is clk_change_rate: from the top clock downwards, switch parents,
// program the new rates and re-read them. set_rate gets the parent's rate as it
// now is, not the rate the rounding walk expected; its error is ignored, as in
// Linux (the recalculated rate shows what the hardware took).
func (fw *Framework) changeRate(c *Clock) {
	if err := fw.enter(c); err != nil {
		fw.leave()
		fw.note(err)
		return
	}
	defer fw.leave()

	var parent *Clock
	var bestParentRate uint32
	if c.newParent != nil {
		parent = c.newParent
	} else {
		parent = c.parent
	}
	if parent != nil {
		bestParentRate = parent.rate
	}

	if c.flags&SetRateUngate != 0 {
		fw.note(fw.prepare(c))
		fw.note(fw.enable(c))
	}

	if c.newParent != nil && c.newParent != c.parent {
		if isAncestorOrSelf(c, c.newParent) {
			fw.warnf("%s: refusing to reparent under its own child %s", c.name, c.newParent.name)
		} else {
			old := fw.setParentBefore(c, c.newParent)
			if s, ok := c.ops.(ParentSetter); ok {
				fw.note(s.SetParent(hwOf(c), c.newParentIndex))
			}
			fw.setParentAfter(c, old)
		}
	}

	if s, ok := c.ops.(RateSetter); ok {
		fw.note(s.SetRate(hwOf(c), c.newRate, bestParentRate))
	}
	c.rate = fw.recalc(c, bestParentRate)

	if c.flags&SetRateUngate != 0 {
		fw.disable(c)
		fw.unprepare(c)
	}

	for _, ch := range append([]*Clock(nil), c.children...) {
		if ch.newParent != nil && ch.newParent != c {
			continue // it moves to another clock, which will handle it
		}
		fw.changeRate(ch)
	}
	if c.newChild != nil {
		fw.changeRate(c.newChild)
	}
}

// setRateNolock is clk_core_set_rate_nolock.
func (fw *Framework) setRateNolock(c *Clock, rate uint32) error {
	if c == nil {
		return nil
	}
	rounded := fw.reqRoundNolock(c, rate)
	if rounded == getRateNolock(c) {
		return nil
	}
	if c.protectCount > 0 {
		return fmt.Errorf("%s: rate protected: %w", c.name, ErrBusy)
	}
	// The walk starts again from the original request, not from rounded.
	top := fw.calcNewRates(c, rate)
	if top == nil {
		return fmt.Errorf("%s: no way to %d Hz: %w", c.name, rate, ErrInvalid)
	}
	fw.changeRate(top)
	c.reqRate = rate
	return nil
}

// SetRate is clk_set_rate.
func (fw *Framework) SetRate(c *Clock, rate uint32) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if err := fw.check(c); err != nil {
		return err
	}
	return fw.finish(fw.setRateNolock(c, rate))
}

// RoundRate is clk_round_rate: the rate SetRate would produce, without changing
// anything. (Linux returns it as a long, so above 2^31 Hz a caller would see a
// negative number; this returns the unsigned value.)
func (fw *Framework) RoundRate(c *Clock, rate uint32) (uint32, error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if c == nil {
		return 0, nil
	}
	if err := fw.check(c); err != nil {
		return 0, err
	}
	req := RateRequest{Rate: rate, MinRate: c.minRate, MaxRate: c.maxRate}
	if err := fw.roundNolock(c, &req); err != nil {
		return 0, fw.finish(fmt.Errorf("round %s to %d Hz: %w", c.name, rate, err))
	}
	return req.Rate, fw.finish(nil)
}

// GetRate is clk_get_rate: the cached rate (recomputed first for
// CLK_GET_RATE_NOCACHE), 0 for an orphan.
func (fw *Framework) GetRate(c *Clock) uint32 {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if c == nil || c.gone {
		return 0
	}
	if c.flags&GetRateNoCache != 0 {
		fw.recalcRates(c)
		fw.opErr = nil // GetRate cannot report; a failed read shows as a wrong rate
	}
	return getRateNolock(c)
}

// SetRateRange is clk_hw_set_rate_range: the provider's bounds for the clock
// (default 0..2^32-1); calc_new_rates refuses a rate outside them.
func (fw *Framework) SetRateRange(c *Clock, minRate, maxRate uint32) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if err := fw.check(c); err != nil {
		return err
	}
	if c == nil || minRate > maxRate {
		return fmt.Errorf("rate range [%d, %d]: %w", minRate, maxRate, ErrInvalid)
	}
	c.minRate, c.maxRate = minRate, maxRate
	return nil
}
