package emu

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// sleepKernel blocks the calling thread in nanosleep (an hrtimer).
func sleepKernel(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	_ = unix.Nanosleep(&ts, nil) // EINTR only shortens the sleep; callers re-check the time
}

// preciseThread pins the calling goroutine to its thread and shrinks that
// thread's timer slack from the default 50 µs to 1 µs, so the paced run loop's
// sleeps end when asked. The returned function undoes both.
func preciseThread() func() {
	runtime.LockOSThread()
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err == nil {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	}
	return func() {
		if err == nil {
			_ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
		}
		runtime.UnlockOSThread()
	}
}
