// Package netstack joins gVisor's TCP/IP stack to the emulated hardware: the board's
// stack runs on the stmmac guest ring driver, the PC's stack on the far-end NIC, and
// both read time from the machine's virtual clock, so TCP's timers, the DMA engine
// and the wire share one time base.
package netstack

import (
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
)

// Epoch is the wall-clock date the virtual clock's zero stands for. It only shows
// in iperf3's timestamps; a fixed value keeps runs reproducible.
var Epoch = time.Date(2019, time.December, 26, 12, 0, 0, 0, time.UTC)

// Clock is a tcpip.Clock that reads the machine's virtual time. Timers are armed
// on the wall clock for the matching paced duration (virtual time is a linear
// function of wall time while the machine runs paced), and their callbacks run in
// their own goroutine as tcpip.Clock requires.
type Clock struct {
	m *emu.Machine
}

// NewClock makes a tcpip.Clock over the machine's virtual time.
func NewClock(m *emu.Machine) *Clock { return &Clock{m: m} }

var _ tcpip.Clock = (*Clock)(nil)

// Now implements tcpip.Clock.
func (c *Clock) Now() time.Time { return Epoch.Add(c.m.VirtualNow().Duration()) }

// NowMonotonic implements tcpip.Clock.
func (c *Clock) NowMonotonic() tcpip.MonotonicTime {
	return tcpip.MonotonicTime{}.Add(c.m.VirtualNow().Duration())
}

// AfterFunc implements tcpip.Clock.
func (c *Clock) AfterFunc(d time.Duration, f func()) tcpip.Timer {
	t := &clockTimer{c: c, f: f}
	t.Reset(d)
	return t
}

// clockTimer re-derives its wall duration from the pacing on every Reset, so a
// timer set before the run loop starts still fires at the right virtual time.
type clockTimer struct {
	c  *Clock
	f  func()
	mu sync.Mutex
	t  *time.Timer
}

func (t *clockTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.t == nil {
		return false
	}
	return t.t.Stop()
}

func (t *clockTimer) Reset(d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.t != nil {
		t.t.Stop()
	}
	t.t = time.AfterFunc(t.c.m.WallDuration(emu.Time(d)), t.f)
}
