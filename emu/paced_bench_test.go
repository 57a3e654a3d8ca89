package emu

import (
	"context"
	"sort"
	"testing"
)

// BenchmarkPacedWakeLateness measures how far behind the paced clock the run
// loop reaches an event: the time by which every interrupt handler and guest
// timer then runs late. One event every 40 µs of virtual time at the default
// 0.25 scale (160 µs of wall time between wake-ups, a sparse load on which Go's
// own timers oversleep by about a millisecond). Reported in virtual ns.
func BenchmarkPacedWakeLateness(b *testing.B) {
	m := NewMachine(1)
	late := make([]Time, 0, b.N)
	done := make(chan struct{})
	const gap = 40 * Microsecond
	var tick func()
	tick = func() {
		late = append(late, m.pacing.now()-m.now)
		if len(late) == b.N {
			close(done)
			return
		}
		m.After(gap, tick)
	}
	m.mu.Lock()
	m.After(gap, tick)
	m.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ResetTimer()
	go m.RunPaced(ctx, 0.25)
	<-done
	b.StopTimer()
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	var sum Time
	for _, l := range late {
		sum += l
	}
	b.ReportMetric(float64(sum)/float64(len(late)), "late-vns/mean")
	b.ReportMetric(float64(late[len(late)*99/100]), "late-vns/p99")
}
