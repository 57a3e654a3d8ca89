package linuxmodel

import (
	"testing"

	"mesonemu/emu"
	"mesonemu/linux/cpufreq"
)

// TestCPUUnderOndemand: a core 20 % busy at 1536 MHz is sampled after 20 ms,
// moves to 408 MHz (96 + 20 × 14.4 = 384, closest 408), stalls 200 us for the
// transition, and then takes 1536/408 as long per packet; a CPU-bound core
// never leaves 1536 MHz and never stalls.
func TestCPUUnderOndemand(t *testing.T) {
	for _, tc := range []struct {
		name        string
		gap         emu.Time // between packets of 1 us at max
		wantKHz     uint32
		wantDone    emu.Time // when the packet asked for at 20 ms is done
		transitions uint64
	}{
		{"20% busy", 5 * emu.Microsecond, 408000, 20*emu.Millisecond + 200*emu.Microsecond + 3764, 1},
		{"cpu-bound", 1 * emu.Microsecond, 1536000, 20*emu.Millisecond + 1000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := emu.NewMachine(1)
			cpu := NewCPU(m, 1000, 0)
			g, err := cpufreq.NewOndemand([]uint32{96000, 192000, 312000, 408000, 504000, 600000, 720000, 816000, 1008000, 1200000, 1320000, 1488000, 1536000}, cpufreq.UpThreshold)
			if err != nil {
				t.Fatal(err)
			}
			cpu.SetGovernor(g)
			for now := emu.Time(0); now < 20*emu.Millisecond; now += tc.gap {
				cpu.reserve(now, 0)
			}
			done := cpu.reserve(20*emu.Millisecond, 0)
			if cpu.CurKHz() != tc.wantKHz || done != tc.wantDone || cpu.Transitions() != tc.transitions {
				t.Errorf("at %d kHz, done at %d, %d transitions; want %d kHz, %d, %d",
					cpu.CurKHz(), done, cpu.Transitions(), tc.wantKHz, tc.wantDone, tc.transitions)
			}
		})
	}
}
