package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress shows a long command's done/total and the time left on one line of
// a terminal's stderr, redrawn in place; when stderr is not a terminal it
// shows nothing at all (logs and CI stay clean).
type progress struct {
	mu          sync.Mutex
	w           io.Writer
	what        string
	start       time.Time
	done, total int
	drawn       bool
}

// newProgress is nil (no output) unless stderr is a terminal.
func newProgress(stderr io.Writer, what string) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: stderr, what: what, start: time.Now()}
}

// Tick records done of total and redraws the line.
func (p *progress) Tick(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.draw()
}

// Write prints a line above the status line (compare's line per run).
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	n, err := p.w.Write(b)
	p.draw()
	return n, err
}

// Finish removes the status line.
func (p *progress) Finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

func (p *progress) draw() {
	if p.total == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s: %d/%d done, %s", p.what, p.done, p.total, timeLeft(time.Since(p.start), p.done, p.total))
	p.drawn = true
}

// timeLeft extrapolates from the runs done so far.
func timeLeft(elapsed time.Duration, done, total int) string {
	if done == 0 {
		return "time left unknown until the first finishes"
	}
	left := elapsed / time.Duration(done) * time.Duration(total-done)
	return "about " + left.Round(time.Second).String() + " left"
}
