package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// FullFrame is the length, FCS included, at which a frame is lost with
// probability Loss; shorter frames are lost in proportion to their length,
// as bit errors on a wire lose them (docs/reference/rgmii-timing.md §2 step 5).
const FullFrame = 1518

// wireOverhead is what a frame costs on the line beyond the bytes a TAP
// hands over: FCS 4, preamble and SFD 8, inter-frame gap 12.
const wireOverhead = 24

// Direction is one way of the link: how it loses, delays and paces frames.
type Direction struct {
	Loss  float64       // loss probability of a full 1518-byte frame, in [0, 1]
	Delay time.Duration // one-way delay added after the frame's last bit
	Rate  float64       // line rate in bit/s; 0 paces nothing
	Seed  uint64        // seeds the loss draws: one seed, one sequence of decisions
}

// Validate refuses settings the link cannot honour.
func (d Direction) Validate() error {
	switch {
	case !(d.Loss >= 0 && d.Loss <= 1):
		return fmt.Errorf("loss %v: want a probability in [0, 1]", d.Loss)
	case d.Delay < 0:
		return fmt.Errorf("delay %v: want 0 or more", d.Delay)
	case !(d.Rate >= 0) || d.Rate > 1e12:
		return fmt.Errorf("rate %v bit/s: want 0 (unpaced) up to 1e12", d.Rate)
	}
	return nil
}

// lossOf is the probability that a frame of n bytes (as a TAP gives it,
// without FCS) is lost.
func (d Direction) lossOf(n int) float64 {
	p := d.Loss * float64(n+4) / FullFrame
	if p > 1 {
		return 1
	}
	return p
}

// Counters are what one direction did with the frames it read.
type Counters struct {
	Passed   uint64 // written out, after the delay
	Dropped  uint64 // lost on purpose, by the loss draw
	Oversize uint64 // frames longer than a 1514-byte Ethernet frame (GSO leaked through)
}

// queueLimit bounds the frames in flight in one direction (1 Gbit/s for
// 50 ms is ~4100 full frames). A full queue stops the reader, so the host's
// TAP queue fills and the kernel drops and counts, as at a real NIC's ring.
const queueLimit = 8192

// clock lets the tests run the pacing and the delays on virtual time.
type clock struct {
	now   func() time.Time
	sleep func(time.Duration)
}

var wallClock = clock{now: time.Now, sleep: time.Sleep}

type pending struct {
	frame []byte
	due   time.Time
}

// pump carries frames from in to out until in fails (closed), then returns
// once every queued frame has been written. onFrame, if not nil, runs after
// each frame is decided (passed or dropped), for waiting on events.
type pump struct {
	dir     Direction
	clk     clock
	rng     *rand.Rand
	queue   chan pending
	mu      sync.Mutex
	c       Counters
	onFrame func(Counters)
}

func newPump(dir Direction, clk clock) *pump {
	return &pump{dir: dir, clk: clk, rng: rand.New(rand.NewPCG(dir.Seed, 0x6c6f7373)), queue: make(chan pending, queueLimit)}
}

// Counters returns a copy of the counters so far.
func (p *pump) Counters() Counters {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c
}

func (p *pump) count(f func(*Counters)) {
	p.mu.Lock()
	f(&p.c)
	c := p.c
	p.mu.Unlock()
	if p.onFrame != nil {
		p.onFrame(c)
	}
}

// run reads from in and writes to out; it returns the read error that ended
// it (io.EOF or a closed device count as a normal end) joined with the
// first write error.
func (p *pump) run(in io.Reader, out io.Writer) error {
	werr := make(chan error, 1)
	go func() { werr <- p.write(out) }()
	rerr := p.read(in)
	close(p.queue)
	err := <-werr
	if isEnd(rerr) {
		rerr = nil
	}
	return errors.Join(rerr, err)
}

func (p *pump) read(in io.Reader) error {
	buf := make([]byte, 65536)
	var free time.Time // when the line finishes the last frame accepted
	for {
		n, err := in.Read(buf)
		if err != nil {
			return err
		}
		now := p.clk.now()
		if free.Before(now) {
			free = now
		}
		if p.dir.Rate > 0 {
			free = free.Add(time.Duration(math.Round(float64((n+wireOverhead)*8) / p.dir.Rate * 1e9)))
		}
		if n > 1514 {
			p.count(func(c *Counters) { c.Oversize++ })
		}
		if p.dir.Loss > 0 && p.rng.Float64() < p.dir.lossOf(n) {
			p.count(func(c *Counters) { c.Dropped++ })
			continue
		}
		p.queue <- pending{frame: append([]byte(nil), buf[:n]...), due: free.Add(p.dir.Delay)}
	}
}

func (p *pump) write(out io.Writer) error {
	var first error
	for f := range p.queue {
		if d := f.due.Sub(p.clk.now()); d > 0 {
			p.clk.sleep(d)
		}
		if _, err := out.Write(f.frame); err != nil && first == nil && !isEnd(err) {
			first = fmt.Errorf("write: %w", err)
		}
		p.count(func(c *Counters) { c.Passed++ })
	}
	return first
}
