package kernel

import (
	"strings"
	"testing"

	"mesonemu/emu"
)

// TestIRQNumbersAndHandlers: the lines are numbered 1, 2, ... in the order the
// kernel was given them; a handler runs while its line is asserted, nil takes
// it off, and a number without a line is refused.
func TestIRQNumbersAndHandlers(t *testing.T) {
	m := emu.NewMachine(1)
	mac, phy := m.NewIRQ("macirq"), m.NewIRQ("phy_int")
	k := New(m, m.Bus(), mac, phy)
	for irq, want := range map[IRQ]string{0: "", 1: "macirq", 2: "phy_int", 3: "", -1: ""} {
		if got := k.IRQName(irq); got != want {
			t.Errorf("IRQName(%d) = %q, want %q", irq, got, want)
		}
	}
	if err := k.RequestIRQ(3, func() {}); err == nil || !strings.Contains(err.Error(), "no such interrupt") {
		t.Errorf("RequestIRQ(3) = %v, want no such interrupt", err)
	}
	calls := 0
	if err := k.RequestIRQ(2, func() { calls++ }); err != nil {
		t.Fatal(err)
	}
	m.Lock()
	phy.Set(true)
	m.Unlock()
	m.DeliverInterrupts()
	if err := k.RequestIRQ(2, nil); err != nil {
		t.Fatal(err)
	}
	m.DeliverInterrupts()
	if calls != 1 {
		t.Errorf("handler ran %d times, want 1 (once while requested, not after the free)", calls)
	}
}
