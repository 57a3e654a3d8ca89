package emu

// GuestTimer is a guest kernel timer (hrtimer/timer_list on the emulated CPU's
// architected timer): a guest event, so its callback runs outside the machine
// lock, on the loop's goroutine, like an interrupt handler.
type GuestTimer struct {
	m  *Machine
	ev *Event
}

// GuestAfterFunc arms a guest timer that calls fn after d of virtual time.
// Safe to call from guest code (it takes the machine lock).
func (m *Machine) GuestAfterFunc(d Time, fn func()) *GuestTimer {
	t := &GuestTimer{m: m, ev: m.NewGuestEvent(fn)}
	t.Reset(d)
	return t
}

// Stop cancels the timer; it reports whether the timer was still pending.
func (t *GuestTimer) Stop() bool {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	was := t.ev.Pending()
	t.m.Cancel(t.ev)
	return was
}

// Reset re-arms the timer to fire d from now; re-arming allocates nothing.
func (t *GuestTimer) Reset(d Time) {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	t.m.Schedule(t.ev, t.m.Now()+d)
}

// Pending reports whether the timer is armed.
func (t *GuestTimer) Pending() bool {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	return t.ev.Pending()
}
