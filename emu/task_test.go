package emu

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTasksRunOneAtATimeInVirtualTime: two tasks that sleep interleave by
// virtual time (ties in the order they were scheduled), and the run does not
// depend on the host's scheduling.
func TestTasksRunOneAtATimeInVirtualTime(t *testing.T) {
	for range 20 {
		m := NewMachine(1)
		var log []string
		running := 0
		task := func(name string, gap Time) func() {
			return func() {
				for i := range 3 {
					running++
					if running != 1 {
						t.Errorf("%d tasks running at once", running)
					}
					log = append(log, name+"@"+m.Now().Duration().String())
					running--
					if i < 2 {
						m.Sleep(gap)
					}
				}
			}
		}
		a := m.Go("a", task("a", 2*Millisecond))
		b := m.Go("b", task("b", 3*Millisecond))
		if err := m.Run(nil, func() bool { return a.Done() && b.Done() }); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(log, " ")
		want := "a@0s b@0s a@2ms b@3ms a@4ms b@6ms"
		if got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
		if m.Now() != 6*Millisecond {
			t.Fatalf("ended at %v", m.Now())
		}
	}
}

func TestWakerFromEventAndDeadline(t *testing.T) {
	m := NewMachine(1)
	w := m.NewWaker()
	var woke []Time
	var results []bool
	task := m.Go("waiter", func() {
		results = append(results, w.WaitUntil(10*Millisecond)) // woken at 4 ms
		woke = append(woke, m.Now())
		results = append(results, w.WaitUntil(m.Now()+Millisecond)) // times out
		woke = append(woke, m.Now())
		w.Wake() // kept for the next Wait
		results = append(results, w.WaitUntil(-1))
		woke = append(woke, m.Now())
	})
	m.GuestAfter(4*Millisecond, w.Wake)
	if err := m.Run(nil, task.Done); err != nil {
		t.Fatal(err)
	}
	if len(woke) != 3 || woke[0] != 4*Millisecond || woke[1] != 5*Millisecond || woke[2] != 5*Millisecond {
		t.Fatalf("woke at %v", woke)
	}
	if !results[0] || results[1] || !results[2] {
		t.Fatalf("results %v", results)
	}
}

func TestRunStallsWhenEveryTaskIsBlocked(t *testing.T) {
	m := NewMachine(1)
	w := m.NewWaker()
	task := m.Go("stuck", func() { w.Wait() })
	if err := m.Run(nil, task.Done); !errors.Is(err, ErrStalled) {
		t.Fatalf("Run: %v, want ErrStalled", err)
	}
	exited := make(chan struct{})
	m.Go("late", func() { defer close(exited); w.Wait() })
	_ = m.Run(nil, func() bool { return false })
	m.Stop() // unwinds both, running their defers
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not unwind a blocked task")
	}
}

// TestWallPacedWaitsAndInjects: in WallPaced mode an event does not run
// before its wall time, and an injected function runs at the virtual time it
// arrived at.
func TestWallPacedWaitsAndInjects(t *testing.T) {
	m := NewMachineClock(1, WallPaced)
	var ranAt time.Duration
	var injectedAt Time
	m.GuestAfter(30*Millisecond, func() { ranAt = time.Since(m.wall0) })
	go func() {
		time.Sleep(60 * time.Millisecond)
		m.Inject(func() { injectedAt = m.Now() })
	}()
	if err := m.Run(nil, func() bool { return injectedAt != 0 }); err != nil {
		t.Fatal(err)
	}
	if ranAt < 30*time.Millisecond {
		t.Fatalf("event due at 30 ms ran at %v of wall time", ranAt)
	}
	if injectedAt < 60*Millisecond {
		t.Fatalf("injected at %v, sent after 60 ms", injectedAt.Duration())
	}
}

// TestStopUnwindsATaskWhoseDeferBlocks: a task still blocked when the machine
// stops is unwound, and a defer of its that blocks on the engine again (as
// iperf3's server waits for its accept loop) ends there instead of spinning
// on the stopped machine. Its outer defers still run.
func TestStopUnwindsATaskWhoseDeferBlocks(t *testing.T) {
	m := NewMachine(1)
	never, alsoNever := m.NewWaker(), m.NewWaker()
	var outer, afterInner bool
	m.Go("blocked", func() {
		defer func() { outer = true }()
		defer func() {
			alsoNever.Wait()
			afterInner = true
		}()
		never.Wait()
	})
	m.Advance(Millisecond)
	stopped := make(chan struct{})
	go func() { m.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not return: the blocking defer kept the task alive")
	}
	if !outer || afterInner {
		t.Errorf("outer defer ran %v (want true), the rest of the blocking defer ran %v (want false)", outer, afterInner)
	}
}
