package iperf3

import (
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// faultGrace is how long a data-stream error waits for the control
// connection to explain it. A peer that aborts (CLIENT_TERMINATE,
// SERVER_TERMINATE, SERVER_ERROR) writes its reason and then drops the data
// streams, and the broken stream can be noticed first. iperf3's loop reads
// the control socket before the data sockets, so its reason wins; so should
// ours. Measured on the test clock.
const faultGrace = time.Second

// fault holds the first data-stream error for faultGrace, then posts faultDue.
type fault struct {
	err   error
	post  func(any)
	timer tcpip.Timer
}

func newFault(post func(any)) *fault { return &fault{post: post} }

// hold keeps err (only the first) and starts the grace period.
func (f *fault) hold(clock tcpip.Clock, err error) {
	if f.err != nil {
		return
	}
	f.err = err
	f.timer = clock.AfterFunc(faultGrace, func() { f.post(faultDue{}) })
}

func (f *fault) stop() {
	if f.timer != nil {
		f.timer.Stop()
	}
}
