package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// TestProgressOnlyOnATerminal: no progress object (so no output) for a
// buffer or a pipe; on a terminal the line says done/total and the time left.
func TestProgressOnlyOnATerminal(t *testing.T) {
	if p := newProgress(&bytes.Buffer{}, "compare"); p != nil {
		t.Error("progress on a bytes.Buffer")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if p := newProgress(w, "compare"); p != nil {
		t.Error("progress on a pipe")
	}
	var out bytes.Buffer
	p := &progress{w: &out, what: "compare", start: time.Now().Add(-10 * time.Second)}
	p.Tick(0, 4)
	p.Tick(1, 4)
	if _, err := p.Write([]byte("  before the fix seed 1: 254.7 Mbit/s\n")); err != nil {
		t.Fatal(err)
	}
	p.Finish()
	got := out.String()
	for _, want := range []string{"compare: 0/4 done, time left unknown", "compare: 1/4 done, about 30s left", "\r\033[K  before the fix seed 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress output lacks %q: %q", want, got)
		}
	}
	if !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("Finish leaves the status line: %q", got)
	}
	for _, c := range []struct {
		elapsed     time.Duration
		done, total int
		want        string
	}{
		{time.Minute, 1, 3, "about 2m0s left"},
		{90 * time.Second, 3, 4, "about 30s left"},
		{time.Second, 0, 4, "time left unknown until the first finishes"},
	} {
		if got := timeLeft(c.elapsed, c.done, c.total); got != c.want {
			t.Errorf("timeLeft(%v, %d, %d) = %q, want %q", c.elapsed, c.done, c.total, got, c.want)
		}
	}
}
