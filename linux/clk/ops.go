package clk

// Ops is a clock's clk_ops table. Every member of Linux's struct clk_ops is
// optional, so Ops is any value, and the framework asks it for the interfaces
// below at exactly the places where Linux tests an op pointer for NULL.
//
// Ops methods run with the framework lock held. They may use the *HW they are
// given (the clk_hw view of their clock) but must not call Framework methods.
type Ops interface{}

// RateRecalcer is .recalc_rate: the clock's rate from its parent's rate and the
// hardware state.
type RateRecalcer interface {
	RecalcRate(hw *HW, parentRate uint32) (uint32, error)
}

// RateRounder is .round_rate. The result is a C `long`: the framework reads a value
// at or above 2^31 as a negative error code, as 32-bit Linux does. parentRate
// carries best_parent_rate in and out.
type RateRounder interface {
	RoundRate(hw *HW, rate uint32, parentRate *uint32) (uint32, error)
}

// RateDeterminer is .determine_rate.
type RateDeterminer interface {
	DetermineRate(hw *HW, req *RateRequest) error
}

// RateSetter is .set_rate.
type RateSetter interface {
	SetRate(hw *HW, rate, parentRate uint32) error
}

// ParentGetter is .get_parent. Like Linux it returns a u8: a mux that reads an
// invalid selector returns -EINVAL truncated to 8 bits (234), which is out of range
// and leaves the clock an orphan.
type ParentGetter interface {
	GetParent(hw *HW) (uint8, error)
}

// ParentSetter is .set_parent.
type ParentSetter interface {
	SetParent(hw *HW, index uint8) error
}

// Enabler is .enable / .disable (Linux's disable is void: its error is only ever a
// failed register access).
type Enabler interface {
	Enable(hw *HW) error
	Disable(hw *HW) error
}

// Preparer is .prepare / .unprepare.
type Preparer interface {
	Prepare(hw *HW) error
	Unprepare(hw *HW) error
}

// AccuracyRecalcer is .recalc_accuracy (parts per billion).
type AccuracyRecalcer interface {
	RecalcAccuracy(hw *HW, parentAccuracy uint32) (uint32, error)
}

// Initializer is .init, run once at registration before the parent is looked up
// (v5.4 order).
type Initializer interface {
	Init(hw *HW) error
}

// Validator lets Register refuse a malformed clock description up front, where
// Linux would misbehave later.
type Validator interface {
	Validate() error
}

// opsSelector lets a basic type pick its ops table from its flags, as
// clk_register_divider picks clk_divider_ro_ops for CLK_DIVIDER_READ_ONLY.
type opsSelector interface {
	selectOps() Ops
}

// RateRequest is struct clk_rate_request.
type RateRequest struct {
	Rate           uint32
	MinRate        uint32
	MaxRate        uint32
	BestParentRate uint32
	BestParent     *HW
}

// HW is the clk_hw view of a clock that its ops work with. It is the same object
// as the *Clock; its methods do not lock, so they are for ops callbacks only.
type HW Clock

func (hw *HW) core() *Clock { return (*Clock)(hw) }

func hwOf(c *Clock) *HW { return (*HW)(c) }

// Clock is the consumer handle of this clock.
func (hw *HW) Clock() *Clock { return hw.core() }

// Name is clk_hw_get_name.
func (hw *HW) Name() string { return hw.name }

// Flags is clk_hw_get_flags.
func (hw *HW) Flags() Flags { return hw.flags }

// NumParents is clk_hw_get_num_parents.
func (hw *HW) NumParents() int { return len(hw.parentNames) }

// Parent is clk_hw_get_parent: the current parent, nil for a root or an orphan.
func (hw *HW) Parent() *HW {
	if hw == nil || hw.parent == nil {
		return nil
	}
	return hwOf(hw.parent)
}

// ParentByIndex is clk_hw_get_parent_by_index.
func (hw *HW) ParentByIndex(i int) *HW {
	p := hw.fw.parentByIndex(hw.core(), i)
	if p == nil {
		return nil
	}
	return hwOf(p)
}

// Rate is clk_hw_get_rate: the cached rate, 0 for an orphan.
func (hw *HW) Rate() uint32 {
	if hw == nil {
		return 0
	}
	return getRateNolock(hw.core())
}

// RoundRate is clk_hw_round_rate: what this clock would give for rate, 0 when the
// walk fails. (Linux dereferences a NULL hw here; this returns 0.)
func (hw *HW) RoundRate(rate uint32) uint32 {
	if hw == nil {
		return 0
	}
	c := hw.core()
	req := RateRequest{Rate: rate, MinRate: c.minRate, MaxRate: c.maxRate}
	if err := c.fw.roundNolock(c, &req); err != nil {
		c.fw.note(err)
		return 0
	}
	return req.Rate
}

// DetermineRate is __clk_determine_rate: round req on this clock (nil: rate 0).
func (hw *HW) DetermineRate(req *RateRequest) error {
	if hw == nil {
		req.Rate = 0
		return nil
	}
	return hw.fw.roundNolock(hw.core(), req)
}

// Warnf records a kernel WARN / pr_warn from an op.
func (hw *HW) Warnf(format string, args ...any) { hw.fw.warnf(format, args...) }
