//go:build !linux

package pace

import "time"

// Pacer is Linux-only; elsewhere New refuses.
type Pacer struct{}

// New returns ErrUnsupported: there is no timerfd here.
func New() (*Pacer, error) { return nil, ErrUnsupported }

var start = time.Now()

// Now is a monotonic clock in nanoseconds.
func Now() int64 { return int64(time.Since(start)) }

// Sleep is never reached (New refuses).
func (p *Pacer) Sleep(int64, func() bool) (bool, error) { return false, ErrUnsupported }

// Wake does nothing.
func (p *Pacer) Wake() {}

// Close does nothing.
func (p *Pacer) Close() error { return nil }

// PollEvery is how often a busy engine looks at the watched fds (ns).
const PollEvery = 25_000

// Watch refuses: there is no epoll here.
func (p *Pacer) Watch(int, func() bool) error { return ErrUnsupported }

// Unwatch does nothing.
func (p *Pacer) Unwatch(int) error { return nil }

// Poll does nothing.
func (p *Pacer) Poll(int64) (bool, error) { return false, nil }
