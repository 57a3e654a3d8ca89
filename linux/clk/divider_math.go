package clk

import (
	"fmt"
	"math"
	"math/bits"
)

// DividerFlags are the CLK_DIVIDER_* flags, with Linux's bit values.
type DividerFlags uint8

// Divider flags.
const (
	DividerOneBased     DividerFlags = 1 << 0 // register value = divisor; 0 is invalid
	DividerPowerOfTwo   DividerFlags = 1 << 1 // divisor = 2^value
	DividerAllowZero    DividerFlags = 1 << 2 // a zero divisor passes the parent rate, no WARN
	DividerHiwordMask   DividerFlags = 1 << 3 // write-enable mask in the upper 16 bits
	DividerRoundClosest DividerFlags = 1 << 4 // pick the divisor closest to the request
	DividerReadOnly     DividerFlags = 1 << 5 // registered with clk_divider_ro_ops
	DividerMaxAtZero    DividerFlags = 1 << 6 // value 0 = the largest divisor
)

// DivTable is struct clk_div_table: register value Val selects divisor Div. A
// table ends at its last element or at the first entry with Div 0, whichever
// comes first, so a Go slice is always a terminated table.
type DivTable struct {
	Val, Div uint32
}

// tableEntries yields the entries before the terminator.
func tableEntries(table []DivTable) []DivTable {
	for i, t := range table {
		if t.Div == 0 {
			return table[:i]
		}
	}
	return table
}

// divMask is clk_div_mask(width).
func divMask(width uint8) uint32 {
	if width >= 32 {
		return math.MaxUint32
	}
	return uint32(1)<<width - 1
}

func tableMaxDiv(table []DivTable, width uint8) uint32 {
	var maxdiv uint32
	mask := divMask(width)
	for _, t := range tableEntries(table) {
		if t.Div > maxdiv && t.Val <= mask {
			maxdiv = t.Div
		}
	}
	return maxdiv
}

func tableMinDiv(table []DivTable) uint32 {
	mindiv := uint32(math.MaxUint32)
	for _, t := range tableEntries(table) {
		if t.Div < mindiv {
			mindiv = t.Div
		}
	}
	return mindiv
}

// getMaxDiv is _get_maxdiv.
func getMaxDiv(table []DivTable, width uint8, flags DividerFlags) uint32 {
	switch {
	case flags&DividerOneBased != 0:
		return divMask(width)
	case flags&DividerPowerOfTwo != 0:
		return shl(divMask(width))
	case table != nil:
		return tableMaxDiv(table, width)
	}
	return divMask(width) + 1
}

// shl is 1 << n on 32-bit ARM with a register shift count: 0 from 32 on.
func shl(n uint32) uint32 {
	if n >= 32 {
		return 0
	}
	return uint32(1) << n
}

// getDiv is _get_div: the divisor register value val stands for (0: none).
func getDiv(table []DivTable, val uint32, flags DividerFlags, width uint8) uint32 {
	switch {
	case flags&DividerOneBased != 0:
		return val
	case flags&DividerPowerOfTwo != 0:
		return shl(val)
	case flags&DividerMaxAtZero != 0:
		if val == 0 {
			return divMask(width) + 1
		}
		return val
	case table != nil:
		for _, t := range tableEntries(table) {
			if t.Val == val {
				return t.Div
			}
		}
		return 0
	}
	return val + 1
}

// getVal is _get_val: the register value for divisor div.
func getVal(table []DivTable, div uint32, flags DividerFlags, width uint8) uint32 {
	switch {
	case flags&DividerOneBased != 0:
		return div
	case flags&DividerPowerOfTwo != 0:
		return uint32(bits.TrailingZeros32(div)) // __ffs; div is a power of two here
	case flags&DividerMaxAtZero != 0:
		if div == divMask(width)+1 {
			return 0
		}
		return div
	case table != nil:
		for _, t := range tableEntries(table) {
			if t.Div == div {
				return t.Val
			}
		}
		return 0
	}
	return div - 1
}

func isValidDiv(table []DivTable, div uint32, flags DividerFlags) bool {
	if flags&DividerPowerOfTwo != 0 {
		return isPowerOfTwo(div)
	}
	if table != nil {
		for _, t := range tableEntries(table) {
			if t.Div == div {
				return true
			}
		}
		return false
	}
	return true
}

// roundUpTable is _round_up_table: the smallest table divisor >= div, INT_MAX if
// none. Linux mixes int and unsigned int here; the conversions follow C's.
func roundUpTable(table []DivTable, div int32) int32 {
	up := int32(math.MaxInt32)
	for _, t := range tableEntries(table) {
		if t.Div == uint32(div) {
			return int32(t.Div)
		} else if t.Div < uint32(div) {
			continue
		}
		if t.Div-uint32(div) < uint32(up-div) {
			up = int32(t.Div)
		}
	}
	return up
}

// roundDownTable is _round_down_table: the largest table divisor <= div, the
// smallest one if none.
func roundDownTable(table []DivTable, div int32) int32 {
	down := int32(tableMinDiv(table))
	for _, t := range tableEntries(table) {
		if t.Div == uint32(div) {
			return int32(t.Div)
		} else if t.Div > uint32(div) {
			continue
		}
		if uint32(div)-t.Div < uint32(div-down) {
			down = int32(t.Div)
		}
	}
	return down
}

// divRoundUp is _div_round_up.
func divRoundUp(table []DivTable, parentRate, rate uint32, flags DividerFlags) int32 {
	div := int32(divRoundUp64(uint64(parentRate), rate))
	if flags&DividerPowerOfTwo != 0 {
		div = int32(roundupPowOfTwo(uint32(div)))
	}
	if table != nil {
		div = roundUpTable(table, div)
	}
	return div
}

// divRoundClosest is _div_round_closest: of the divisors just above and just below
// parentRate/rate, the one whose rate is nearer (ties go up). Where Linux would
// divide by a zero divisor (rate above the parent, or a zero parent) the other
// candidate is taken.
func divRoundClosest(table []DivTable, parentRate, rate uint32, flags DividerFlags) int32 {
	up := int32(divRoundUp64(uint64(parentRate), rate))
	down := int32(parentRate / rate)
	if flags&DividerPowerOfTwo != 0 {
		up = int32(roundupPowOfTwo(uint32(up)))
		down = int32(rounddownPowOfTwo(uint32(down)))
	} else if table != nil {
		up = roundUpTable(table, up)
		down = roundDownTable(table, down)
	}
	if uint32(down) == 0 {
		return up
	}
	if uint32(up) == 0 {
		return down
	}
	upRate := divRoundUpInt(uint64(parentRate), up)
	downRate := divRoundUpInt(uint64(parentRate), down)
	if rate-upRate <= downRate-rate {
		return up
	}
	return down
}

func divRound(table []DivTable, parentRate, rate uint32, flags DividerFlags) int32 {
	if flags&DividerRoundClosest != 0 {
		return divRoundClosest(table, parentRate, rate, flags)
	}
	return divRoundUp(table, parentRate, rate, flags)
}

// isBestDiv is _is_best_div. With ROUND_CLOSEST the differences are unsigned longs
// that abs() reads as signed longs.
func isBestDiv(rate, now, best uint32, flags DividerFlags) bool {
	if flags&DividerRoundClosest != 0 {
		return absLong(rate-now) < absLong(rate-best)
	}
	return now <= rate && now > best
}

// nextDiv is _next_div: the next divisor to try after div.
func nextDiv(table []DivTable, div int32, flags DividerFlags) int32 {
	div++
	if flags&DividerPowerOfTwo != 0 {
		return int32(roundupPowOfTwo(uint32(div)))
	}
	if table != nil {
		return roundUpTable(table, div)
	}
	return div
}

// bestDiv is clk_divider_bestdiv. Without CLK_SET_RATE_PARENT it rounds against
// the parent's current rate. With it, it tries every divisor i: the first whose
// rate*i equals the parent's current rate wins at once; otherwise it asks the
// parent for rate*i and keeps the best result (per isBestDiv).
func bestDiv(hw, parent *HW, rate uint32, bestParentRate *uint32, table []DivTable, width uint8, flags DividerFlags) int32 {
	var bestdiv int32
	var best uint32
	saved := *bestParentRate
	if rate == 0 {
		rate = 1
	}
	maxdiv := getMaxDiv(table, width, flags)
	if hw.Flags()&SetRateParent == 0 {
		bestdiv = divRound(table, *bestParentRate, rate, flags)
		if bestdiv == 0 {
			bestdiv = 1
		}
		if uint32(bestdiv) > maxdiv {
			bestdiv = int32(maxdiv)
		}
		return bestdiv
	}

	// the largest divisor for which rate * i cannot overflow an unsigned long
	maxdiv = min(math.MaxUint32/rate, maxdiv)
	for i := nextDiv(table, 0, flags); uint32(i) <= maxdiv; {
		if rate*uint32(i) == saved {
			*bestParentRate = saved
			return i
		}
		parentRate := parent.RoundRate(rate * uint32(i))
		now := divRoundUp64(uint64(parentRate), uint32(i))
		if isBestDiv(rate, now, best, flags) {
			bestdiv = i
			best = now
			*bestParentRate = parentRate
		}
		next := nextDiv(table, i, flags)
		if uint32(next) <= uint32(i) {
			// POWER_OF_TWO past 2^31 wraps to 0 and Linux loops forever
			hw.Warnf("%s: divisor walk wrapped after %d", hw.Name(), uint32(i))
			break
		}
		i = next
	}
	if bestdiv == 0 {
		bestdiv = int32(getMaxDiv(table, width, flags))
		*bestParentRate = parent.RoundRate(1)
	}
	return bestdiv
}

// DividerRoundRate is divider_round_rate_parent: the rate the divider can give
// for rate, with *parentRate set to the parent rate it needs. The result is a C
// long (see RateRounder). Linux divides by zero when no divisor fits; this returns
// the parent rate then.
func DividerRoundRate(hw, parent *HW, rate uint32, parentRate *uint32, table []DivTable, width uint8, flags DividerFlags) uint32 {
	div := bestDiv(hw, parent, rate, parentRate, table, width, flags)
	if div == 0 {
		return *parentRate
	}
	return divRoundUpInt(uint64(*parentRate), div)
}

// DividerRORoundRate is divider_ro_round_rate_parent: a read-only divider keeps
// its divisor val but can still pass a request to its parent
// (CLK_SET_RATE_PARENT).
func DividerRORoundRate(hw, parent *HW, rate uint32, parentRate *uint32, table []DivTable, width uint8, flags DividerFlags, val uint32) (uint32, error) {
	div := getDiv(table, val, flags, width)
	if hw.Flags()&SetRateParent != 0 {
		if parent == nil {
			return 0, fmt.Errorf("%s: no parent: %w", hw.Name(), ErrInvalid)
		}
		*parentRate = parent.RoundRate(rate * div)
	}
	if div == 0 {
		return *parentRate, nil // Linux divides by zero; a zero divisor passes the rate elsewhere
	}
	return divRoundUpInt(uint64(*parentRate), int32(div)), nil // Linux holds div in an int
}

// DividerRecalcRate is divider_recalc_rate: parent / divisor rounded up; a zero
// divisor passes the parent rate (and WARNs unless CLK_DIVIDER_ALLOW_ZERO).
func DividerRecalcRate(hw *HW, parentRate, val uint32, table []DivTable, flags DividerFlags, width uint8) uint32 {
	div := getDiv(table, val, flags, width)
	if div == 0 {
		if flags&DividerAllowZero == 0 {
			hw.Warnf("%s: Zero divisor and CLK_DIVIDER_ALLOW_ZERO not set", hw.Name())
		}
		return parentRate
	}
	return divRoundUp64(uint64(parentRate), div)
}

// DividerGetVal is divider_get_val: the register value that divides parentRate
// down to rate, ErrInvalid when that divisor does not exist (not in the table,
// not a power of two). A rate of 0 is ErrInvalid too (Linux divides by zero).
func DividerGetVal(rate, parentRate uint32, table []DivTable, width uint8, flags DividerFlags) (uint32, error) {
	if rate == 0 {
		return 0, fmt.Errorf("divider for 0 Hz: %w", ErrInvalid)
	}
	div := divRoundUp64(uint64(parentRate), rate)
	if !isValidDiv(table, div, flags) {
		return 0, fmt.Errorf("no divisor %d (%d Hz from %d Hz): %w", div, rate, parentRate, ErrInvalid)
	}
	return min(getVal(table, div, flags, width), divMask(width)), nil
}
