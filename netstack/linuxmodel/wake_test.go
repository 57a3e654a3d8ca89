package linuxmodel

import (
	"testing"

	"mesonemu/emu"
)

// TestWakeTurnaround: a 100 us turnaround in front of a core that takes 10 us
// per packet. A frame on an idle core waits 100 us; a second interrupt 30 us
// later, the core still idle, waits its own 100 us (a latency, not queued
// work); a frame that finds the core working goes at once; one that finds it
// working but a frame still waiting goes behind that frame.
func TestWakeTurnaround(t *testing.T) {
	const us = emu.Microsecond
	for _, tc := range []struct {
		name    string
		busyAt  emu.Time // a packet booked on the core at this time (-1: none)
		arrive  []emu.Time
		want    []emu.Time
		wakes   uint64
		noDelay bool
	}{
		{"idle core", -1, []emu.Time{0}, []emu.Time{100 * us}, 1, false},
		{"two interrupts on an idle core", -1, []emu.Time{0, 30 * us}, []emu.Time{100 * us, 130 * us}, 2, false},
		{"one poll of two frames", -1, []emu.Time{0, 0}, []emu.Time{100 * us, 100 * us}, 1, false},
		{"core working", 0, []emu.Time{5 * us}, []emu.Time{5 * us}, 0, false},
		{"no turnaround", -1, []emu.Time{0, 30 * us}, []emu.Time{0, 30 * us}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := emu.NewMachine(1)
			cpu := NewCPU(m, 10000, 0)
			d := 100 * us
			if tc.noDelay {
				d = 0
			}
			w := NewWake(m, cpu, d, true)
			var got []emu.Time
			recv := w.Receiver(func([]byte) { got = append(got, m.Now()) })
			if tc.busyAt >= 0 {
				cpu.reserve(tc.busyAt, 0)
			}
			for _, at := range tc.arrive {
				m.RunUntil(at)
				recv([]byte{1})
			}
			m.RunUntil(emu.Millisecond)
			if len(got) != len(tc.want) || w.Wakes() != tc.wakes {
				t.Fatalf("delivered at %v with %d wakes, want %v and %d", got, w.Wakes(), tc.want, tc.wakes)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("frame %d at %d ns, want %d", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestWakeKeepsOrder: a frame that finds the core working while an earlier
// one still waits out its turnaround goes right behind it, never before.
func TestWakeKeepsOrder(t *testing.T) {
	const us = emu.Microsecond
	m := emu.NewMachine(1)
	cpu := NewCPU(m, 10000, 0)
	w := NewWake(m, cpu, 100*us, false)
	var got []byte
	var at []emu.Time
	recv := w.Receiver(func(f []byte) { got, at = append(got, f[0]), append(at, m.Now()) })
	recv([]byte{1})       // idle: waits until 100 us
	m.RunUntil(20 * us)   //
	cpu.reserve(20*us, 0) // the core works 20-30 us (a timer's send, say)
	m.RunUntil(25 * us)   //
	recv([]byte{2})       // the core is working, but frame 1 waits: behind it
	m.RunUntil(emu.Millisecond)
	if string(got) != "\x01\x02" || at[0] != 100*us || at[1] != 100*us {
		t.Errorf("frames %v at %v, want 1 then 2, both at 100 us", got, at)
	}
}
