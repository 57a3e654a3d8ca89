//go:build linux

package pace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Pacer sleeps until an absolute CLOCK_MONOTONIC time on a timerfd, in one
// epoll set with an eventfd that Wake writes. The timerfd's hrtimer has no
// timer slack (poll and nanosleep timeouts get 50 us of it), so it fires
// within the kernel's wake-up latency of the deadline. One goroutine sleeps
// at a time; Wake may be called from any.
type Pacer struct {
	ep, tfd, efd int
	sleeping     atomic.Bool
	mu           sync.Mutex // Wake's write against Close
	latency      int64      // the kernel's wake-up latency, averaged (ns)
	start, spun  int64      // the first sleep's time, and the time spun since (ns)

	// Watched descriptors: fn runs on the sleeper's goroutine when its fd is
	// readable. watchMu is held while fns run, so Unwatch returns only once
	// its fn has finished.
	watchMu sync.Mutex
	watched map[int32]func() bool
	polled  atomic.Int64 // when the watched fds were last looked at (ns); any goroutine may poll
}

// New makes a Pacer; Close releases its descriptors.
func New() (*Pacer, error) {
	p := &Pacer{ep: -1, tfd: -1, efd: -1, watched: make(map[int32]func() bool)}
	var err error
	if p.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, fmt.Errorf("pace: epoll_create1: %w", err)
	}
	if p.tfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		p.Close()
		return nil, fmt.Errorf("pace: timerfd_create: %w", err)
	}
	if p.efd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		p.Close()
		return nil, fmt.Errorf("pace: eventfd: %w", err)
	}
	for _, fd := range []int{p.tfd, p.efd} {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err = unix.EpollCtl(p.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			p.Close()
			return nil, fmt.Errorf("pace: epoll_ctl: %w", err)
		}
	}
	return p, nil
}

// Now is CLOCK_MONOTONIC in nanoseconds, the clock Sleep's deadline is on.
func Now() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// maxEarly bounds how early the timer is armed, and so the spin that follows
// it: at most this long a core is busy per sleep.
const maxEarly = 100_000

// spinShare is the most of the wall time the pacer spends spinning: on a
// busy host many short sleeps would otherwise spin a core away from the
// emulation itself (and the wake-up latency it spins for grows with load).
const spinShare = 20 // 1/20: 5 %

// Sleep blocks until CLOCK_MONOTONIC reaches deadline (ns) or Wake is called.
// woken is checked once the pacer listens for Wake, so a wake-up whose Wake
// came just before is never lost. It reports whether the deadline came.
//
// The kernel wakes a sleeping thread tens of microseconds after its timer
// fires (about 40 us on the host docs/decisions.md measures), so the timer is
// armed that much early (the average wake-up latency seen, times 1.5) and the
// rest is a spin on the vDSO clock that still watches for Wake, within a
// budget of spinShare of the time since the first sleep.
func (p *Pacer) Sleep(deadline int64, woken func() bool) (bool, error) {
	p.sleeping.Store(true)
	defer p.sleeping.Store(false)
	if woken != nil && woken() {
		return false, nil
	}
	now := Now()
	if p.start == 0 {
		p.start = now
	}
	early := int64(0)
	if p.spun < (now-p.start)/spinShare {
		early = min(p.latency+p.latency/2, maxEarly)
	}
	armed := deadline - early
	if now < armed {
		w, err := p.sleepKernel(armed)
		if err != nil || w {
			return false, err
		}
		now = Now()
		p.latency += (max(now-armed, 0) - p.latency) / 8
	}
	reached := p.spin(deadline)
	p.spun += max(Now()-now, 0)
	return reached, nil
}

// spin waits on the vDSO clock for the deadline, watching for Wake and,
// every PollEvery, for a watched fd; it reports whether the deadline came.
func (p *Pacer) spin(deadline int64) bool {
	for now := Now(); now < deadline; now = Now() {
		if !p.sleeping.Load() {
			return false
		}
		if ran, _ := p.Poll(now); ran {
			return false
		}
	}
	return true
}

// sleepKernel waits on the timerfd armed for armed, or a Wake; it reports
// whether a Wake ended it.
func (p *Pacer) sleepKernel(armed int64) (bool, error) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(armed)}
	if err := unix.TimerfdSettime(p.tfd, unix.TFD_TIMER_ABSTIME, &spec, nil); err != nil {
		return false, fmt.Errorf("pace: timerfd_settime: %w", err)
	}
	var evs [maxEvents]unix.EpollEvent
	for {
		n, err := unix.EpollWait(p.ep, evs[:], -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("pace: epoll_wait: %w", err)
		}
		woke := p.dispatch(evs[:n])
		if woke || !p.sleeping.Load() {
			return true, nil
		}
		if Now() >= armed {
			return false, nil
		}
	}
}

// maxEvents is how many ready descriptors one epoll_wait returns: the timer,
// the eventfd and the watched fds (two TAPs).
const maxEvents = 8

// PollEvery is how often a busy engine, one that does not sleep because
// events are due back to back, looks at the watched fds: a frame waits at
// most this long plus the event running when it came.
const PollEvery = 25_000

// dispatch clears the timer and the eventfd among evs and runs the fns of the
// watched fds that are readable. It reports whether Wake or a watched fd
// ended the wait (new work for the sleeper).
func (p *Pacer) dispatch(evs []unix.EpollEvent) bool {
	var buf [8]byte
	woke := false
	p.polled.Store(Now())
	for _, ev := range evs {
		switch int(ev.Fd) {
		case p.tfd, p.efd:
			_, _ = unix.Read(int(ev.Fd), buf[:]) // clear it; EAGAIN if already clear
			woke = woke || int(ev.Fd) == p.efd
		default:
			// The sleeper is awake: a kick from fn (a frame injected) need
			// not write the eventfd.
			p.sleeping.Store(false)
			p.watchMu.Lock()
			if fn := p.watched[ev.Fd]; fn != nil {
				if !fn() {
					delete(p.watched, ev.Fd)
					_ = unix.EpollCtl(p.ep, unix.EPOLL_CTL_DEL, int(ev.Fd), nil)
				}
				woke = true
			}
			p.watchMu.Unlock()
		}
	}
	return woke
}

// Watch adds fd to the epoll set: whenever it is readable (level-triggered)
// fn runs on the goroutine that sleeps or polls, which is how a TAP's frames
// reach the engine without a reader goroutine's wake-up in between. fn
// returns false to leave the set (a device that only fails). It must not call
// Unwatch or Close.
func (p *Pacer) Watch(fd int, fn func() (keep bool)) error {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(p.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("pace: watch fd %d: %w", fd, err)
	}
	p.watched[int32(fd)] = fn
	return nil
}

// Unwatch takes fd out of the set; once it returns, fd's fn is not running
// and will not run again. Call it before fd is closed.
func (p *Pacer) Unwatch(fd int) error {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if _, ok := p.watched[int32(fd)]; !ok {
		return nil
	}
	delete(p.watched, int32(fd))
	if err := unix.EpollCtl(p.ep, unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return fmt.Errorf("pace: unwatch fd %d: %w", fd, err)
	}
	return nil
}

// Poll looks at the watched fds without sleeping, if PollEvery has passed
// since they were last looked at (now is Now()), and runs the fns of the
// readable ones; it reports whether any ran.
func (p *Pacer) Poll(now int64) (bool, error) {
	if last := p.polled.Load(); now-last < PollEvery || !p.polled.CompareAndSwap(last, now) {
		return false, nil
	}
	var evs [maxEvents]unix.EpollEvent
	n, err := unix.EpollWait(p.ep, evs[:], 0)
	if errors.Is(err, unix.EINTR) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pace: epoll_wait: %w", err)
	}
	ran := false
	for i, ev := range evs[:n] {
		if int(ev.Fd) == p.tfd || int(ev.Fd) == p.efd {
			continue // the sleeper's own: left for its next wait
		}
		ran = p.dispatch(evs[i:i+1]) || ran
	}
	return ran, nil
}

// Wake ends a Sleep in progress early; without one it costs an atomic load.
func (p *Pacer) Wake() {
	if !p.sleeping.Load() || !p.sleeping.Swap(false) {
		return
	}
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	p.mu.Lock()
	if p.efd >= 0 {
		_, _ = unix.Write(p.efd, one[:]) // EAGAIN only if the counter is full: it is set
	}
	p.mu.Unlock()
}

// Close releases the descriptors; no Sleep may be in progress. A Wake after
// it does nothing.
func (p *Pacer) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, fd := range []*int{&p.efd, &p.tfd, &p.ep} {
		if *fd >= 0 {
			errs = append(errs, unix.Close(*fd))
			*fd = -1
		}
	}
	return errors.Join(errs...)
}
