package coop

import (
	"testing"
	"time"
)

// TestInboxKeepsPostOrder: messages posted from several goroutines arrive in
// the order posted, Post never blocks, TryRecv on an empty inbox says so.
func TestInboxKeepsPostOrder(t *testing.T) {
	b := NewInbox[int](nil)
	if _, ok := b.TryRecv(); ok {
		t.Fatal("TryRecv on an empty inbox returned a message")
	}
	for i := range 1000 {
		b.Post(i) // nobody receives yet: must not block
	}
	if n := b.Len(); n != 1000 {
		t.Fatalf("Len %d, want 1000", n)
	}
	for i := range 1000 {
		if v := b.Recv(); v != i {
			t.Fatalf("message %d is %d", i, v)
		}
	}
	done := make(chan int)
	go func() { done <- b.Recv() }()
	time.Sleep(10 * time.Millisecond)
	b.Post(42)
	select {
	case v := <-done:
		if v != 42 {
			t.Fatalf("a waiting Recv got %d, want 42", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting Recv was not woken by Post")
	}
}

// TestGroupWaitsForEveryActivity: Wait returns only once every activity
// started with Go has returned, and at once for an empty group.
func TestGroupWaitsForEveryActivity(t *testing.T) {
	g := NewGroup(nil)
	g.Wait()
	release := NewInbox[struct{}](nil)
	finished := make(chan int, 3)
	for i := range 3 {
		g.Go(nil, func() {
			release.Recv()
			finished <- i
		})
	}
	waited := make(chan struct{})
	go func() { g.Wait(); close(waited) }()
	for i := range 3 {
		select {
		case <-waited:
			t.Fatalf("Wait returned with %d of 3 activities still running", 3-i)
		case <-time.After(10 * time.Millisecond):
		}
		release.Post(struct{}{})
		<-finished
	}
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after every activity finished")
	}
}

// TestWakerKeepsOneWake: a Wake with nobody waiting is kept for the next Wait,
// and several are kept as one.
func TestWakerKeepsOneWake(t *testing.T) {
	w := Host.NewWaker()
	w.Wake()
	w.Wake()
	w.Wait() // the kept wake
	waited := make(chan struct{})
	go func() { w.Wait(); close(waited) }()
	select {
	case <-waited:
		t.Fatal("two wakes were kept as two")
	case <-time.After(20 * time.Millisecond):
	}
	w.Wake()
	<-waited
}
