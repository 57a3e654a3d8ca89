package linuxmodel

import "mesonemu/emu"

// CPU is a host's one core in virtual time: every packet the stack sends or
// receives occupies it for PerPacket + PerByte × len, one packet after the
// other in the order they asked, so a slow board is slow in virtual time
// whatever the host machine's speed. A nil *CPU costs nothing.
type CPU struct {
	m         *emu.Machine
	perPacket float64 // ns
	perByte   float64 // ns
	busyUntil emu.Time
	busy      emu.Time // total virtual time spent working
}

// NewCPU makes a CPU model; a zero cost disables it.
func NewCPU(m *emu.Machine, perPacketNs, perByteNs float64) *CPU {
	return &CPU{m: m, perPacket: perPacketNs, perByte: perByteNs}
}

// reserve books the work for one packet of n bytes asked for at now and
// returns when it is done. Callers are serialised by the engine.
func (c *CPU) reserve(now emu.Time, n int) emu.Time {
	if c == nil || (c.perPacket == 0 && c.perByte == 0) {
		return now
	}
	cost := emu.Time(c.perPacket + c.perByte*float64(n))
	c.busyUntil = max(now, c.busyUntil) + cost
	c.busy += cost
	return c.busyUntil
}

// Busy is the total virtual time the core spent on packets.
func (c *CPU) Busy() emu.Time {
	if c == nil {
		return 0
	}
	return c.busy
}
