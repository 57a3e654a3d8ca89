package emu

import (
	"fmt"
	"time"

	"mesonemu/emu/pace"
)

// PacingReport is how well a WallPaced machine kept to the wall clock.
type PacingReport struct {
	// Pacer is what the loop slept on: "timerfd", or Go's timers and why.
	Pacer string `json:"pacer"`
	// Error is, over the events the loop slept for, how late the wake-up
	// released them: the pacer's own error.
	Error pace.Summary `json:"pacing_error"`
	// Behind is, over every event, how far behind its wall time it ran: the
	// pacer's error plus the time the host took to run what came before.
	Behind pace.Summary `json:"behind"`
}

// Pacing reports the machine's pacing so far (zero in Virtual mode).
func (m *Machine) Pacing() PacingReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	return PacingReport{Pacer: m.sleepOn, Error: m.pacing.Summary(), Behind: m.behind.Summary()}
}

// wallNow is the wall clock's virtual time, on the pacer's clock when there
// is one (so deadline and measurement agree).
func (m *Machine) wallNow() Time {
	if m.pacer != nil {
		return Time(pace.Now() - m.mono0)
	}
	return Time(time.Since(m.wall0))
}

// recordLate accounts for an event due at t starting now. The lock is held.
func (m *Machine) recordLate(t Time) {
	late := (m.wallNow() - t).Duration()
	m.late = max(m.late, late)
	m.behind.Add(late)
	if m.slept {
		m.pacing.Add(late)
		m.slept = false
	}
}

// sleepPacer is waitWall on the pacer: it sleeps in the kernel until t, a
// kick or stop. A pacer that fails gives way to Go's timers for good.
func (m *Machine) sleepPacer(t Time, stop <-chan struct{}) bool {
	woken := func() bool {
		select {
		case <-m.wake:
			return true
		case <-stop:
			return true
		default:
			return false
		}
	}
	if now := pace.Now(); now >= m.mono0+int64(t) {
		// Due already: a busy loop still looks at the watched fds now and
		// then, so a host frame is not left waiting behind a burst of events.
		if _, err := m.pacer.Poll(now); err != nil {
			m.pacerFailed(err)
		}
		return true
	}
	reached, err := m.pacer.Sleep(m.mono0+int64(t), woken)
	if err != nil {
		m.pacerFailed(err)
		return false
	}
	if reached {
		m.slept = true
		return true
	}
	select { // the kick's token, if the sleep ended for one
	case <-m.wake:
	default:
	}
	return false
}

// pacerFailed gives way to Go's timers for good; the watched fds' owners are
// told to read them themselves.
func (m *Machine) pacerFailed(err error) {
	m.mu.Lock()
	_ = m.pacer.Close()
	m.sleepOn, m.pacer = fmt.Sprintf("go timers after %v", err), nil
	lost := m.watches
	m.watches = nil
	m.mu.Unlock()
	for _, w := range lost {
		w()
	}
}

// WatchFD has the loop read fd itself: in WallPaced mode with a pacer, ready
// runs on the loop's goroutine, without the lock, whenever fd is readable:
// while the loop sleeps (fd shares the pacer's epoll set) and every
// pace.PollEvery while it is busy. It runs outside any event, so it hands
// what it reads to the machine with Inject; it returns false to end the watch
// (the fd only fails). lost runs (once) if the pacer
// fails later: from then on the owner reads fd its own way. WatchFD reports
// false when there is no pacer to watch with; UnwatchFD ends the watch.
func (m *Machine) WatchFD(fd int, ready func() (keep bool), lost func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pacer == nil || m.pacer.Watch(fd, ready) != nil {
		return false
	}
	if m.watches == nil {
		m.watches = make(map[int]func())
	}
	m.watches[fd] = lost
	return true
}

// UnwatchFD ends WatchFD's watch of fd; once it returns, ready is not running
// and will not run again. Call it before closing fd, never from ready.
func (m *Machine) UnwatchFD(fd int) error {
	m.mu.Lock()
	p := m.pacer
	_, ok := m.watches[fd]
	delete(m.watches, fd)
	m.mu.Unlock()
	if p == nil || !ok {
		return nil
	}
	return p.Unwatch(fd)
}

// ResetPacing forgets the lateness counted so far: a real-time run calls it
// when it starts carrying frames, so the board's boot (the host's CPU work
// done at once, not paced) does not count as the host falling behind.
func (m *Machine) ResetPacing() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pacing, m.behind, m.late = pace.Recorder{}, pace.Recorder{}, 0
}
