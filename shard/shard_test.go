package shard

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/1", Shard{1, 1}, ""},
		{"3/4", Shard{3, 4}, ""},
		{"0/2", Shard{}, "i must be 1..2"},
		{"3/2", Shard{}, "i must be 1..2"},
		{"1/0", Shard{}, "N must be 1..10000"},
		{"1/10001", Shard{}, "N must be 1..10000"},
		{"x/y", Shard{}, "want i/N"},
		{"2", Shard{}, "want i/N"},
		{"-1/2", Shard{}, "i must be 1..2"},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Parse(%q) = %v, %v; want %v, error with %q", c.in, got, err, c.want, c.err)
		}
	}
}

// TestPointsPartition: the shards of N cover every point exactly once.
func TestPointsPartition(t *testing.T) {
	cases := []struct {
		s    Shard
		n    int
		want []int
	}{
		{Shard{1, 2}, 8, []int{0, 2, 4, 6}},
		{Shard{2, 2}, 8, []int{1, 3, 5, 7}},
		{Shard{3, 3}, 8, []int{2, 5}},
		{Shard{}, 3, []int{0, 1, 2}},
	}
	for _, c := range cases {
		if got := c.s.Points(c.n); !slices.Equal(got, c.want) {
			t.Errorf("%v.Points(%d) = %v, want %v", c.s, c.n, got, c.want)
		}
	}
	for n := 1; n <= 5; n++ {
		seen := make([]int, 13)
		for i := 1; i <= n; i++ {
			for _, p := range (Shard{i, n}).Points(13) {
				seen[p]++
			}
		}
		for p, k := range seen {
			if k != 1 {
				t.Errorf("N=%d: point %d in %d shards", n, p, k)
			}
		}
	}
}

func TestComplete(t *testing.T) {
	cases := []struct {
		in  []Shard
		err string
	}{
		{[]Shard{{2, 3}, {1, 3}, {3, 3}}, ""},
		{[]Shard{{1, 3}, {3, 3}}, "missing shard 2/3"},
		{[]Shard{{1, 2}, {1, 2}, {2, 2}}, "shard 1/2 given twice"},
		{[]Shard{{1, 2}, {2, 3}}, "different runs"},
		{nil, "no shards"},
	}
	for _, c := range cases {
		err := Complete(c.in)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Complete(%v) = %v, want error with %q", c.in, err, c.err)
		}
	}
	if err := (Shard{1, 9}).Fits(8); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Errorf("Fits: %v", err)
	}
}
