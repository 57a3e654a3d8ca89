package pace

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

func TestRecorderSummary(t *testing.T) {
	us := time.Microsecond
	tests := []struct {
		name string
		add  []time.Duration
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"early counts as zero", []time.Duration{-5 * us}, Summary{Count: 1, P99Ns: 0, MaxNs: 0}},
		{"one", []time.Duration{7 * us}, Summary{Count: 1, MeanNs: 7000, P99Ns: 7000, MaxNs: 7000}},
		{"p99 of 100 is the 99th", append(repeat(98, 2*us), 40*us, 900*us),
			Summary{Count: 100, MeanNs: (98*2000 + 40000 + 900000) / 100, P99Ns: 41000, MaxNs: 900000}},
		{"coarse buckets above 2 ms", []time.Duration{3050 * us},
			Summary{Count: 1, MeanNs: 3050000, P99Ns: 3050000, MaxNs: 3050000}},
		{"coarse bucket edge below the max", append(repeat(99, 3010*us), 5*time.Second),
			Summary{Count: 100, MeanNs: (99*3010000 + 5e9) / 100, P99Ns: 3100000, MaxNs: 5e9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Recorder
			for _, d := range tt.add {
				r.Add(d)
			}
			if got := r.Summary(); got != tt.want {
				t.Errorf("Summary() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func repeat(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func newPacer(t testing.TB) *Pacer {
	p, err := New()
	if errors.Is(err, ErrUnsupported) {
		t.Skipf("no pacer on %s: %v", runtime.GOOS, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// A Wake from another goroutine ends a sleep whose deadline is an hour away.
func TestWakeEndsSleep(t *testing.T) {
	p := newPacer(t)
	asleep := make(chan struct{})
	go func() {
		<-asleep
		for !p.sleeping.Load() {
			runtime.Gosched()
		}
		p.Wake()
	}()
	first := true
	reached, err := p.Sleep(Now()+int64(time.Hour), func() bool {
		if first {
			close(asleep)
			first = false
		}
		return false
	})
	if err != nil || reached {
		t.Fatalf("Sleep = %v, %v; want woken early (false, nil)", reached, err)
	}
}

// woken reporting true before the sleep returns at once, deadline not reached.
func TestWokenBeforeSleep(t *testing.T) {
	p := newPacer(t)
	reached, err := p.Sleep(Now()+int64(time.Hour), func() bool { return true })
	if err != nil || reached {
		t.Fatalf("Sleep = %v, %v; want (false, nil)", reached, err)
	}
}

// A deadline already past is reached at once, and a near one is reached.
func TestDeadlineReached(t *testing.T) {
	p := newPacer(t)
	for _, d := range []time.Duration{-time.Millisecond, 0, 200 * time.Microsecond, 2 * time.Millisecond} {
		dl := Now() + int64(d)
		reached, err := p.Sleep(dl, nil)
		if err != nil || !reached || Now() < dl {
			t.Errorf("Sleep(now%+v) = %v, %v at %d ns before the deadline; want reached", d, reached, err, dl-Now())
		}
	}
}

// BenchmarkLateness sleeps 257 us (the pre-fix RX watchdog) again and again
// and reports how late the pacer and Go's timer release the sleeper.
func BenchmarkLateness(b *testing.B) {
	const d = 257 * time.Microsecond
	p := newPacer(b)
	var r, g Recorder
	for b.Loop() {
		dl := Now() + int64(d)
		if _, err := p.Sleep(dl, nil); err != nil {
			b.Fatal(err)
		}
		r.Add(time.Duration(Now() - dl))
		start := time.Now()
		<-time.After(d)
		g.Add(time.Since(start) - d)
	}
	s, gs := r.Summary(), g.Summary()
	b.ReportMetric(float64(s.MeanNs)/1e3, "pacer-mean-us")
	b.ReportMetric(float64(s.P99Ns)/1e3, "pacer-p99-us")
	b.ReportMetric(float64(s.MaxNs)/1e3, "pacer-max-us")
	b.ReportMetric(float64(gs.MeanNs)/1e3, "gotimer-mean-us")
	b.ReportMetric(float64(gs.P99Ns)/1e3, "gotimer-p99-us")
}
