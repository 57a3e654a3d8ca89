package linuxmodel

import (
	"time"

	"mesonemu/emu"
	"mesonemu/linux/cpufreq"
)

// CPU is a host's one core in virtual time: every packet the stack sends or
// receives occupies it for PerPacket + PerByte × len, one packet after the
// other in the order they asked, so a slow board is slow in virtual time
// whatever the host machine's speed. A nil *CPU costs nothing.
type CPU struct {
	m         *emu.Machine
	perPacket float64 // ns, at the governor's maximum frequency
	perByte   float64 // ns, likewise
	busyUntil emu.Time
	busy      emu.Time // total virtual time spent working

	gov          *cpufreq.Ondemand // nil: the core runs at its fitted frequency
	lastSample   emu.Time
	busyAtSample emu.Time
	transitions  uint64
}

// NewCPU makes a CPU model; a zero cost disables it.
func NewCPU(m *emu.Machine, perPacketNs, perByteNs float64) *CPU {
	return &CPU{m: m, perPacket: perPacketNs, perByte: perByteNs}
}

// SetGovernor puts the core under a frequency governor. The costs stay those
// fitted at the governor's maximum frequency and grow as max / current when
// it picks a lower one (all the work is assumed to scale with the clock).
func (c *CPU) SetGovernor(g *cpufreq.Ondemand) {
	if c != nil {
		c.gov = g
	}
}

// reserve books the work for one packet of n bytes asked for at now and
// returns when it is done. Callers are serialised by the engine.
func (c *CPU) reserve(now emu.Time, n int) emu.Time {
	if c == nil || (c.perPacket == 0 && c.perByte == 0) {
		return now
	}
	cost := c.perPacket + c.perByte*float64(n)
	if c.gov != nil {
		c.govern(now)
		cost = cost * float64(c.gov.MaxKHz()) / float64(c.gov.CurKHz())
	}
	c.busyUntil = max(now, c.busyUntil) + emu.Time(cost)
	c.busy += emu.Time(cost)
	return c.busyUntil
}

// govern runs the governor when a sampling period has passed, as the
// scheduler's utilisation hook does on the first event after it: the load is
// the work done since the last sample. Work booked so far but still ahead of
// now runs without a gap up to busyUntil, so it is what lies after now.
// A frequency change parks the core for the transition stall.
func (c *CPU) govern(now emu.Time) {
	elapsed := now - c.lastSample
	if elapsed < emu.Time(cpufreq.SamplingRate) {
		return
	}
	done := c.busy - max(0, c.busyUntil-now)
	_, changed := c.gov.Sample(time.Duration(done-c.busyAtSample), time.Duration(elapsed))
	c.lastSample, c.busyAtSample = now, done
	if changed {
		stall := emu.Time(cpufreq.TransitionStall)
		c.busyUntil = max(now, c.busyUntil) + stall
		c.busy += stall
		c.transitions++
	}
}

// Idle says the core has no work booked at now: a nil CPU, which costs
// nothing, is always idle.
func (c *CPU) Idle(now emu.Time) bool {
	return c == nil || now >= c.busyUntil
}

// Busy is the total virtual time the core spent on packets (and on
// frequency transitions).
func (c *CPU) Busy() emu.Time {
	if c == nil {
		return 0
	}
	return c.busy
}

// Transitions is how many frequency changes the governor made.
func (c *CPU) Transitions() uint64 {
	if c == nil {
		return 0
	}
	return c.transitions
}

// CurKHz is the core's current frequency under its governor, 0 without one.
func (c *CPU) CurKHz() uint32 {
	if c == nil || c.gov == nil {
		return 0
	}
	return c.gov.CurKHz()
}
