package emu

import "time"

// Go's timers wake a goroutine up to about a millisecond late when the process
// is otherwise idle (the runtime's poller sleeps in whole milliseconds), which
// under a paced clock is 250 µs of virtual time at the default scale: interrupt
// handlers and the CPU model would then run late by a host artefact. Short
// sleeps therefore go to the kernel's high-resolution timer directly
// (wallsleep_linux.go); elsewhere they fall back to time.Sleep.

// shortSleepLimit is the longest wait done with precise sleeps; longer waits use
// a Go timer for all but this much, then finish precisely.
const shortSleepLimit = 2 * time.Millisecond

// pollStep bounds one precise sleep of the run loop, so that a kick (a guest
// scheduled an earlier event) is seen within this much wall time.
const pollStep = 50 * time.Microsecond

// SleepWall sleeps for d of wall time, to within the kernel timer's slack
// rather than the Go runtime's millisecond when the process is idle.
func SleepWall(d time.Duration) {
	if d <= 0 {
		return
	}
	if d > shortSleepLimit {
		time.Sleep(d - shortSleepLimit)
		d = shortSleepLimit
	}
	deadline := time.Now().Add(d)
	for rem := d; rem > 0; rem = time.Until(deadline) {
		sleepKernel(rem)
	}
}
