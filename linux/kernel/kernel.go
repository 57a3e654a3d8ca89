// Package kernel is the Linux kernel as the ported drivers see it: bus, time, IRQs, locks.
// Guest side: the guest's one door to the bus; hardware never imports it.
//
// It is the guest side's view of the Linux kernel it runs in: the
// services a ported driver calls besides its own device's registers. Every guest
// driver (linux/stmmac, linux/phy/realtek, and the clock and glue drivers through
// Bus) and boot take a Kernel, never the machine, so a guest reaches hardware
// only through the bus and its interrupt lines, as Linux reaches silicon.
package kernel

import (
	"fmt"

	"mesonemu/emu"
)

// IRQ is an interrupt number as the device tree gives it to a driver; 0 is none.
type IRQ int

// Kernel is what a driver may use of the kernel.
type Kernel interface {
	// Bus is the CPU's view of the SoC: MMIO registers and DMA memory.
	Bus() emu.GuestBus
	// Delay lets d of virtual time pass (usleep_range, msleep,
	// readl_poll_timeout); never called from an interrupt handler or a timer.
	Delay(d emu.Time)
	// AfterFunc arms a one-shot kernel timer that calls fn, outside any
	// hardware lock, after d of virtual time.
	AfterFunc(d emu.Time, fn func()) Timer
	// Now is the current virtual time (jiffies arithmetic).
	Now() emu.Time
	// RequestIRQ installs handler on irq (request_irq; nil removes it, as
	// free_irq, or masks a oneshot line until its threaded handler is done).
	// The handler runs outside any hardware lock while the line is asserted.
	RequestIRQ(irq IRQ, handler func()) error
	// IRQName is the line's name for log lines ("" when there is no such line).
	IRQName(irq IRQ) string
}

// Timer is an armed kernel timer.
type Timer interface {
	// Stop cancels the timer and reports whether it was still pending.
	Stop() bool
	// Reset re-arms it to fire d from now.
	Reset(d emu.Time)
}

// New is the kernel of an emulated machine: bus is what its CPU reaches the SoC
// through, and lines are its interrupt lines, numbered 1, 2, ... in order.
func New(m *emu.Machine, bus emu.GuestBus, lines ...*emu.IRQ) Kernel {
	return &machineKernel{m: m, bus: bus, lines: lines}
}

type machineKernel struct {
	m     *emu.Machine
	bus   emu.GuestBus
	lines []*emu.IRQ
}

func (k *machineKernel) Bus() emu.GuestBus { return k.bus }
func (k *machineKernel) Delay(d emu.Time)  { k.m.GuestDelay(d) }
func (k *machineKernel) Now() emu.Time     { return k.m.VirtualNow() }
func (k *machineKernel) AfterFunc(d emu.Time, fn func()) Timer {
	return k.m.GuestAfterFunc(d, fn)
}

func (k *machineKernel) line(irq IRQ) *emu.IRQ {
	if irq < 1 || int(irq) > len(k.lines) {
		return nil
	}
	return k.lines[irq-1]
}

func (k *machineKernel) RequestIRQ(irq IRQ, handler func()) error {
	q := k.line(irq)
	if q == nil {
		return fmt.Errorf("request_irq %d: no such interrupt", irq)
	}
	q.Handle(handler)
	return nil
}

func (k *machineKernel) IRQName(irq IRQ) string {
	if q := k.line(irq); q != nil {
		return q.Name()
	}
	return ""
}
