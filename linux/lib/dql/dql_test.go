package dql

import (
	"testing"

	"mesonemu/emu"
)

const frame = 1514

// fill queues frames until the queue must stop, as netdev_tx_sent_queue does
// after each one, and returns how many went in.
func fill(l *Limits) int {
	n := 0
	for {
		l.Queued(frame)
		n++
		if l.Avail() < 0 {
			return n
		}
	}
}

// A queue that runs dry after every completion grows its limit by what was sent
// and completed since the last completion: 1, 3, 7, 15 frames.
func TestStarvedQueueGrows(t *testing.T) {
	tests := []struct {
		cycle      int
		wantQueued int    // frames that went in before the queue stopped
		wantLimit  uint32 // after completing them all
	}{
		{1, 1, 1 * frame},
		{2, 2, 3 * frame},
		{3, 4, 7 * frame},
		{4, 8, 15 * frame},
	}
	l := New(100)
	for _, tt := range tests {
		n := fill(l)
		l.Completed(uint32(n*frame), emu.Time(tt.cycle)*emu.Millisecond)
		if n != tt.wantQueued || l.Limit() != tt.wantLimit {
			t.Fatalf("cycle %d: %d frames queued, limit %d; want %d, %d", tt.cycle, n, l.Limit(), tt.wantQueued, tt.wantLimit)
		}
		if l.InFlight() != 0 {
			t.Fatalf("cycle %d: %d bytes in flight after completing all", tt.cycle, l.InFlight())
		}
	}
}

// A queue kept busy (one frame completed and one queued every 100 us) has slack:
// a 7-frame limit is more than twice the 1 frame completed each time. The
// limit stays for the hold time (HZ = 100 jiffies), then loses the smallest
// slack seen, 7 - 2 = 5 frames.
func TestBusyQueueShrinksAfterHoldTime(t *testing.T) {
	tests := []struct {
		name      string
		hz        int
		runFor    emu.Time
		wantLimit uint32
	}{
		{"within the hold time", 100, 900 * emu.Millisecond, 7 * frame},
		{"past the hold time", 100, 1100 * emu.Millisecond, 2 * frame},
		{"microsecond clock, past 1 s", 0, 1100 * emu.Millisecond, 2 * frame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(tt.hz)
			now := emu.Time(0)
			for range 3 { // grow to 7 frames while starved
				now += emu.Millisecond
				l.Completed(uint32(fill(l)*frame), now)
			}
			if l.Limit() != 7*frame {
				t.Fatalf("limit %d after growing, want %d", l.Limit(), 7*frame)
			}
			for range 7 {
				l.Queued(frame)
			}
			end := now + tt.runFor
			for now < end && l.InFlight() > 0 {
				now += 100 * emu.Microsecond
				l.Completed(frame, now)
				if l.Avail() >= frame {
					l.Queued(frame)
				}
			}
			if l.Limit() != tt.wantLimit {
				t.Fatalf("limit %d frames, want %d", l.Limit()/frame, tt.wantLimit/frame)
			}
		})
	}
}

// Completing more than is in flight cannot underflow the counts, and Reset
// returns to a zero limit.
func TestBoundsAndReset(t *testing.T) {
	l := New(100)
	l.Queued(frame)
	l.Completed(10*frame, emu.Millisecond)
	if l.InFlight() != 0 || l.Limit() != frame {
		t.Fatalf("in flight %d, limit %d", l.InFlight(), l.Limit())
	}
	l.Reset(2 * emu.Millisecond)
	if l.Limit() != 0 || l.Avail() != 0 || l.InFlight() != 0 {
		t.Fatalf("after reset: limit %d, avail %d, in flight %d", l.Limit(), l.Avail(), l.InFlight())
	}
}
