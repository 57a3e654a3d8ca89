package iperf3

import "net"

// A test's activities (control reader, data streams, timers, the accept loop)
// never hand results over on channels: each posts a message to the test's
// inbox and the test's loop takes them one at a time, in the order posted.
// On the deterministic engine that order is the same on every run.

type (
	ctxDone         struct{}            // the caller's context ended
	idleFired       struct{}            // the idle watchdog gave up
	timersDue       struct{}            // a timeline deadline may be due
	xferFailed      struct{ err error } // a data stream broke
	faultDue        struct{}            // a held stream error's grace ran out
	limitReached    struct{}            // receivers saw the -n total arrive
	sendersFinished struct{}            // every sending stream returned, none failed
	endDue          struct{}            // the senders had endGrace to finish their blocks
	accepted        struct{ conn net.Conn }
	acceptFailed    struct{ err error }
	// testMsg is a server test's message, tagged with its test so that a
	// late one from a finished test is recognised and dropped.
	testMsg struct {
		t *serverTest
		v any
	}
)
