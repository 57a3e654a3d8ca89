package ether

import "mesonemu/emu"

// WireBits is how many bit times a frame of frameLenWithFCS bytes occupies on the
// line: preamble and SFD, the frame, and the inter-frame gap before the next one
// may start. Negative lengths count as zero.
func WireBits(frameLenWithFCS int) int64 {
	if frameLenWithFCS < 0 {
		frameLenWithFCS = 0
	}
	return int64(PreambleSFDLen+frameLenWithFCS+IFGLen) * 8
}

// WireTime is the time a frame of frameLenWithFCS bytes occupies a line running at
// speedMbps, gap included: (8 + len + 12) * 8 bits at the rate. At 10, 100 and
// 1000 Mbit/s a bit lasts a whole number of nanoseconds, so the result is exact;
// other rates round up to the next nanosecond. A non-positive rate (no link)
// yields 0: callers check the link before timing a frame.
func WireTime(frameLenWithFCS int, speedMbps int) emu.Time {
	return BitTime(WireBits(frameLenWithFCS), speedMbps)
}

// BitTime is the time bits take at speedMbps, rounded up to a whole nanosecond;
// 0 for a non-positive rate.
func BitTime(bits int64, speedMbps int) emu.Time {
	if speedMbps <= 0 || bits <= 0 {
		return 0
	}
	// bits / (speed * 1e6 bit/s) in ns = bits * 1000 / speed.
	rate := int64(speedMbps)
	return emu.Time((bits*1000 + rate - 1) / rate)
}
