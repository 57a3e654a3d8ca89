package iperf3

import (
	"fmt"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// DefaultTimestampFormat is 3.12's --timestamps format (TIMESTAMP_FORMAT).
const DefaultTimestampFormat = "%c "

// timestampBuffer is 3.12's iperf_timestr: a prefix is at most 99 bytes.
const timestampBuffer = 100

// LineStamps is --timestamps[=FORMAT]: like 3.12's iperf_printf, each
// printed piece of text output starts with strftime(Format) of the time
// (not JSON, which 3.12 writes apart from iperf_printf).
//
// The time is the test clock's, anchored at a wall-clock instant: Anchor
// stands for the clock's time when Run or Serve starts, and the stamp moves
// on with the clock from there. Under mesonemu's engine the clock is
// virtual, so a line reads "when it would have been printed" had the
// emulated run started at Anchor: today's date, as a user expects, yet the
// stamps of a run are a function of its seed and its Anchor alone. The zone
// is Anchor's (time.Local for time.Now(), as 3.12 follows the host's TZ);
// tests fix Anchor to get the same bytes every time.
type LineStamps struct {
	On     bool
	Format string    // "" with On prints an empty prefix, as 3.12 does
	Anchor time.Time // zero: time.Now() when the run starts
}

// lineStamper turns the test clock into the prefix.
type lineStamper struct {
	format string
	anchor time.Time
	start  time.Time // the clock's time at anchor
	clock  tcpip.Clock
}

// newLineStamper is nil when stamps are off.
func newLineStamper(ls LineStamps, clock tcpip.Clock) *lineStamper {
	if !ls.On {
		return nil
	}
	if ls.Anchor.IsZero() {
		ls.Anchor = time.Now()
	}
	return &lineStamper{format: ls.Format, anchor: ls.Anchor, start: clock.Now(), clock: clock}
}

// now is the prefix for text printed now; "" for a nil stamper.
func (l *lineStamper) now() string {
	if l == nil {
		return ""
	}
	return l.at(l.format)
}

// at formats the current stamp time with format, cut to 3.12's buffer;
// "" for a nil stamper.
func (l *lineStamper) at(format string) string {
	if l == nil {
		return ""
	}
	t := l.anchor.Add(l.clock.Now().Sub(l.start)).Truncate(time.Second) // 3.12 stamps time(2) seconds
	s := strftime(format, t)
	if len(s) >= timestampBuffer {
		s = s[:timestampBuffer-1]
	}
	return s
}

// checkTimestampFormat refuses a format whose expansion cannot fit 3.12's
// buffer (strftime would leave it undefined there).
func checkTimestampFormat(format string) error {
	if n := len(strftime(format, time.Now())); n >= timestampBuffer {
		return fmt.Errorf("format expands to %d bytes, more than 3.12's %d", n, timestampBuffer-1)
	}
	return nil
}
