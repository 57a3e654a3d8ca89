package fifo

import (
	"fmt"
	"testing"
)

// TestFIFO: pops, removals anywhere and compaction keep the order, whatever
// the mix.
func TestFIFO(t *testing.T) {
	var q Queue[int]
	var model []int
	next := 0
	for step := range 5000 {
		switch step % 7 {
		case 0, 1, 2, 3:
			q.Push(next)
			model = append(model, next)
			next++
		case 4, 5:
			n := step % 5
			got := fmt.Sprint(q.PopFront(n))
			k := min(n, len(model))
			if want := fmt.Sprint(model[:k]); got != want {
				t.Fatalf("step %d: popFront(%d) = %s, want %s", step, n, got, want)
			}
			model = model[k:]
		case 6:
			if len(model) > 0 {
				i := step % len(model)
				q.RemoveAt(i)
				model = append(model[:i:i], model[i+1:]...)
			}
		}
		if got, want := fmt.Sprint(q.Live()), fmt.Sprint(model); got != want || q.Len() != len(model) {
			t.Fatalf("step %d: queue %s (len %d), want %s", step, got, q.Len(), want)
		}
	}
	if len(q.items) > 2*q.Len()+200 {
		t.Fatalf("backing slice %d for %d live items: not compacted", len(q.items), q.Len())
	}
	q.Reset()
	if q.Len() != 0 || len(q.Live()) != 0 {
		t.Fatalf("after reset: %d live", q.Len())
	}
}
