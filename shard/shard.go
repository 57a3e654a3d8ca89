// Package shard splits a sweep of independent, deterministic points between
// machines: shard i of N runs the points whose index modulo N is i-1.
//
// The assignment needs nothing but i, N and the point's index, so every
// machine of a CI matrix or a Kubernetes Indexed Job knows its share without
// talking to the others, and a merge knows where every result belongs.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxCount bounds N: far beyond any matrix, and it keeps the arithmetic small.
const MaxCount = 10000

// Shard is shard Index (1-based) of Count. The zero value is no sharding: one
// machine runs every point.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Parse reads "i/N" (1 <= i <= N).
func Parse(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/N, e.g. 1/4", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate checks 1 <= Index <= Count <= MaxCount (the zero value passes).
func (s Shard) Validate() error {
	switch {
	case s == Shard{}:
		return nil
	case s.Count < 1 || s.Count > MaxCount:
		return fmt.Errorf("shard %s: N must be 1..%d", s, MaxCount)
	case s.Index < 1 || s.Index > s.Count:
		return fmt.Errorf("shard %s: i must be 1..%d", s, s.Count)
	}
	return nil
}

// On reports whether the shard is set (not the zero value).
func (s Shard) On() bool { return s != Shard{} }

// String is "i/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Has reports whether point p (0-based) is this shard's. Every point is the
// zero value's.
func (s Shard) Has(p int) bool { return !s.On() || p%s.Count == s.Index-1 }

// Points lists this shard's points among n, ascending.
func (s Shard) Points(n int) []int {
	var ps []int
	for p := range n {
		if s.Has(p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// Fits refuses a shard count above the number of points (a *FitError): some
// shard would have nothing to run.
func (s Shard) Fits(points int) error {
	if s.On() && s.Count > points {
		return &FitError{s, points}
	}
	return nil
}

// FitError is a shard count above the run's number of points.
type FitError struct {
	Shard  Shard
	Points int
}

func (e *FitError) Error() string {
	return fmt.Sprintf("shard %s: the run has %d points, so N can be at most %d", e.Shard, e.Points, e.Points)
}

// Complete checks that shards are exactly 1/N .. N/N, each once, all of one N.
func Complete(shards []Shard) error {
	if len(shards) == 0 {
		return fmt.Errorf("no shards")
	}
	n := shards[0].Count
	seen := make(map[int]bool, n)
	for _, s := range shards {
		if err := s.Validate(); err != nil || !s.On() {
			return fmt.Errorf("shard %s: not a shard", s)
		}
		if s.Count != n {
			return fmt.Errorf("shards of different runs: %s and %s", shards[0], s)
		}
		if seen[s.Index] {
			return fmt.Errorf("shard %s given twice", s)
		}
		seen[s.Index] = true
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seen[i] {
			missing = append(missing, Shard{i, n}.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing shard %s", strings.Join(missing, ", "))
	}
	return nil
}
