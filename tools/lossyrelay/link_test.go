package main

import (
	"io"
	"math"
	"sync"
	"testing"
	"time"
)

// frames is a port that hands out a fixed list of frames, then io.EOF, and
// records what is written to it.
type frames struct {
	mu      sync.Mutex
	in      [][]byte
	written [][]byte
}

func (f *frames) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.in) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.in[0])
	f.in = f.in[1:]
	return n, nil
}

func (f *frames) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.written = append(f.written, append([]byte(nil), p...))
	return len(p), nil
}

func sized(n, length int) *frames {
	f := &frames{}
	for i := range n {
		b := make([]byte, length)
		b[0] = byte(i)
		f.in = append(f.in, b)
	}
	return f
}

// stopped is a clock that never moves: every frame arrives at t0, so each
// due time is t0 + the line time of the frames so far + the delay, and the
// writer's sleeps show them exactly.
type stopped struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (s *stopped) clock() clock {
	t0 := time.Unix(1e9, 0)
	return clock{now: func() time.Time { return t0 }, sleep: func(d time.Duration) {
		s.mu.Lock()
		s.sleeps = append(s.sleeps, d)
		s.mu.Unlock()
	}}
}

func TestPumpPacesAndDelays(t *testing.T) {
	tests := []struct {
		name   string
		dir    Direction
		length int
		want   []time.Duration
	}{
		// 1514 + 24 bytes at 1 Gbit/s is 12.304 µs on the line.
		{"1 Gbit/s, 1 ms", Direction{Rate: 1e9, Delay: time.Millisecond}, 1514,
			[]time.Duration{1012304, 1024608, 1036912}},
		{"100 Mbit/s, no delay", Direction{Rate: 1e8}, 1514,
			[]time.Duration{123040, 246080, 369120}},
		{"unpaced, 350 µs", Direction{Delay: 350 * time.Microsecond}, 60,
			[]time.Duration{350000, 350000, 350000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s stopped
			in, out := sized(3, tc.length), &frames{}
			p := newPump(tc.dir, s.clock())
			if err := p.run(in, out); err != nil {
				t.Fatal(err)
			}
			if len(out.written) != 3 || out.written[2][0] != 2 {
				t.Fatalf("wrote %d frames, want 3 in order", len(out.written))
			}
			if len(s.sleeps) != len(tc.want) {
				t.Fatalf("slept %v, want %v", s.sleeps, tc.want)
			}
			for i := range tc.want {
				if s.sleeps[i] != tc.want[i] {
					t.Errorf("frame %d waited %v, want %v", i, s.sleeps[i], tc.want[i])
				}
			}
			if c := p.Counters(); c != (Counters{Passed: 3}) {
				t.Errorf("counters %+v, want 3 passed", c)
			}
		})
	}
}

// TestPumpLosesInProportionToLength: a frame of n bytes is lost with
// probability loss x (n + 4) / 1518; the count over N frames is within 5
// standard deviations of N p, and the same seed loses the same frames.
func TestPumpLosesInProportionToLength(t *testing.T) {
	tests := []struct {
		loss    float64
		length  int
		n       int
		wantP   float64
		exactly bool // p is 0 or 1: no spread at all
	}{
		{0.00388, 1514, 100000, 0.00388, false},
		{0.01, 1514, 50000, 0.01, false},
		{1, 60, 20000, 64.0 / 1518, false},
		{1, 1514, 1000, 1, true},
		{0, 1514, 1000, 0, true},
	}
	for _, tc := range tests {
		var runs [2]Counters
		for i := range runs {
			p := newPump(Direction{Loss: tc.loss, Seed: 7}, (&stopped{}).clock())
			out := &frames{}
			if err := p.run(sized(tc.n, tc.length), out); err != nil {
				t.Fatal(err)
			}
			runs[i] = p.Counters()
			if got := uint64(len(out.written)); got != runs[i].Passed {
				t.Errorf("loss %v: wrote %d frames but counted %d passed", tc.loss, got, runs[i].Passed)
			}
		}
		c := runs[0]
		if runs[1] != c {
			t.Errorf("loss %v: seed 7 gave %+v, then %+v", tc.loss, c, runs[1])
		}
		if c.Passed+c.Dropped != uint64(tc.n) {
			t.Errorf("loss %v: %d passed + %d dropped, want %d frames", tc.loss, c.Passed, c.Dropped, tc.n)
		}
		mean := float64(tc.n) * tc.wantP
		spread := 5 * math.Sqrt(mean*(1-tc.wantP))
		if tc.exactly {
			spread = 0
		}
		if d := math.Abs(float64(c.Dropped) - mean); d > spread {
			t.Errorf("loss %v, %d-byte frames: dropped %d of %d, want %.1f +- %.1f", tc.loss, tc.length, c.Dropped, tc.n, mean, spread)
		}
	}
}

func TestPumpCountsOversizeFrames(t *testing.T) {
	p := newPump(Direction{}, (&stopped{}).clock())
	in := &frames{in: [][]byte{make([]byte, 1514), make([]byte, 9000), make([]byte, 60)}}
	if err := p.run(in, &frames{}); err != nil {
		t.Fatal(err)
	}
	if c := p.Counters(); c != (Counters{Passed: 3, Oversize: 1}) {
		t.Errorf("counters %+v, want 3 passed, 1 oversize", c)
	}
}

func TestDirectionValidate(t *testing.T) {
	tests := []struct {
		dir Direction
		ok  bool
	}{
		{Direction{Loss: 0.00388, Delay: time.Millisecond, Rate: 1e9}, true},
		{Direction{Loss: 1}, true},
		{Direction{Loss: -0.1}, false},
		{Direction{Loss: 1.5}, false},
		{Direction{Loss: math.NaN()}, false},
		{Direction{Delay: -time.Microsecond}, false},
		{Direction{Rate: -1}, false},
		{Direction{Rate: math.Inf(1)}, false},
	}
	for _, tc := range tests {
		if err := tc.dir.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: Validate() = %v, want ok %v", tc.dir, err, tc.ok)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		args []string
		ok   bool
	}{
		{nil, true},
		{[]string{"-loss", "0.01", "-delay", "350us", "-back", "100us", "-seed", "3"}, true},
		{[]string{"-loss", "2"}, false},
		{[]string{"-a", "x", "-b", "x"}, false},
		{[]string{"-addr-a", "198.18.9.1/24"}, false}, // the same as B's
		{[]string{"-addr-a", "fd00::1/64"}, false},
		{[]string{"-dev-a", "a-name-of-sixteen"}, false},
		{[]string{"stray"}, false},
	}
	for _, tc := range tests {
		if _, err := parse(tc.args, io.Discard); (err == nil) != tc.ok {
			t.Errorf("parse(%q) = %v, want ok %v", tc.args, err, tc.ok)
		}
	}
}
