// Package pace releases the real-time engine's events on the wall clock to
// tens of microseconds. Go's timers cannot: the runtime's poller sleeps in
// whole milliseconds, so an idle process wakes a 257 us timer about 1 ms late
// (docs/decisions.md has the measurement). A Pacer sleeps in the kernel on an
// absolute CLOCK_MONOTONIC deadline instead, and wakes early when Wake is
// called (a new, earlier event).
//
// It is Linux-only; New elsewhere returns ErrUnsupported and the engine falls
// back to Go's timers.
package pace

import (
	"errors"
	"math"
	"time"
)

// ErrUnsupported is New's error on a system without timerfd and epoll.
var ErrUnsupported = errors.New("pace: no timerfd on this system")

// Recorder accumulates how late events ran: count, mean, max and a
// histogram for the p99. It is not safe for concurrent use.
type Recorder struct {
	n    uint64
	sum  time.Duration
	max  time.Duration
	hist [histLen]uint64
}

// Buckets: 1 us wide to 2 ms, then 100 us wide to 100 ms, then one for the rest.
const (
	fineUs   = 2000
	coarseUs = 100
	histLen  = fineUs + (100_000-fineUs)/coarseUs + 1
)

func bucket(d time.Duration) int {
	us := int(d / time.Microsecond)
	switch {
	case us < 0:
		return 0
	case us < fineUs:
		return us
	}
	return min(fineUs+(us-fineUs)/coarseUs, histLen-1)
}

// bucketTop is the upper edge of bucket i: a percentile is reported as the
// edge it does not exceed.
func bucketTop(i int) time.Duration {
	if i < fineUs {
		return time.Duration(i+1) * time.Microsecond
	}
	return time.Duration(fineUs+(i-fineUs+1)*coarseUs) * time.Microsecond
}

// Add records one event d late (negative: early, counted as 0).
func (r *Recorder) Add(d time.Duration) {
	d = max(d, 0)
	r.n++
	r.sum += d
	r.max = max(r.max, d)
	r.hist[bucket(d)]++
}

// Max is the latest any recorded event ran.
func (r *Recorder) Max() time.Duration { return r.max }

// Summary is a Recorder's numbers, in nanoseconds for JSON.
type Summary struct {
	Count  uint64 `json:"count"`
	MeanNs int64  `json:"mean_ns"`
	P99Ns  int64  `json:"p99_ns"` // upper edge of the bucket (1 us below 2 ms)
	MaxNs  int64  `json:"max_ns"`
}

// Summary computes the count, mean, p99 and max.
func (r *Recorder) Summary() Summary {
	s := Summary{Count: r.n, MaxNs: int64(r.max)}
	if r.n == 0 {
		return s
	}
	s.MeanNs = int64(r.sum) / int64(r.n)
	want := uint64(math.Ceil(0.99 * float64(r.n)))
	var seen uint64
	for i, c := range r.hist {
		if seen += c; seen >= want {
			s.P99Ns = min(int64(bucketTop(i)), s.MaxNs)
			break
		}
	}
	return s
}
