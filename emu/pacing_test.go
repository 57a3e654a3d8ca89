package emu

import (
	"runtime"
	"testing"
	"time"
)

// A wall-paced machine sleeps on the pacer: the events it slept for are
// counted in the pacing error, every event in Behind, and a Virtual machine
// counts nothing.
func TestPacingCounts(t *testing.T) {
	tests := []struct {
		mode       ClockMode
		wantPacer  string
		wantSlept  uint64 // events the loop slept for
		wantEvents uint64
	}{
		{Virtual, "", 0, 0},
		{WallPaced, "timerfd", 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			if tt.mode == WallPaced && runtime.GOOS != "linux" {
				t.Skip("the pacer is Linux-only")
			}
			m := NewMachineClock(1, tt.mode)
			defer m.Stop()
			ran := 0
			m.Lock()
			for i := 1; i <= 3; i++ {
				m.At(Time(i)*Millisecond, func() { ran++ })
			}
			m.Unlock()
			if err := m.Run(nil, func() bool { return ran == 3 }); err != nil {
				t.Fatal(err)
			}
			p := m.Pacing()
			if p.Pacer != tt.wantPacer || p.Error.Count != tt.wantSlept || p.Behind.Count != tt.wantEvents {
				t.Errorf("Pacing() = %+v; want pacer %q, %d slept for, %d events", p, tt.wantPacer, tt.wantSlept, tt.wantEvents)
			}
			if p.Error.MaxNs < p.Error.P99Ns || p.Behind.MaxNs < p.Error.MaxNs {
				t.Errorf("Pacing() = %+v: max below p99, or an event's pacing error above its lag", p)
			}
		})
	}
}

// An Inject from another goroutine ends the loop's sleep on an event an hour
// away, and a closed stop ends it too.
func TestPacerWakesOnInjectAndStop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the pacer is Linux-only")
	}
	m := NewMachineClock(1, WallPaced)
	defer m.Stop()
	m.Lock()
	m.At(Time(time.Hour), func() {})
	m.Unlock()
	injected := make(chan struct{})
	go m.Inject(func() { close(injected) })
	if err := m.Run(nil, func() bool {
		select {
		case <-injected:
			return true
		default:
			return false
		}
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	go close(stop)
	if err := m.Run(stop, func() bool { return false }); err != nil {
		t.Fatal(err)
	}
	if p := m.Pacing(); p.Error.Count != 0 || p.Behind.Count != 1 {
		t.Errorf("Pacing() = %+v; want nothing slept for and the one injected event", p)
	}
}
