package cpufreq

import (
	"testing"
	"time"
)

// meson8bOPPsKHz is meson8b.dtsi's cpu_opp_table (the board's copy is in
// soc/board, which guest code does not import).
var meson8bOPPsKHz = []uint32{96000, 192000, 312000, 408000, 504000, 600000, 720000,
	816000, 1008000, 1200000, 1320000, 1488000, 1536000}

func TestUpdatePicksTheKernelsOPP(t *testing.T) {
	// next = 96000 + load × 14400 kHz, then the closest OPP (lower on a tie).
	for _, tc := range []struct {
		load uint32
		want uint32
	}{
		{0, 96000},
		{5, 192000},    // 168000: 192000 is 24000 away, 96000 72000
		{10, 192000},   // 240000: 48000 below 312000 is 72000 away
		{20, 408000},   // 384000
		{30, 504000},   // 528000: 504000 24000 away, 600000 72000
		{43, 720000},   // 715200
		{47, 816000},   // 772800: 720000 is 52800 away, 816000 43200
		{60, 1008000},  // 960000: 48000 below 1008000, 144000 above 816000
		{94, 1488000},  // 1449600
		{95, 1488000},  // 1464000: not above up_threshold
		{96, 1536000},  // above up_threshold: max
		{100, 1536000}, // max
	} {
		g, err := NewOndemand(meson8bOPPsKHz, UpThreshold)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := g.Update(tc.load)
		if got != tc.want {
			t.Errorf("load %d%%: %d kHz, want %d", tc.load, got, tc.want)
		}
	}
}

func TestTieGoesToTheLowerOPP(t *testing.T) {
	g, err := NewOndemand([]uint32{100, 200, 300}, 95)
	if err != nil {
		t.Fatal(err)
	}
	// 100 + 25 × 200 / 100 = 150: halfway between 100 and 200.
	if got, _ := g.Update(25); got != 100 {
		t.Errorf("tie: %d, want 100", got)
	}
}

func TestSampleLoadAndTransitions(t *testing.T) {
	ms := time.Millisecond
	g, err := NewOndemand(meson8bOPPsKHz, UpThreshold)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		busy, elapsed time.Duration
		want          uint32
		changed       bool
	}{
		{20 * ms, 20 * ms, 1536000, false},               // CPU-bound: stays at max
		{19 * ms, 20 * ms, 1488000, true},                // 95 %: not above up_threshold
		{4 * ms, 20 * ms, 408000, true},                  // 20 %
		{4 * ms, 20 * ms, 408000, false},                 // same load: no transition
		{8600 * time.Microsecond, 20 * ms, 720000, true}, // 43 %
		{1 * ms, 100 * ms, 720000, false},                // long idle: reuses 43 % once
		{1 * ms, 100 * ms, 96000, true},                  // then 1 %
		{5 * ms, 0, 96000, false},                        // no time elapsed: previous load (1 %)
	} {
		got, changed := g.Sample(tc.busy, tc.elapsed)
		if got != tc.want || changed != tc.changed {
			t.Errorf("sample %d (%v of %v): %d kHz changed %v, want %d %v", i, tc.busy, tc.elapsed, got, changed, tc.want, tc.changed)
		}
	}
}

func TestNewOndemandRefusesBadTables(t *testing.T) {
	for _, tc := range []struct {
		table []uint32
		up    uint32
	}{
		{nil, 95}, {[]uint32{2, 1}, 95}, {[]uint32{1, 1}, 95}, {[]uint32{1, 2}, 0}, {[]uint32{1, 2}, 101},
	} {
		if _, err := NewOndemand(tc.table, tc.up); err == nil {
			t.Errorf("table %v up %d: no error", tc.table, tc.up)
		}
	}
}
