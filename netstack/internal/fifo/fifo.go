// Package fifo is the queue the link endpoints keep frames and sequence ranges in.
// Above the bus: a helper of the network stacks, on no side of it.
//
// It is the queue the link endpoints keep frames and sequence
// ranges in.
package fifo

// Queue is a queue that pops from the front in O(1): the consumed head is
// skipped, and the slice is compacted on a later push once most of it is
// consumed, so TX completion stays O(1) per frame however full the ring is.
type Queue[T any] struct {
	items []T
	head  int
}

// Push adds v at the back.
func (q *Queue[T]) Push(v T) {
	if q.head > 64 && 2*q.head > len(q.items) {
		q.items = q.items[:copy(q.items, q.items[q.head:])]
		q.head = 0
	}
	q.items = append(q.items, v)
}

// Live is the queue's content, oldest first (valid until the next Push or
// RemoveAt).
func (q *Queue[T]) Live() []T { return q.items[q.head:] }

// Len is the number of items queued.
func (q *Queue[T]) Len() int { return len(q.items) - q.head }

// PopFront removes the oldest n items (fewer if there are fewer) and returns
// them (valid until the next Push or RemoveAt).
func (q *Queue[T]) PopFront(n int) []T {
	n = min(n, q.Len())
	out := q.items[q.head : q.head+n]
	q.head += n
	return out
}

// Reset empties the queue, keeping its storage.
func (q *Queue[T]) Reset() { q.items, q.head = q.items[:0], 0 }

// RemoveAt removes the i-th live item (0 is the oldest).
func (q *Queue[T]) RemoveAt(i int) {
	if i == 0 {
		q.head++
		return
	}
	at := q.head + i
	q.items = append(q.items[:at], q.items[at+1:]...)
}
