// Package netstack joins gVisor's TCP/IP stack to the emulated hardware: the board's
// stack runs on the stmmac guest ring driver, the PC's stack on the far-end NIC, and
// both read time from the machine's virtual clock, so TCP's timers, the DMA engine
// and the wire share one time base.
package netstack

import (
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
)

// Epoch is the wall-clock date the virtual clock's zero stands for. It only shows
// in iperf3's timestamps; a fixed value keeps runs reproducible.
var Epoch = time.Date(2019, time.December, 26, 12, 0, 0, 0, time.UTC)

// Clock is a tcpip.Clock that reads the machine's virtual time. Its timers are
// machine events, so a TCP retransmission timer fires at the right virtual
// instant even when the host lags behind the paced clock; the callback then
// runs in its own goroutine, as tcpip.Clock requires.
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
	t := &clockTimer{m: c.m, f: f}
	t.Reset(d)
	return t
}

type clockTimer struct {
	m  *emu.Machine
	f  func()
	ev *emu.Event // guarded by the machine lock
}

func (t *clockTimer) fire() { go t.f() }

func (t *clockTimer) Stop() bool {
	t.m.Lock()
	defer t.m.Unlock()
	was := t.ev.Pending()
	t.m.Cancel(t.ev)
	return was
}

func (t *clockTimer) Reset(d time.Duration) {
	t.m.Lock()
	defer t.m.Unlock()
	t.m.Cancel(t.ev)
	t.ev = t.m.After(emu.Time(d), t.fire)
}
