package driver

import "mesonemu/emu"

// Kernel is the slice of the guest kernel the driver needs besides the bus: sleeping
// (usleep / readl_poll_timeout), kernel timers and the time they are based on. An
// *emu.Machine provides it through MachineKernel; tests may fake it.
type Kernel interface {
	// GuestDelay lets d of virtual time pass (never called from an interrupt
	// handler or a timer).
	GuestDelay(d emu.Time)
	// AfterFunc arms a one-shot timer that calls fn, outside any hardware lock,
	// after d of virtual time.
	AfterFunc(d emu.Time, fn func()) Timer
	// Now is the current virtual time (for jiffies arithmetic).
	Now() emu.Time
}

// Timer is an armed kernel timer.
type Timer interface {
	Stop() bool
	Reset(d emu.Time)
}

// MachineKernel adapts an emulated machine's guest services to Kernel.
func MachineKernel(m *emu.Machine) Kernel { return machineKernel{m} }

type machineKernel struct{ m *emu.Machine }

func (k machineKernel) GuestDelay(d emu.Time) { k.m.GuestDelay(d) }
func (k machineKernel) AfterFunc(d emu.Time, fn func()) Timer {
	return k.m.GuestAfterFunc(d, fn)
}
func (k machineKernel) Now() emu.Time { return k.m.VirtualNow() }

// timerDelay is how long mod_timer(jiffies + usecs_to_jiffies(us)) takes to fire:
// usecs_to_jiffies rounds up, and the timer fires at a tick boundary. With HZ = 0
// the driver runs its timers at the exact microsecond instead.
func timerDelay(k Kernel, hz, us int) emu.Time {
	if hz <= 0 {
		return usecs(us)
	}
	tick := emu.Second / emu.Time(hz)
	j := (emu.Time(us)*emu.Microsecond + tick - 1) / tick
	now := k.Now()
	return (now/tick+j)*tick - now
}
