package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"mesonemu/compare"
	"mesonemu/scan"
	"mesonemu/shard"
)

func init() { register(newMergeCmd) }

// mergeOpts are merge's options.
type mergeOpts struct {
	cmdFlags
	text bool
}

func newMergeCmd(e *env) *cobra.Command {
	f := &mergeOpts{}
	c := &cobra.Command{Use: "merge FILE...", Args: func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usagef("merge: name the shard files (mesonemu merge a.json b.json ...)")
		}
		return nil
	},
		Short: "put the --shard i/N files of one scan or compare back together: the unsharded run's output",
		Example: `  mesonemu scan --tcp --time 1s --shard 1/2 --json > a.json
  mesonemu scan --tcp --time 1s --shard 2/2 --json > b.json
  mesonemu merge a.json b.json          # = mesonemu scan --tcp --time 1s --json
  mesonemu merge --text a.json b.json   # = mesonemu scan --tcp --time 1s`,
		RunE: func(_ *cobra.Command, args []string) error { return f.run(e, args) }}
	fs := c.Flags()
	f.fs = fs
	fs.BoolVar(&f.text, "text", false, "print the run's table instead of its JSON")
	return c
}

// readShards reads every file and checks they are all the shards of one run.
func readShards(paths []string) ([]shardFile, error) {
	files := make([]shardFile, len(paths))
	for i, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, usagef("merge: %v", unwrapPath(err))
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&files[i]); err != nil || files[i].Version == "" || dec.More() {
			return nil, usagef("merge: %s: not a mesonemu shard file (scan or compare --shard i/N --json)", p)
		}
		f := files[i]
		if f.Interrupted {
			return nil, usagef("merge: %s: shard %s was interrupted before it finished: run it again", p, f.Shard)
		}
		if (f.Scan == nil) == (f.Compare == nil) || f.Scan != nil && f.Scan.Shard != f.Shard || f.Compare != nil && f.Compare.Shard != f.Shard {
			return nil, usagef("merge: %s: not a mesonemu shard file (no part, or its shard is not %s)", p, f.Shard)
		}
		if i > 0 {
			if err := sameRun(files[0], f); err != nil {
				return nil, usagef("merge: %s and %s are shards of different runs: %v", paths[0], p, err)
			}
		}
	}
	shards := make([]shard.Shard, len(files))
	for i, f := range files {
		if j := slices.IndexFunc(files[:i], func(g shardFile) bool { return g.Shard == f.Shard }); j >= 0 {
			return nil, usagef("merge: %s and %s are both shard %s", paths[j], paths[i], f.Shard)
		}
		shards[i] = f.Shard
	}
	if err := shard.Complete(shards); err != nil {
		return nil, usagef("merge: %v", err)
	}
	return files, nil
}

// sameRun says how two shard files differ in their run, if they do.
func sameRun(a, b shardFile) error {
	switch {
	case a.Version != b.Version:
		return fmt.Errorf("built by %q and %q", a.Version, b.Version)
	case a.Command != b.Command:
		return fmt.Errorf("%s and %s", a.Command, b.Command)
	case a.Shard.Count != b.Shard.Count:
		return fmt.Errorf("split %d and %d ways", a.Shard.Count, b.Shard.Count)
	}
	for i := range max(len(a.Run), len(b.Run)) {
		if i >= len(a.Run) || i >= len(b.Run) || a.Run[i] != b.Run[i] {
			return fmt.Errorf("%s and %s", at(a.Run, i), at(b.Run, i))
		}
	}
	return nil
}

func at(run []string, i int) string {
	if i < len(run) {
		return run[i]
	}
	return "(no more flags)"
}

func (f *mergeOpts) run(e *env, paths []string) error {
	files, err := readShards(paths)
	if err != nil {
		return err
	}
	switch files[0].Command {
	case "scan":
		return f.mergeScan(e, files)
	case "compare", "compare --ablate":
		return f.mergeCompare(e, files)
	}
	return usagef("merge: %s: shards of %q, which merge does not know", paths[0], files[0].Command)
}

// mergeScan prints the merged scan as scan prints it.
func (f *mergeOpts) mergeScan(e *env, files []shardFile) error {
	parts := make([]*scan.Part, len(files))
	for i, sf := range files {
		parts[i] = sf.Scan
	}
	r, err := scan.Merge(parts)
	if r == nil {
		return usagef("merge: %v", err)
	}
	if err != nil { // a cell failed: the unsharded scan prints nothing either
		return err
	}
	if f.text {
		return r.WriteTable(e.stdout)
	}
	return r.WriteJSON(e.stdout)
}

// mergeCompare prints the merged table as compare prints it.
func (f *mergeOpts) mergeCompare(e *env, files []shardFile) error {
	parts := make([]*compare.Part, len(files))
	for i, sf := range files {
		parts[i] = sf.Compare
	}
	if files[0].Command == "compare --ablate" {
		r, err := compare.MergeAblation(parts)
		if err != nil {
			return usagef("merge: %v", err)
		}
		if f.text {
			compare.WriteAblation(e.stdout, r)
			return nil
		}
		return writeJSON(e.stdout, r)
	}
	r, err := compare.Merge(parts)
	if err != nil {
		return usagef("merge: %v", err)
	}
	if f.text {
		compare.WriteTable(e.stdout, r)
		return nil
	}
	return writeJSON(e.stdout, r)
}
