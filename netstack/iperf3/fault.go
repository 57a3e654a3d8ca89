package iperf3

import (
	"sync"
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

// fault holds the first data-stream error for faultGrace.
type fault struct {
	err   error
	ready chan struct{}
	once  sync.Once
	timer tcpip.Timer
}

func newFault() *fault { return &fault{ready: make(chan struct{})} }

// hold keeps err (only the first) and starts the grace period.
func (f *fault) hold(clock tcpip.Clock, err error) {
	if f.err != nil {
		return
	}
	f.err = err
	f.timer = clock.AfterFunc(faultGrace, func() { f.once.Do(func() { close(f.ready) }) })
}

func (f *fault) stop() {
	if f.timer != nil {
		f.timer.Stop()
	}
}
