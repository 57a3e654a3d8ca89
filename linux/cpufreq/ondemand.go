// Package cpufreq is the port of Linux's ondemand governor (v5.4/v5.5,
// drivers/cpufreq/cpufreq_ondemand.c and cpufreq_governor.c) over
// cpufreq-dt's frequency table, as the Odroid-C1 has it: what frequency a
// policy picks from the load of one sampling period, in the kernel's integer
// arithmetic. Facts and sources: docs/reference/cpufreq.md.
package cpufreq

import (
	"fmt"
	"time"
)

const (
	// UpThreshold is ondemand's up_threshold with NO_HZ idle
	// micro-accounting (MICRO_FREQUENCY_UP_THRESHOLD); 80 without it.
	UpThreshold = 95
	// SamplingRate at HZ 100: the OPP table declares no clock-latency-ns,
	// so the transition latency is "eternal", capped to 10 ms, and the
	// governor never samples faster than two ticks (20 ms).
	SamplingRate = 20 * time.Millisecond
	// TransitionStall is how long a frequency change parks the CPU: the
	// meson8b clock notifier switches cpu_clk to the 24 MHz crystal with a
	// udelay(100) before and after the PLL change (drivers/clk/meson/
	// meson8b.c). It is a lower bound; the PLL relock itself is not counted.
	TransitionStall = 200 * time.Microsecond
)

// Ondemand is one policy under the ondemand governor.
type Ondemand struct {
	table       []uint32 // ascending, kHz
	upThreshold uint32
	cur         uint32
	prevLoad    uint32
}

// NewOndemand starts a policy on table (ascending kHz) at its maximum, as
// cpufreq-dt leaves a CPU the boot loader ran at full speed.
func NewOndemand(table []uint32, upThreshold uint32) (*Ondemand, error) {
	if len(table) == 0 {
		return nil, fmt.Errorf("cpufreq: empty frequency table")
	}
	for i := 1; i < len(table); i++ {
		if table[i] <= table[i-1] {
			return nil, fmt.Errorf("cpufreq: table not ascending at %d kHz", table[i])
		}
	}
	if upThreshold == 0 || upThreshold > 100 {
		return nil, fmt.Errorf("cpufreq: up_threshold %d outside 1..100", upThreshold)
	}
	return &Ondemand{table: table, upThreshold: upThreshold, cur: table[len(table)-1]}, nil
}

// CurKHz is the policy's current frequency.
func (g *Ondemand) CurKHz() uint32 { return g.cur }

// MaxKHz is the policy's highest frequency.
func (g *Ondemand) MaxKHz() uint32 { return g.table[len(g.table)-1] }

// Load is dbs_update's load of one sampling period: the busy share of the
// elapsed time in whole percent, truncated as the kernel's integer division.
func Load(busy, elapsed time.Duration) uint32 {
	if elapsed <= 0 || busy <= 0 {
		return 0
	}
	busy = min(busy, elapsed)
	return uint32(100 * uint64(busy) / uint64(elapsed))
}

// Sample is one governor run over a period of elapsed time of which busy was
// spent working: dbs_update's load, then od_update. After more than two
// sampling periods of idleness it reuses the previous load once, as the
// kernel does for a task that just woke on a long-idle CPU.
func (g *Ondemand) Sample(busy, elapsed time.Duration) (uint32, bool) {
	var load uint32
	switch idle := elapsed - busy; {
	case elapsed <= 0:
		load = g.prevLoad
	case idle > 2*SamplingRate && g.prevLoad != 0:
		load, g.prevLoad = g.prevLoad, 0
	default:
		load = Load(busy, elapsed)
		g.prevLoad = load
	}
	return g.Update(load)
}

// Update is od_update for one sample's load (percent): above up_threshold the
// policy goes to its maximum; otherwise to min + load × (max − min) / 100,
// the closest table entry (CPUFREQ_RELATION_C). It reports the new frequency
// and whether it changed (a change is a transition, with its stall).
func (g *Ondemand) Update(load uint32) (uint32, bool) {
	minF, maxF := g.table[0], g.MaxKHz()
	next := maxF
	if load <= g.upThreshold {
		next = g.closest(minF + load*(maxF-minF)/100)
	}
	changed := next != g.cur
	g.cur = next
	return next, changed
}

// closest is cpufreq_table_find_index_ac: the entry nearest to target, the
// lower one on a tie.
func (g *Ondemand) closest(target uint32) uint32 {
	best := -1
	for i, f := range g.table {
		if f == target {
			return f
		}
		if f < target {
			best = i
			continue
		}
		if best == -1 || target-g.table[best] > f-target {
			return f
		}
		return g.table[best]
	}
	return g.table[best]
}
