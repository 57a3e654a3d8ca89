package soc

import (
	"fmt"
	"math"
)

// Delay is a MAC-side clock-to-data delay with a one-line explanation of how the
// hardware got there. Ps keeps the exact float for the wire model; only the
// explanation rounds (to whole ps).
type Delay struct {
	Ps  float64
	Why string
}

// RoundedPs is the delay rounded to the nearest picosecond, for display.
func (d Delay) RoundedPs() int64 { return int64(math.Round(d.Ps)) }

func (d Delay) String() string { return d.Why }

// txdlyMask keeps the 2 bits of PRG_ETH0[6:5]; the free functions accept any value.
const txdlyMask = 3

// MACTXDelayA is the MAC TX delay under mechanism A (docs/reference/rgmii-timing.md §5, the project
// default; the silicon's mechanism is UNCONFIRMED): one TXDLY step lasts
// max(one period of the m250_sel output, a quarter of the TX clock period), and the
// delay is txdly x step. With TX period = 2 x Div sel periods the step is
// max(1, Div/2) sel periods. The delay is computed from the configured rates even when
// the TX gate is off; with no m250_sel clock at all it is 0.
func MACTXDelayA(c TXClock, txdly uint32) Delay {
	txdly &= txdlyMask
	if d, none := noTXDelay(c, txdly); none {
		return d
	}
	selPs := 1e12 / c.SelHz
	quarterPs := selPs * float64(c.Div) / 2 // (2 x Div x sel period) / 4
	step, cmp := selPs, ">"
	switch {
	case c.Div == 2:
		cmp = "=" // equal by construction; do not let float rounding pick a side
	case c.Div > 2:
		step, cmp = quarterPs, "<"
	}
	d := float64(txdly) * step
	return Delay{d, fmt.Sprintf("TXDLY %d x step %.0f ps (m250_sel %.4f MHz period %.0f ps %s TX/4 %.0f ps) = %.0f ps",
		txdly, step, c.SelHz/1e6, selPs, cmp, quarterPs, d)}
}

// noTXDelay is what both mechanisms give without a step to count: TXDLY 0,
// or no m250_sel clock.
func noTXDelay(c TXClock, txdly uint32) (Delay, bool) {
	if txdly == 0 {
		return Delay{0, "TXDLY 0: no MAC TX delay"}, true
	}
	if c.SelHz <= 0 || c.Div < 1 {
		return Delay{0, fmt.Sprintf("TXDLY %d but the m250_sel input (%s) is stopped: no TX clock, delay 0", txdly, c.Parent)}, true
	}
	return Delay{}, false
}

// MACTXDelayB is the alternative mechanism B (docs/reference/rgmii-timing.md §6, not the default):
// a both-edge phase generator on the m250_div output. Delay =
// floor(txdly/2) x P + (txdly mod 2) x H, P = period of the m250_div output, H its high
// time: P/2 for even Div; for Div 1 the raw input's high time (c.SelHighPs: one MPLL
// input period for MPLL2, UNCONFIRMED; P/2 for fclk_div2); floor(Div/2) input
// periods for odd Div >= 3 (assumption of the reference).
func MACTXDelayB(c TXClock, txdly uint32) Delay {
	txdly &= txdlyMask
	if d, none := noTXDelay(c, txdly); none {
		return d
	}
	selPs := 1e12 / c.SelHz
	periodPs := selPs * float64(c.Div)
	var highPs float64
	var how string
	switch {
	case c.Div%2 == 0:
		highPs, how = periodPs/2, "50 % duty"
	case c.Div == 1:
		highPs, how = c.SelHighPs, "raw "+c.Parent+" high time"
	default:
		highPs, how = float64(c.Div/2)*selPs, fmt.Sprintf("%d input periods", c.Div/2)
	}
	full, half := txdly/2, txdly%2
	d := float64(full)*periodPs + float64(half)*highPs
	return Delay{d, fmt.Sprintf("TXDLY %d: %d x P %.0f ps + %d x H %.0f ps (m250_div output %.4f MHz, H = %s) = %.0f ps",
		txdly, full, periodPs, half, highPs, c.DivOutHz/1e6, how, d)}
}

// MACRXDelayPs is the RX delay the glue's timing-adjust logic adds in the "2 ns" setting.
const MACRXDelayPs = 2000

// MACRXDelay is the MAC-side RX delay: adj_enable and adj_setup both set is the
// "2 ns RX delay" setting of the v5.8 binding (amlogic,rx-delay-ns = 2 writes exactly
// these two bits), modelled as 2000 ps; any other combination is 0. adj_delay and
// adj_skew, and the timing-adjustment clock (fclk_div2) that drives the logic, are
// not modelled.
func MACRXDelay(adjEnable, adjSetup bool) Delay {
	if adjEnable && adjSetup {
		return Delay{MACRXDelayPs, "adj_enable + adj_setup: the \"2 ns\" RX timing adjustment = 2000 ps"}
	}
	return Delay{0, fmt.Sprintf("adj_enable %d adj_setup %d: RX pins sampled directly = 0 ps", b2i(adjEnable), b2i(adjSetup))}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
