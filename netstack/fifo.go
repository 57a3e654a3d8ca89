package netstack

// fifo is a queue that pops from the front in O(1): the consumed head is
// skipped, and the slice is compacted on a later push once most of it is
// consumed, so TX completion stays O(1) per frame however full the ring is.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) push(v T) {
	if q.head > 64 && 2*q.head > len(q.items) {
		q.items = q.items[:copy(q.items, q.items[q.head:])]
		q.head = 0
	}
	q.items = append(q.items, v)
}

// live is the queue's content, oldest first (valid until the next push or
// removeAt).
func (q *fifo[T]) live() []T { return q.items[q.head:] }

func (q *fifo[T]) len() int { return len(q.items) - q.head }

// popFront removes the oldest n items (fewer if there are fewer) and returns
// them (valid until the next push or removeAt).
func (q *fifo[T]) popFront(n int) []T {
	n = min(n, q.len())
	out := q.items[q.head : q.head+n]
	q.head += n
	return out
}

// reset empties the queue, keeping its storage.
func (q *fifo[T]) reset() { q.items, q.head = q.items[:0], 0 }

// removeAt removes the i-th live item (0 is the oldest).
func (q *fifo[T]) removeAt(i int) {
	if i == 0 {
		q.head++
		return
	}
	at := q.head + i
	q.items = append(q.items[:at], q.items[at+1:]...)
}
