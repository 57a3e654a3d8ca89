package iperf3

import "fmt"

// Adaptive unit formatting, a port of unit_snprintf's 'A' and 'a' formats
// (src/units.c): bytes step by 1024 (so "MBytes" are MiB), bits by 1000, and
// the number takes four places: < 9.995 -> "%4.2f", < 99.95 -> "%4.1f",
// otherwise "%4.0f". Callers append the "s" ("MBytes", "Mbits/sec").
var (
	byteLabels = [...]string{"Byte", "KByte", "MByte", "GByte", "TByte"}
	bitLabels  = [...]string{"bit", "Kbit", "Mbit", "Gbit", "Tbit"}
)

// formatBytes renders a byte count with format 'A'.
func formatBytes(n float64) string { return adaptive(n, 1024, byteLabels[:]) }

// formatBits renders a byte rate as bits with format 'a'.
func formatBits(bytesPerSecond float64) string {
	return adaptive(bytesPerSecond*8, 1000, bitLabels[:])
}

func adaptive(n, step float64, labels []string) string {
	unit := 0
	for t := n; t >= step && unit < len(labels)-1; unit++ {
		t /= step
	}
	// Scale by a factor built the way C's constant table is (1.0 / 1000 /
	// 1000 ..., each step rounded), not by the repeated quotient, so values
	// at a rounding boundary print exactly as iperf3 prints them.
	factor := 1.0
	for i := 0; i < unit; i++ {
		factor /= step
	}
	n *= factor
	format := "%4.0f %s"
	switch {
	case n < 9.995:
		format = "%4.2f %s"
	case n < 99.95:
		format = "%4.1f %s"
	}
	return fmt.Sprintf(format, n, labels[unit])
}
