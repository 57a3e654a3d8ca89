package iperf3

import (
	"encoding/json"
	"testing"
)

// TestFormatUnits: formatBytes (powers of 1024) and formatBits (powers of
// 1000, of bytes per second times 8), with 3.12's four places.
func TestFormatUnits(t *testing.T) {
	tests := []struct {
		format func(float64) string
		n      float64
		want   string
	}{
		{formatBytes, 0, "0.00 Byte"},
		{formatBytes, 1023, "1023 Byte"},
		{formatBytes, 1024, "1.00 KByte"},
		{formatBytes, 10234, "9.99 KByte"},            // 9.9941 KiB
		{formatBytes, 10235, "10.0 KByte"},            // 9.9951 KiB: at 9.995 the next format takes over
		{formatBytes, 102348, "99.9 KByte"},           // 99.949 KiB
		{formatBytes, 131072, " 128 KByte"},           // "%4.0f": four places
		{formatBytes, 1048576 * 1023.6, "1024 MByte"}, // 1000-1023.x stays in the smaller unit
		{formatBytes, 1506017280, "1.40 GByte"},       // recorded forward run: "1.40 GBytes"
		{formatBytes, 1 << 40, "1.00 TByte"},
		{formatBits, 0, "0.00 bit"},
		{formatBits, 999.0 / 8, " 999 bit"},
		{formatBits, 1000.0 / 8, "1.00 Kbit"},
		{formatBits, 118750000, " 950 Mbit"},
		{formatBits, 125000000, "1.00 Gbit"},
		{formatBits, 1506017280 / 1.000625, "12.0 Gbit"}, // recorded forward run: "12.0 Gbits/sec"
	}
	for i, tc := range tests {
		if got := tc.format(tc.n); got != tc.want {
			t.Errorf("case %d: format(%v) = %q, want %q", i, tc.n, got, tc.want)
		}
	}
}

// TestFixedUnits: -f's fixed units (unit_snprintf with k m g t, K M G T):
// the number may pass four places, lower case counts bits.
func TestFixedUnits(t *testing.T) {
	tests := []struct {
		f    byte
		n    float64 // bytes per second
		want string
	}{
		{'k', 100129196.3 / 8, "100129 Kbit"}, // 3.12 at -u -b 100M -f k: "100129 Kbits/sec"
		{'m', 118750000, " 950 Mbit"},
		{'m', 1250, "0.01 Mbit"},
		{'g', 118750000, "0.95 Gbit"},
		{'t', 125e9, "1.00 Tbit"},
		{'K', 1024 * 99.94, "99.9 KByte"},
		{'M', 95.4 * 1048576, "95.4 MByte"}, // 3.12 at -f M: "95.4 MBytes/sec"
		{'M', 5000 * 1048576, "5000 MByte"},
		{'G', 1 << 30, "1.00 GByte"},
		{'T', 1 << 30, "0.00 TByte"},
		{'a', 125000000, "1.00 Gbit"}, // the default
		{'A', 1 << 20, "1.00 MByte"},
	}
	for _, tc := range tests {
		if got := unitFormat(tc.n, tc.f); got != tc.want {
			t.Errorf("-f %c: unitFormat(%v) = %q, want %q", tc.f, tc.n, got, tc.want)
		}
	}
}

func TestParseCount(t *testing.T) {
	tests := []struct {
		in      string
		v       int64
		avail   bool
		wantErr bool
	}{
		{"0", 0, true, false},
		{"131072", 131072, true, false},
		{"-1", 0, false, false},
		{"18446744073709551615", 0, false, false}, // 3.12's -1
		{"9223372036854775807", 1<<63 - 1, true, false},
		{"9223372036854775808", 0, false, false},
		{"2.9", 2, true, false},
		{"1e3", 1000, true, false},
		{"1e400", 0, false, false},
		{"abc", 0, false, true},
	}
	for _, tc := range tests {
		v, avail, err := parseCount(json.Number(tc.in))
		if v != tc.v || avail != tc.avail || (err != nil) != tc.wantErr {
			t.Errorf("parseCount(%s) = %d, %v, %v; want %d, %v, error %v", tc.in, v, avail, err, tc.v, tc.avail, tc.wantErr)
		}
	}
}
