package link

import (
	"errors"
	"sync"

	"mesonemu/netstack/internal/fifo"
)

// Qdisc is the device's queue discipline: a FIFO (Linux's pfifo_fast with
// one band, as for a single TCP flow class) in front of a lower endpoint that
// takes one frame at a time. It never refuses a frame: gVisor's writers must
// not block (the engine's barrier waits for them), and its queue is bounded
// by the TCP send buffers above it.
type Qdisc struct {
	lower Endpoint

	mu     sync.Mutex
	closed bool
	q      fifo.Queue[[]byte]
	busy   bool // the lower endpoint said ErrBusy; wait for its TxReady
	errors uint64
}

// NewQdisc puts a qdisc on lower.
func NewQdisc(lower Endpoint) *Qdisc {
	q := &Qdisc{lower: lower}
	lower.SetTxReady(q.ready)
	return q
}

// Transmit implements Endpoint: the frame joins the queue.
func (q *Qdisc) Transmit(frame []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	q.q.Push(frame)
	q.pumpLocked()
	return nil
}

// pumpLocked hands frames down until the lower endpoint is busy.
func (q *Qdisc) pumpLocked() {
	for !q.closed && !q.busy && q.q.Len() > 0 {
		err := q.lower.Transmit(q.q.Live()[0])
		if errors.Is(err, ErrBusy) {
			q.busy = true
			return
		}
		if err != nil {
			q.errors++
		}
		q.q.PopFront(1)
	}
}

func (q *Qdisc) ready() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busy = false
	q.pumpLocked()
}

// SetTxReady implements Endpoint: a qdisc is never busy.
func (q *Qdisc) SetTxReady(func()) {}

// SetReceiver implements Endpoint: received frames do not pass a qdisc.
func (q *Qdisc) SetReceiver(fn func([]byte)) { q.lower.SetReceiver(fn) }

// GivesFrames implements FrameGiver: received frames pass straight up.
func (q *Qdisc) GivesFrames() bool { return GivesFrames(q.lower) }

// Errors counts frames the lower endpoint refused for good.
func (q *Qdisc) Errors() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.errors
}

// Len is how many frames wait in the queue.
func (q *Qdisc) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.q.Len()
}

// Close stops the queue and returns how many frames it still held.
func (q *Qdisc) Close() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	n := q.q.Len()
	q.q.Reset()
	return n
}

var _ Endpoint = (*Qdisc)(nil)
