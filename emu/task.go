package emu

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Task is a piece of emulated software with its own goroutine and stack (an
// application, a kernel thread): it runs only when the loop resumes it, the
// loop waits until it blocks on the engine again (Sleep, a Waker), and so at
// any moment exactly one piece of emulated code runs.
type Task struct {
	m      *Machine
	name   string
	ev     *Event // the guest event that resumes it
	resume chan struct{}
	yield  chan struct{}
	done   atomic.Bool
}

// Go starts fn as a task; it first runs at the current virtual time, after
// the events already due then. Safe from guest code, tasks and outside
// goroutines, never from hardware code.
func (m *Machine) Go(name string, fn func()) *Task {
	t := &Task{m: m, name: name, resume: make(chan struct{}), yield: make(chan struct{})}
	t.ev = m.NewGuestEvent(t.step)
	go func() {
		<-t.resume
		defer func() {
			t.done.Store(true)
			t.yield <- struct{}{}
		}()
		if !m.isStopped() {
			fn()
		}
	}()
	m.mu.Lock()
	m.tasks = append(m.tasks, t)
	m.Schedule(t.ev, m.Now())
	m.mu.Unlock()
	return t
}

// Name is the name the task was started with.
func (t *Task) Name() string { return t.name }

// Done reports whether the task's function has returned.
func (t *Task) Done() bool { return t.done.Load() }

// step runs the task until it blocks or ends (loop goroutine, no lock).
func (t *Task) step() {
	if t.done.Load() {
		return
	}
	m := t.m
	prev := m.current
	m.current = t
	t.resume <- struct{}{}
	<-t.yield
	m.current = prev
}

// park hands control back to the loop until the task's event runs again. On a
// stopped machine the task's goroutine ends instead (its defers run).
func (t *Task) park() {
	if !t.m.isStopped() {
		t.yield <- struct{}{}
		<-t.resume
	}
	if t.m.isStopped() {
		runtime.Goexit()
	}
}

func (m *Machine) isStopped() bool { return m.stopped.Load() }

// Stop ends the machine's life: no event runs any more, and every task still
// blocked is unwound (its goroutine exits through its defers; a defer that
// blocks on the engine ends there). Call it from outside the loop, once the
// run is over.
func (m *Machine) Stop() {
	m.mu.Lock()
	m.stopped.Store(true)
	tasks := m.tasks
	m.tasks = nil
	for _, e := range m.queue {
		e.index = -1
	}
	m.queue = nil
	if m.pacer != nil {
		_ = m.pacer.Close() // the loop no longer sleeps on it
		m.pacer = nil
	}
	m.mu.Unlock()
	for _, t := range tasks {
		if !t.done.Load() {
			// current marks the task as one, so that a defer of its that
			// blocks on the engine ends the goroutine too (park) instead
			// of trying to drive the stopped machine.
			m.current = t
			t.resume <- struct{}{}
			<-t.yield
			m.current = nil
		}
	}
}

// Waker is a binary semaphore for tasks: Wait blocks the calling task until
// Wake; a Wake with nobody waiting is kept (once) for the next Wait. The woken
// task runs as an event of its own at the virtual time of the Wake, after the
// event that woke it, so wake-ups are handled in the order they happened.
type Waker struct {
	m      *Machine
	mu     sync.Mutex
	token  bool
	waiter *Task
}

// NewWaker makes a waker.
func (m *Machine) NewWaker() *Waker { return &Waker{m: m} }

// Wake releases the waiting task, or keeps the wake for the next Wait. Safe
// from any goroutine except hardware code (it takes the machine lock).
func (w *Waker) Wake() {
	w.mu.Lock()
	t := w.waiter
	if t == nil {
		w.token = true
		w.mu.Unlock()
		return
	}
	w.waiter = nil
	w.mu.Unlock()
	w.m.mu.Lock()
	w.m.Schedule(t.ev, w.m.Now())
	w.m.mu.Unlock()
}

// Wait blocks until Wake.
func (w *Waker) Wait() { w.WaitUntil(-1) }

// WaitUntil blocks until Wake or until virtual time deadline (none if < 0),
// and reports whether it was woken. Outside a task (a test driving the machine
// itself) it runs the machine until then.
func (w *Waker) WaitUntil(deadline Time) bool {
	m := w.m
	t := m.current
	w.mu.Lock()
	if w.token {
		w.token = false
		w.mu.Unlock()
		return true
	}
	if t == nil {
		w.mu.Unlock()
		return w.drive(deadline)
	}
	w.waiter = t
	w.mu.Unlock()
	if deadline >= 0 {
		m.mu.Lock()
		m.Schedule(t.ev, deadline)
		m.mu.Unlock()
	}
	t.park()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiter == t {
		w.waiter = nil
		return false
	}
	return true
}

// drive waits for a wake by running the machine on the caller's goroutine.
func (w *Waker) drive(deadline Time) bool {
	for {
		w.mu.Lock()
		if w.token {
			w.token = false
			w.mu.Unlock()
			return true
		}
		w.mu.Unlock()
		next, ok := w.m.NextEvent()
		if !ok || deadline >= 0 && next > deadline {
			if deadline >= 0 {
				w.m.RunUntil(deadline)
			}
			return false
		}
		w.m.Step()
	}
}

// Blocked names the tasks that have not returned, in the order they started:
// at the end of a run, what still waits for something.
func (m *Machine) Blocked() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for _, t := range m.tasks {
		if !t.done.Load() {
			names = append(names, t.name)
		}
	}
	return names
}
