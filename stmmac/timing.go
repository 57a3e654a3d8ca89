package stmmac

import "mesonemu/emu"

// DMA bus timing. Assumption (not in the reference): a 32-bit AXI data path at
// 250 MHz moves 4 bytes per 4 ns beat, and every burst pays 4 cycles of latency.
const (
	busBeat        emu.Time = 4 * emu.Nanosecond
	busBeatBytes            = 4
	busLatency     emu.Time = 4 * busBeat
	descFetchTime           = busLatency + descBytes/busBeatBytes*busBeat // 32 ns
	preambleBytes           = 8                                           // preamble + SFD
	fcsLen                  = 4
	minFrameNoFCS           = 60
	ifgDefaultBits          = 96
)

// bufferReadTime is the bus time to read n bytes of one buffer.
func bufferReadTime(n int) emu.Time {
	return busLatency + emu.Time((n+busBeatBytes-1)/busBeatBytes)*busBeat
}

// bitTime is the duration of one bit at the MAC's configured speed (PS/FES).
func (c *MAC) bitTime() emu.Time {
	switch c.LineRate() {
	case 1000:
		return 1 * emu.Nanosecond
	case 100:
		return 10 * emu.Nanosecond
	}
	return 100 * emu.Nanosecond
}

// ifgBits is the programmed inter-frame gap: 96 bit times minus 8 per IFG step.
func (c *MAC) ifgBits() emu.Time {
	ifg := cfgIFG.Get(c.macRegs.Get(offMACConfig))
	return emu.Time(ifgDefaultBits - 8*ifg)
}
