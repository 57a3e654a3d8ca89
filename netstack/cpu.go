package netstack

import (
	"sync"

	"mesonemu/emu"
)

// CPU serialises a host's per-packet work in virtual time: every packet the
// stack sends or receives occupies the (one) core for PerPacket + PerByte × len.
// When the core is busy the packet waits, so a slow board is slow in virtual
// time whatever the host machine's speed.
type CPU struct {
	m         *emu.Machine
	perPacket float64 // ns
	perByte   float64 // ns
	mu        sync.Mutex
	busyUntil emu.Time
	busy      emu.Time // total virtual time spent working
}

// slack is how far the CPU may run ahead of the clock before a caller sleeps:
// sleeping per packet would cost more host time than the packet; the average
// rate is exact either way.
const slack = 200 * emu.Microsecond

// NewCPU makes a CPU model; a zero cost disables it (Charge returns at once).
func NewCPU(m *emu.Machine, perPacketNs, perByteNs float64) *CPU {
	return &CPU{m: m, perPacket: perPacketNs, perByte: perByteNs}
}

// Charge books the work for one packet of n bytes and waits while the core is
// more than slack ahead of virtual time.
func (c *CPU) Charge(n int) {
	if c == nil || (c.perPacket == 0 && c.perByte == 0) {
		return
	}
	cost := emu.Time(c.perPacket + c.perByte*float64(n))
	now := c.m.VirtualNow()
	c.mu.Lock()
	start := max(now, c.busyUntil)
	c.busyUntil = start + cost
	c.busy += cost
	ahead := c.busyUntil - now
	c.mu.Unlock()
	if ahead > slack {
		c.m.Sleep(ahead - slack)
	}
}

// Busy is the total virtual time the core spent on packets.
func (c *CPU) Busy() emu.Time {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.busy
}
