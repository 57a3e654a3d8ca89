// Package dql is Linux's dynamic queue limits (lib/dynamic_queue_limits.c, BQL).
// Guest side: the stmmac driver's TX queue limit, pure computation.
//
// It is Linux's dynamic queue limits (lib/dynamic_queue_limits.c, the
// algorithm behind byte queue limits, BQL): how many bytes a driver's TX queue
// may hold before the stack stops handing it more. The limit grows when the
// queue ran dry between two completions while data was waiting above it, and
// shrinks by the smallest slack seen over a hold time (one second) while the
// queue stayed busy. Counts are 32-bit and wrap, as Linux's unsigned ints do.
package dql

import "mesonemu/emu"

// Bounds of Linux v5.5 (include/linux/dynamic_queue_limits.h).
const (
	maxObject = ^uint32(0) / 16
	maxLimit  = ^uint32(0)/2 - maxObject
)

// Limits is one queue's state (struct dql).
type Limits struct {
	queued, completed  uint32 // bytes ever queued / completed
	adjLimit           uint32 // limit + completed: queued may reach it
	limit              uint32
	lastObj, prevLast  uint32 // bytes of the latest queueing, and of the one before the last completion
	prevQueued         uint32 // queued at the last completion
	prevOver           uint32 // how far over the limit the queue was at the last completion
	lowestSlack        uint32
	slackStart         int64 // jiffies
	slackHold          int64 // jiffies
	tick               emu.Time
	minLimit, maxLimit uint32
}

// New is a queue limit for a kernel with hz ticks per second (dql_init with
// slack_hold_time = HZ); hz <= 0 counts in microseconds.
func New(hz int) *Limits {
	l := &Limits{minLimit: 0, maxLimit: maxLimit, tick: emu.Microsecond, slackHold: 1_000_000}
	if hz > 0 {
		l.tick, l.slackHold = emu.Second/emu.Time(hz), int64(hz)
	}
	l.Reset(0)
	return l
}

// Reset forgets the queue's history (dql_reset, netdev_tx_reset_queue): the
// limit goes back to its minimum.
func (l *Limits) Reset(now emu.Time) {
	l.limit = l.minLimit
	l.queued, l.completed, l.adjLimit = 0, 0, l.minLimit
	l.lastObj, l.prevLast, l.prevQueued, l.prevOver = 0, 0, 0, 0
	l.lowestSlack = ^uint32(0)
	l.slackStart = l.jiffies(now)
}

// Limit is the current limit in bytes.
func (l *Limits) Limit() uint32 { return l.limit }

// InFlight is how many queued bytes are not completed yet.
func (l *Limits) InFlight() uint32 { return l.queued - l.completed }

// Queued records n bytes handed to the queue (dql_queued); n is at most a
// frame here, far below Linux's DQL_MAX_OBJECT.
func (l *Limits) Queued(n uint32) {
	l.lastObj = min(n, maxObject)
	l.queued += l.lastObj
}

// Avail is how many more bytes fit (dql_avail); negative means the stack must
// stop the queue (__QUEUE_STATE_STACK_XOFF).
func (l *Limits) Avail() int { return int(int32(l.adjLimit - l.queued)) }

func (l *Limits) jiffies(now emu.Time) int64 { return int64(now / l.tick) }

// posDiff is Linux's POSDIFF: a - b when positive as a signed difference, else 0.
func posDiff(a, b uint32) uint32 {
	if int32(a-b) > 0 {
		return a - b
	}
	return 0
}

// Completed records n bytes the device finished (dql_completed) and adapts the
// limit. n never exceeds what is in flight; more is clamped.
func (l *Limits) Completed(n uint32, now emu.Time) {
	n = min(n, l.InFlight())
	done := l.completed + n
	limit := l.limit
	over := posDiff(l.queued-l.completed, limit) // over the limit before this completion
	inProgress := l.queued - done
	prevInProgress := l.prevQueued - l.completed
	allPrevDone := int32(done-l.prevQueued) >= 0

	switch {
	case (over != 0 && inProgress == 0) || (l.prevOver != 0 && allPrevDone):
		// Starved: the queue ran empty while the stack held data back. Grow by
		// what was sent and completed since the last completion, plus the
		// previous excess.
		limit += posDiff(done, l.prevQueued) + l.prevOver
		l.slackStart = l.jiffies(now)
		l.lowestSlack = ^uint32(0)
	case inProgress != 0 && prevInProgress != 0 && !allPrevDone:
		// Busy all along: the slack is what exceeds twice the bytes completed
		// now (or the part of the last queueing beyond the previous excess);
		// after a hold time the smallest slack seen comes off the limit.
		slack := posDiff(limit+l.prevOver, 2*(done-l.completed))
		var lastSlack uint32
		if l.prevOver != 0 {
			lastSlack = posDiff(l.prevLast, l.prevOver)
		}
		slack = max(slack, lastSlack)
		l.lowestSlack = min(l.lowestSlack, slack)
		if j := l.jiffies(now); j > l.slackStart+l.slackHold {
			limit = posDiff(limit, l.lowestSlack)
			l.slackStart = j
			l.lowestSlack = ^uint32(0)
		}
	}
	limit = min(max(limit, l.minLimit), l.maxLimit)
	if limit != l.limit {
		l.limit = limit
		over = 0
	}
	l.adjLimit = limit + done
	l.prevOver = over
	l.prevLast = l.lastObj
	l.completed = done
	l.prevQueued = l.queued
}
