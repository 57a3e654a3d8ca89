package stmmac

import (
	"mesonemu/emu"
	"mesonemu/linux/kernel"
)

// timerDelay is how long mod_timer(jiffies + usecs_to_jiffies(us)) takes to fire:
// usecs_to_jiffies rounds up, and the timer fires at a tick boundary. With HZ = 0
// the driver runs its timers at the exact microsecond instead.
func timerDelay(k kernel.Kernel, hz, us int) emu.Time {
	if hz <= 0 {
		return usecs(us)
	}
	tick := emu.Second / emu.Time(hz)
	j := (emu.Time(us)*emu.Microsecond + tick - 1) / tick
	now := k.Now()
	return (now/tick+j)*tick - now
}
