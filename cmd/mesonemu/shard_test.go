package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runShards runs args as shards 1/n..n/n and returns their files.
func runShards(t *testing.T, args []string, n int) []string {
	t.Helper()
	var files []string
	for i := 1; i <= n; i++ {
		a := append(append([]string{}, args...), "--json", "--shard", fmt.Sprintf("%d/%d", i, n))
		code, out, errOut := runCLI(a...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", a, code, errOut)
		}
		p := filepath.Join(t.TempDir(), fmt.Sprintf("shard%d.json", i))
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// TestMergeEqualsUnsharded: every sweep, split 2 and 3 ways and merged, is
// byte for byte the unsharded run, as JSON and as the table.
func TestMergeEqualsUnsharded(t *testing.T) {
	cases := []struct {
		args   []string
		shards []int
	}{
		{[]string{"scan", "--tcp", "--time", "1s", "--jobs", "1"}, []int{2, 3}},
		{[]string{"scan", "--skew-from", "0", "--skew-to", "500", "--skew-step", "250", "--jobs", "1"}, []int{2, 3}},
		{[]string{"compare", "--time", "1s", "--seeds", "2", "--jobs", "1"}, []int{3}},
		{[]string{"compare", "--ablate=tsq", "--time", "1s", "--jobs", "1"}, []int{2}},
	}
	for _, c := range cases {
		args := c.args
		_, wantJSON, _ := runCLI(append(args, "--json")...)
		_, wantText, _ := runCLI(args...)
		if !strings.Contains(wantJSON, "{") || wantText == "" {
			t.Fatalf("%v: no output to compare with", args)
		}
		for _, n := range c.shards {
			files := runShards(t, args, n)
			for _, form := range []struct {
				flags []string
				want  string
			}{{nil, wantJSON}, {[]string{"--text"}, wantText}} {
				code, got, errOut := runCLI(append(append([]string{"merge"}, form.flags...), files...)...)
				if code != 0 || got != form.want {
					t.Errorf("%v in %d shards, merge %v: exit %d (%s), output equal: %v\ngot:\n%s\nwant:\n%s",
						args, n, form.flags, code, errOut, got == form.want, got, form.want)
				}
			}
		}
	}
}

// TestShardRefusals: a bad shard, a shard that cannot be merged, and merges
// of files that are not one run's shards are one line and exit status 2.
func TestShardRefusals(t *testing.T) {
	quick := []string{"scan", "--skew-from", "0", "--skew-to", "250", "--skew-step", "250", "--jobs", "1"}
	two := runShards(t, quick, 2)
	other := runShards(t, append(quick, "--seed", "2"), 2)
	dir := t.TempDir()
	notShard := filepath.Join(dir, "scan.json")
	_, out, _ := runCLI(append(quick, "--json")...)
	if err := os.WriteFile(notShard, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"scan", "--shard", "0/2", "--json"}, "shard 0/2: i must be 1..2"},
		{[]string{"scan", "--shard", "3/2", "--json"}, "i must be 1..2"},
		{[]string{"scan", "--shard", "1/0", "--json"}, "N must be 1.."},
		{[]string{"scan", "--shard", "x/y", "--json"}, "want i/N"},
		{[]string{"compare", "--shard", "1/2"}, "--shard 1/2: a shard writes a JSON file"},
		{[]string{"scan", "--shard", "1/2", "--json", "--png", filepath.Join(dir, "m.png")}, "--png: a shard has only part of the map"},
		{[]string{"scan", "--shard", "1/9", "--json"}, "the run has 8 points, so N can be at most 8"},
		{[]string{"compare", "--shard", "1/8", "--json"}, "the run has 7 points"},
		{[]string{"linktest", "--shard", "1/2"}, "--shard does not apply to linktest"},
		{[]string{"merge", two[0]}, "missing shard 2/2"},
		{[]string{"merge", two[0], two[0], two[1]}, "are both shard 1/2"},
		{[]string{"merge", two[0], other[1]}, "shards of different runs: --seed=1 and --seed=2"},
		{[]string{"merge", two[0], filepath.Join(dir, "none.json")}, "no such file"},
		{[]string{"merge", notShard}, "not a mesonemu shard file"},
		{[]string{"merge"}, "name the shard files"},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestInterruptedShard: a shard a signal stopped still writes its file,
// marked interrupted, and merge refuses it.
func TestInterruptedShard(t *testing.T) {
	for _, args := range [][]string{
		{"scan", "--tcp", "--time", "1s", "--jobs", "1", "--json", "--shard", "1/2"},
		{"compare", "--time", "1s", "--jobs", "1", "--json", "--shard", "1/2"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(signalError{syscall.SIGINT})
		var out, errb bytes.Buffer
		if code := run(ctx, args, &out, &errb); code != exitStatus(syscall.SIGINT) {
			t.Errorf("%v after SIGINT: exit %d; stderr %q", args, code, errb.String())
		}
		var f shardFile
		if err := json.Unmarshal(out.Bytes(), &f); err != nil || !f.Interrupted || f.Shard.String() != "1/2" {
			t.Errorf("%v after SIGINT: shard file %+v (%v), want shard 1/2 marked interrupted", args, f, err)
			continue
		}
		p := filepath.Join(t.TempDir(), "a.json")
		if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI("merge", p, p)
		if code != 2 || !strings.Contains(errOut, "shard 1/2 was interrupted") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("merge of an interrupted shard: exit %d, stderr %q", code, errOut)
		}
	}
}
