// Package coop is the concurrency (activities, wakers) of code that may run on the engine.
// The medium both sides share, with emu: neither hardware nor guest.
//
// It is the concurrency of a program that may run on mesonemu's
// deterministic engine: activities, and wakers they block on. On the host
// (Host) an activity is a goroutine and a waker a one-slot channel; on the
// engine an activity is a task that runs only while every other piece of
// emulated code is stopped, and blocking hands control back to the engine.
// A program that blocks only on its Wakers, its connections and its clock's
// timers then runs the same way, bit for bit, on every host.
//
// Rule for code written against it: never block on a Go channel, a
// sync.WaitGroup or a sync.Cond that another activity releases; use a Waker,
// an Inbox or a Group instead. Mutexes are fine when never held across a
// blocking call.
package coop

import "sync"

// Sched starts activities and makes wakers.
type Sched interface {
	// Go starts fn as a new activity.
	Go(fn func())
	// NewWaker makes a waker for one waiting activity at a time.
	NewWaker() Waker
}

// Waker is a binary semaphore: Wake from anywhere (another activity, a timer
// callback, a network stack), Wait from the one activity that owns it. A Wake
// with nobody waiting is kept for the next Wait; several are kept as one.
type Waker interface {
	Wake()
	Wait()
}

// Host is the scheduler of ordinary Go: goroutines and channels.
var Host Sched = hostSched{}

type hostSched struct{}

func (hostSched) Go(fn func())    { go fn() }
func (hostSched) NewWaker() Waker { return make(hostWaker, 1) }

type hostWaker chan struct{}

func (w hostWaker) Wake() {
	select {
	case w <- struct{}{}:
	default:
	}
}

func (w hostWaker) Wait() { <-w }

// Or returns s, or Host when s is nil.
func Or(s Sched) Sched {
	if s == nil {
		return Host
	}
	return s
}

// Inbox is an unbounded queue of messages to one receiving activity: Post
// never blocks, Recv waits for the next message in the order posted.
type Inbox[T any] struct {
	w  Waker
	mu sync.Mutex
	q  []T
}

// NewInbox makes an inbox whose receiver blocks through s.
func NewInbox[T any](s Sched) *Inbox[T] { return &Inbox[T]{w: Or(s).NewWaker()} }

// Post appends v; safe from any goroutine.
func (b *Inbox[T]) Post(v T) {
	b.mu.Lock()
	b.q = append(b.q, v)
	b.mu.Unlock()
	b.w.Wake()
}

// Recv takes the oldest message, waiting for one if there is none.
func (b *Inbox[T]) Recv() T {
	for {
		if v, ok := b.TryRecv(); ok {
			return v
		}
		b.w.Wait()
	}
}

// TryRecv takes the oldest message if there is one.
func (b *Inbox[T]) TryRecv() (T, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var zero T
	if len(b.q) == 0 {
		return zero, false
	}
	v := b.q[0]
	b.q[0] = zero
	b.q = b.q[1:]
	return v, true
}

// Len is how many messages wait.
func (b *Inbox[T]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.q)
}

// Group waits for a collection of activities to finish, like sync.WaitGroup,
// with one waiting activity at a time.
type Group struct {
	w  Waker
	mu sync.Mutex
	n  int
}

// NewGroup makes a group whose waiter blocks through s.
func NewGroup(s Sched) *Group { return &Group{w: Or(s).NewWaker()} }

// Add adds delta to the count of running activities.
func (g *Group) Add(delta int) {
	g.mu.Lock()
	g.n += delta
	zero := g.n <= 0
	g.mu.Unlock()
	if zero {
		g.w.Wake()
	}
}

// Done is Add(-1).
func (g *Group) Done() { g.Add(-1) }

// Wait blocks until the count is zero.
func (g *Group) Wait() {
	for {
		g.mu.Lock()
		n := g.n
		g.mu.Unlock()
		if n <= 0 {
			return
		}
		g.w.Wait()
	}
}

// Go runs fn as an activity counted in g.
func (g *Group) Go(s Sched, fn func()) {
	g.Add(1)
	Or(s).Go(func() {
		defer g.Done()
		fn()
	})
}
