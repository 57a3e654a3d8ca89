package iperf3

import (
	"testing"
	"time"
)

// TestStrftime: the expected strings are glibc's strftime (C locale) for the
// same instant, TZ=UTC and TZ=IST-5:30.
func TestStrftime(t *testing.T) {
	utc := time.Unix(1796162371, 0).UTC()
	ist := time.Unix(1796162371, 0).In(time.FixedZone("IST", 5*3600+1800))
	tests := []struct {
		format string
		t      time.Time
		want   string
	}{
		{"%c ", utc, "Tue Dec  1 21:59:31 2026 "},
		{"%a %b %d %e %H:%M:%S %Y", utc, "Tue Dec 01  1 21:59:31 2026"},
		{"%y %m %j %p %T", utc, "26 12 335 PM 21:59:31"},
		{"%D %F %s", utc, "12/01/26 2026-12-01 1796162371"},
		{"%z %Z %%", utc, "+0000 UTC %"},
		{"%A %B %h %I %l %k %C", utc, "Tuesday December Dec 09  9 21 20"},
		{"%u %w %U %W %V %G %g", utc, "2 2 48 48 49 2026 26"},
		{"%r %R %x %X", utc, "09:59:31 PM 21:59 12/01/26 21:59:31"},
		{"%P", utc, "pm"},
		{"%-d %-m %_H %03e %10s", utc, "1 12 21 001 1796162371"},
		{"%^a %#b %#p %#Z %^B", utc, "TUE DEC pm utc DECEMBER"},
		{"%Q %5q x%", utc, "%Q   %5q x%"},
		{"%Ey %Od", utc, "26 01"},
		{"%n%t", utc, "\n\t"},
		{"", utc, ""},
		{"%c %z %Z", ist, "Wed Dec  2 03:29:31 2026 +0530 IST"},
		{"%T %s", ist, "03:29:31 1796162371"},
	}
	for _, tc := range tests {
		if got := strftime(tc.format, tc.t); got != tc.want {
			t.Errorf("strftime(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
}
