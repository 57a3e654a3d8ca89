package pace

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A watched fd that becomes readable ends a sleep an hour long and its fn
// runs; a fn that returns false leaves the set, so the next sleep is not
// ended by the same fd; Poll runs fn without sleeping, at most once per
// PollEvery.
func TestWatchedFD(t *testing.T) {
	tests := []struct {
		name      string
		keep      bool
		wantCalls int // after the second write
	}{
		{"kept", true, 2},
		{"left the set", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPacer(t)
			var fds [2]int
			if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fds[0])
			defer unix.Close(fds[1])
			calls := 0
			fn := func() bool {
				var b [16]byte
				_, _ = unix.Read(fds[0], b[:])
				calls++
				return tt.keep
			}
			if err := p.Watch(fds[0], fn); err != nil {
				t.Fatal(err)
			}
			_, _ = unix.Write(fds[1], []byte{1})
			reached, err := p.Sleep(Now()+int64(time.Hour), nil)
			if err != nil || reached || calls != 1 {
				t.Fatalf("Sleep = %v, %v with %d calls; want ended early by the fd (false, nil, 1 call)", reached, err, calls)
			}
			_, _ = unix.Write(fds[1], []byte{2})
			if ran, err := p.Poll(p.polled.Load()); err != nil || ran {
				t.Errorf("Poll right after a wait = %v, %v; want nothing before PollEvery", ran, err)
			}
			ran, err := p.Poll(p.polled.Load() + PollEvery)
			if err != nil || ran != tt.keep || calls != tt.wantCalls {
				t.Errorf("Poll = %v, %v with %d calls; want %v, nil, %d", ran, err, calls, tt.keep, tt.wantCalls)
			}
			if err := p.Unwatch(fds[0]); err != nil {
				t.Error(err)
			}
		})
	}
}
