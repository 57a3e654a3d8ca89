package iperf3

import (
	"cmp"
	"fmt"
	"strings"
)

// Unit formatting, a port of unit_snprintf (src/units.c): bytes step by
// 1024 (so "MBytes" are MiB), bits by 1000, and the number takes four places: < 9.995 -> "%4.2f", < 99.95 -> "%4.1f",
// otherwise "%4.0f". Callers append the "s" ("MBytes", "Mbits/sec").
var (
	byteLabels = [...]string{"Byte", "KByte", "MByte", "GByte", "TByte"}
	bitLabels  = [...]string{"bit", "Kbit", "Mbit", "Gbit", "Tbit"}
)

// formatBytes renders a byte count with format 'A'.
func formatBytes(n float64) string { return unitFormat(n, 'A') }

// formatBits renders a byte rate as bits with format 'a'.
func formatBits(bytesPerSecond float64) string { return unitFormat(bytesPerSecond, 'a') }

// formatRate renders a byte rate in -f's unit: 0 or 'a' adaptive bits (the
// default), k m g t fixed bits, K M G T fixed bytes (3.12 prints every
// bitrate with settings->unit_format).
func (s *session) formatRate(bytesPerSecond float64) string {
	return unitFormat(bytesPerSecond, cmp.Or(s.unit, 'a'))
}

// unitFormat is unit_snprintf: a lower-case format counts bits (the number
// times 8, steps of 1000), an upper-case one bytes (steps of 1024); B K M G T
// fix the unit, A picks it.
func unitFormat(n float64, f byte) string {
	labels, step := byteLabels[:], 1024.0
	if f < 'A' || f > 'Z' {
		n, labels, step = n*8, bitLabels[:], 1000
	}
	unit := strings.IndexByte("BKMGT", f&^0x20) // upper case
	if unit < 0 {                               // 'A', 'a' and anything else: adaptive
		unit = 0
		for t := n; t >= step && unit < len(labels)-1; unit++ {
			t /= step
		}
	}
	// Scale by a factor built the way C's constant table is (1.0 / 1000 /
	// 1000 ..., each step rounded), not by the repeated quotient, so values
	// at a rounding boundary print exactly as iperf3 prints them.
	factor := 1.0
	for i := 0; i < unit; i++ {
		factor /= step
	}
	n *= factor
	format := "%4.0f %s" // also for 1000 or more, which only a fixed unit prints
	switch {
	case n < 9.995:
		format = "%4.2f %s"
	case n < 99.95:
		format = "%4.1f %s"
	}
	return fmt.Sprintf(format, n, labels[unit])
}
