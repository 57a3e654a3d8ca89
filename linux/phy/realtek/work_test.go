package realtek

import (
	"errors"
	"fmt"
	"testing"

	"mesonemu/emu"
	"mesonemu/phy"
)

// mdioFrame is a stmmac-like MDIO access time: one GB poll of 100 us.
const mdioFrame = 100 * emu.Microsecond

// TestSleepingMDIODiscrete runs the driver over an MDIO master that sleeps in
// every access, as stmmac's does. The state machine and the threaded
// interrupt then run while the machine advances under them (nested timer and
// interrupt deliveries); nothing may re-enter the bus or deadlock, and the
// link must be reported within a few frames of the negotiation's end.
func TestSleepingMDIODiscrete(t *testing.T) {
	for _, tc := range []struct {
		irq    bool
		bootAt emu.Time // 5 s: the power-on link is up, so the restart's link drop
		// interrupts the state machine in the middle of its MDIO sleeps
	}{{true, 0}, {true, 5 * emu.Second}, {false, 0}, {false, 5 * emu.Second}} {
		irq := tc.irq
		b := newBoard(t, phy.Config{})
		b.m.Advance(tc.bootAt)
		b.bus.frame = mdioFrame
		p, recs := b.bringRGMII(irq)
		if err := p.WaitLink(10 * emu.Second); err != nil {
			t.Fatalf("irq %v: %v", irq, err)
		}
		restart := emu.Time(-1)
		for i, a := range b.bus.log {
			if a.write && a.reg == miiBMCR && a.val&bmcrANRestart != 0 {
				restart = b.bus.times[i]
			}
		}
		up, ok := lastUp(*recs)
		anDone := restart + phy.DefaultAutonegTime
		limit := anDone + 20*mdioFrame
		if !irq {
			limit += 2 * PHYStateTime // the next poll, one more after a latched drop
		}
		if restart < 0 || !ok || up.at < anDone || up.at > limit || up.speed != 1000 {
			t.Errorf("irq %v: restart at %d, up record %+v (ok %v), want up in [%d, %d]", irq, restart, up, ok, anDone, limit)
		}
		b.cableEvent(false)
		b.m.Advance(2 * PHYStateTime)
		if upNow, _, _ := p.Link(); upNow {
			t.Errorf("irq %v: link still up after the cable was pulled", irq)
		}
		b.cableEvent(true)
		if err := p.WaitLink(10 * emu.Second); err != nil {
			t.Errorf("irq %v: no link after reconnect: %v", irq, err)
		}
		if n := b.bus.reentered.Load(); n != 0 {
			t.Errorf("irq %v: %d re-entrant MDIO accesses", irq, n)
		}
	}
}

// TestDriverInATask runs the driver's process-context calls in an engine task
// (a kernel thread), as the in-process runs do: its sleeps yield to the loop,
// the deferred work runs from the loop's timers and interrupts, and the link
// comes and goes as in discrete-event mode. Only outcomes are asserted.
func TestDriverInATask(t *testing.T) {
	b := newBoard(t, phy.Config{})
	b.bus.frame = mdioFrame
	var errs []error
	task := b.m.Go("phy", func() {
		p, _ := b.bring(Config{Interface: "rgmii", IRQ: b.line})
		if err := p.WaitLink(60 * emu.Second); err != nil {
			errs = append(errs, fmt.Errorf("boot: %w", err))
			return
		}
		if up, speed, full := p.Link(); !up || speed != 1000 || !full {
			errs = append(errs, fmt.Errorf("link %v %d %v", up, speed, full))
		}
		b.cableEvent(false)
		down := false
		for waited := emu.Time(0); waited < 10*emu.Second; waited += WaitLinkStep {
			if up, _, _ := p.Link(); !up {
				down = true
				break
			}
			b.m.GuestDelay(WaitLinkStep)
		}
		if !down {
			errs = append(errs, errors.New("link loss never reported"))
		}
		b.cableEvent(true)
		if err := p.WaitLink(60 * emu.Second); err != nil {
			errs = append(errs, fmt.Errorf("reconnect: %w", err))
		}
		p.Stop()
	})
	if err := b.m.Run(nil, task.Done); err != nil {
		t.Fatal(err)
	}
	for _, err := range errs {
		t.Error(err)
	}
	if n := b.bus.reentered.Load(); n != 0 {
		t.Errorf("%d re-entrant MDIO accesses", n)
	}
}
