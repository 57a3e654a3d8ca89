package emu

// GuestTimer is a guest kernel timer (hrtimer/timer_list on the emulated CPU's
// architected timer). It fires in virtual time like any hardware event, but its
// callback is guest code, so it runs outside the machine lock, from the run loop,
// like an interrupt handler.
type GuestTimer struct {
	m  *Machine
	ev *Event
	fn func()
}

// GuestAfterFunc arms a guest timer that calls fn after d of virtual time.
// Safe to call from guest code (it takes the machine lock).
func (m *Machine) GuestAfterFunc(d Time, fn func()) *GuestTimer {
	t := &GuestTimer{m: m, fn: fn}
	t.ev = m.NewEvent(t.expire)
	m.Lock()
	t.arm(d)
	m.Unlock()
	return t
}

// expire is the timer's hardware event: it hands the callback to the run loop.
func (t *GuestTimer) expire() {
	t.m.pendingTimers = append(t.m.pendingTimers, t.fn)
	t.m.kick()
}

// arm (re)queues the timer's one event; re-arming allocates nothing.
func (t *GuestTimer) arm(d Time) { t.m.Schedule(t.ev, t.m.now+d) }

// Stop cancels the timer; it reports whether the timer was still pending.
func (t *GuestTimer) Stop() bool {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	was := t.ev.Pending()
	t.m.Cancel(t.ev)
	return was
}

// Reset re-arms the timer to fire d from now.
func (t *GuestTimer) Reset(d Time) {
	t.m.Lock()
	defer t.m.Unlock()
	t.arm(d)
}

// Pending reports whether the timer is armed.
func (t *GuestTimer) Pending() bool {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	return t.ev.Pending()
}

// takeGuestTimers hands the expired guest timer callbacks to the caller, who runs
// them outside the lock with runGuestTimers. Lock held.
func (m *Machine) takeGuestTimers() []func() {
	fns := m.pendingTimers
	m.pendingTimers, m.spareTimers = m.spareTimers, nil
	return fns
}

// runGuestTimers runs the callbacks outside the lock, then keeps the slice for
// the next round so that timer expiry allocates nothing.
func (m *Machine) runGuestTimers(fns []func()) {
	for _, fn := range fns {
		fn()
	}
	clear(fns)
	m.mu.Lock()
	if m.spareTimers == nil {
		m.spareTimers = fns[:0]
	}
	m.mu.Unlock()
}

// GuestDelay is the guest's udelay/usleep: it lets d of virtual time pass. In
// discrete-event mode it runs the machine forward (events and interrupts
// included); under a run loop it is Machine.Sleep (virtual time under
// RunQuiescent, the matching wall time under RunPaced). Guest code must not
// call it from an interrupt handler or a guest timer.
func (m *Machine) GuestDelay(d Time) { m.Sleep(d) }
