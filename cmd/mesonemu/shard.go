package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"mesonemu/compare"
	"mesonemu/scan"
	"mesonemu/shard"
)

// --shard i/N: a sweep's points are independent and deterministic, so shard
// i runs those whose index modulo N is i-1 and writes them as one JSON shard
// file; `mesonemu merge` puts the N files back together into the unsharded
// run's output (docs/sharding.md).

// shardFlag is --shard i/N (zero: the whole run).
type shardFlag struct{ shard.Shard }

func (s *shardFlag) String() string {
	if !s.On() {
		return ""
	}
	return s.Shard.String()
}
func (s *shardFlag) Type() string { return "i/N" }
func (s *shardFlag) Set(v string) error {
	sh, err := shard.Parse(v)
	if err != nil {
		return err
	}
	s.Shard = sh
	return nil
}

func addShard(fs *pflag.FlagSet, s *shardFlag) {
	fs.Var(s, "shard", "run only shard i of N of the points (index mod N = i-1) and write them as JSON for `mesonemu merge` (with --json)")
}

// notInFingerprint are the flags that do not change a run's output: the
// shard itself, the output form, the worker count and the progress.
var notInFingerprint = map[string]bool{"shard": true, "json": true, "jobs": true, "help": true, "version": true}

// fingerprint is the run's every flag as --name=value (defaults included),
// sorted: shards of one run have the same.
func fingerprint(fs *pflag.FlagSet) []string {
	var run []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !notInFingerprint[f.Name] {
			run = append(run, fmt.Sprintf("--%s=%s", f.Name, f.Value.String()))
		}
	})
	return run
}

// checkShard refuses a shard whose output could not be merged: the shard
// file is JSON.
func checkShard(c cmdFlags, s shardFlag, json bool, pictures ...string) error {
	if !s.On() {
		return nil
	}
	if !json {
		return usagef("--shard %s: a shard writes a JSON file for mesonemu merge: add --json (merge --text gives the table)", s.Shard)
	}
	for _, p := range pictures {
		if c.given(p) {
			return usagef("--%s: a shard has only part of the map; draw it from the whole run", p)
		}
	}
	return nil
}

// shardFile is what a shard writes and merge reads.
type shardFile struct {
	// Version is the build that ran it (versionLine): shards of different
	// builds are not merged.
	Version string `json:"mesonemu_shard"`
	// Command is "scan", "compare" or "compare --ablate".
	Command string      `json:"command"`
	Run     []string    `json:"run"`
	Shard   shard.Shard `json:"shard"`
	// Interrupted: Ctrl-C stopped the shard; it holds what it finished, and
	// merge refuses it.
	Interrupted bool          `json:"interrupted"`
	Scan        *scan.Part    `json:"scan,omitempty"`
	Compare     *compare.Part `json:"compare,omitempty"`
}

// writeShard writes a shard's file; runErr (its run's error) wins.
func writeShard(w io.Writer, fs *pflag.FlagSet, command string, sh shard.Shard, interrupted bool, sp *scan.Part, cp *compare.Part, runErr error) error {
	f := shardFile{Version: versionLine(), Command: command, Run: fingerprint(fs), Shard: sh, Interrupted: interrupted, Scan: sp, Compare: cp}
	return errors.Join(writeJSON(w, f), runErr)
}

// runScanShard runs scan's share of shard sh and writes it.
func (f *scanOpts) runScanShard(e *env, o scan.Options) error {
	p, err := scan.RunPart(e.ctx, o, f.shard.Shard)
	if p == nil || err != nil && !p.Interrupted {
		return shardUsage(err)
	}
	return writeShard(e.stdout, f.fs, "scan", f.shard.Shard, p.Interrupted, p, nil, err)
}

// runCompareShard runs compare's share of shard sh and writes it.
func (f *compareOpts) runCompareShard(e *env, co compare.Options) error {
	var p *compare.Part
	var err error
	command := "compare"
	if f.ablate.on {
		command += " --ablate"
		p, err = compare.RunAblationPart(e.ctx, co, f.ablate.names, f.shard.Shard)
	} else {
		p, err = compare.RunPart(e.ctx, co, f.shard.Shard)
	}
	if p == nil || err != nil && !p.Interrupted {
		return shardUsage(err)
	}
	return writeShard(e.stdout, f.fs, command, f.shard.Shard, p.Interrupted, nil, p, err)
}

// shardUsage makes a shard count the run cannot use a usage error.
func shardUsage(err error) error {
	var fe *shard.FitError
	if errors.As(err, &fe) {
		return usagef("--%v", fe)
	}
	return err
}
