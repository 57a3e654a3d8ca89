package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mesonemu/compare"
	"mesonemu/perfrun"
	"mesonemu/sim"
)

func init() { register(newCompareCmd) }

// compareOpts are compare's options: it sets the rest of each run itself.
type compareOpts struct {
	cmdFlags
	board, rxWatchdog string
	duration          durationValue
	seeds, jobs       int
	ablate            ablateFlag
	json              bool
	shard             shardFlag
}

func newCompareCmd(e *env) *cobra.Command {
	f := &compareOpts{}
	c := &cobra.Command{Use: "compare", Args: noArgs,
		Short: "the commit's configurations side by side with the measured numbers",
		RunE:  func(*cobra.Command, []string) error { return f.run(e) }}
	fs := c.Flags()
	f.fs = fs
	addBoardName(fs, &f.board)
	addRXWatchdog(fs, &f.rxWatchdog)
	addTime(fs, &f.duration, 10*time.Second, "iperf3 test length per run in virtual time, whole seconds")
	fs.IntVar(&f.seeds, "seeds", 1, "seeds per configuration")
	addJobs(fs, &f.jobs)
	addAblate(fs, &f.ablate, "the commit's two rows again with each timing mechanism off in turn (--ablate=NAME,... for some)")
	addJSON(fs, &f.json)
	addShard(fs, &f.shard)
	return c
}

// check refuses what compare's runs cannot take, before any starts.
func (f *compareOpts) check() error {
	s := setting{board: f.board, driver: "fixed", mechanism: "A"}
	if _, err := s.simOptions(stmmacTuning{defaultTuning.kernel, f.rxWatchdog}, defaultSeed); err != nil {
		return err
	}
	if err := checkJobs(f.cmdFlags, f.jobs); err != nil {
		return err
	}
	if err := perfrun.CheckDuration(time.Duration(f.duration)); err != nil {
		return optionError(err)
	}
	if f.seeds < 1 || f.seeds > 100 {
		return usagef("--seeds %d: want 1..100", f.seeds)
	}
	return checkShard(f.cmdFlags, f.shard, f.json)
}

func (f *compareOpts) run(e *env) error {
	if err := f.check(); err != nil {
		return err
	}
	setProcs(f.jobs)
	p := newProgress(e.stderr, "compare")
	defer p.Finish()
	co := compare.Options{Board: f.board, RXWatchdog: f.rxWatchdog, Duration: time.Duration(f.duration), Seeds: f.seeds, Jobs: f.jobs}
	if p != nil {
		co.Progress, co.Tick = p, p.Tick
	}
	if exe, err := os.Executable(); err == nil && tuneProcs {
		co.RunTCP = childRun(func(ctx context.Context, args []string) *exec.Cmd {
			return exec.CommandContext(ctx, exe, args...)
		})
	}
	if f.shard.On() {
		return f.runCompareShard(e, co)
	}
	if f.ablate.on {
		r, err := compare.Ablate(e.ctx, co, f.ablate.names)
		if r == nil || !finishedOrStopped(e, err, len(r.Rows)) && !(f.json && r.Interrupted) {
			return err
		}
		p.Finish()
		if f.json {
			return errors.Join(writeJSON(e.stdout, r), err)
		}
		compare.WriteAblation(e.stdout, r)
		return err
	}
	r, err := compare.Run(e.ctx, co)
	if !finishedOrStopped(e, err, len(r.Rows)) && !(f.json && r.Interrupted) {
		return err
	}
	p.Finish()
	if f.json {
		return errors.Join(writeJSON(e.stdout, r), err)
	}
	compare.WriteTable(e.stdout, r)
	return err
}

// finishedOrStopped: the table is printed when the runs finished, or when
// Ctrl-C stopped them after some rows were complete (those rows, then the
// signal's exit status); a failed run prints nothing but its error. --json
// prints its object after Ctrl-C even with no row (interrupted: true).
func finishedOrStopped(e *env, err error, rows int) bool {
	return err == nil || e.ctx.Err() != nil && rows > 0
}

// childRun runs compare's iperf3 tests as `mesonemu run --json` in child
// processes of one thread each: an engine costs 1.4x as much when Go has a
// second thread, so jobs in one process gain little from a second core. It
// passes on the options compare sets (board, driver, delays, PHY, seed, time)
// and refuses any other, rather than run another configuration.
func childRun(command func(ctx context.Context, args []string) *exec.Cmd) func(context.Context, perfrun.Options) (*perfrun.Report, error) {
	return func(ctx context.Context, o perfrun.Options) (*perfrun.Report, error) {
		s := o.Sim
		carried := sim.Options{Board: s.Board, Driver: s.Driver, TxDelayNs: s.TxDelayNs, PhyMode: s.PhyMode, PHYTXDelay: s.PHYTXDelay, Seed: s.Seed,
			RXWatchdog: s.RXWatchdog}
		if !reflect.DeepEqual(o, perfrun.Options{Sim: carried, Duration: o.Duration, Ablate: o.Ablate, Calibration: o.Calibration}) {
			return nil, errors.New("a child run carries only board, driver, tx-delay-ns, phy-mode, phy-tx-delay, rx-watchdog, seed, time, ablate and calibration")
		}
		args := []string{"run", "--json", "--driver", o.Sim.Driver, "--seed", strconv.FormatUint(o.Sim.Seed, 10), "--time", o.Duration.String()}
		if o.Calibration != "" {
			args = append(args, "--calibration", o.Calibration)
		}
		if o.Ablate != "" {
			args = append(args, "--ablate="+o.Ablate)
		}
		if o.Sim.Board != "" {
			args = append(args, "--board", o.Sim.Board)
		}
		if o.Sim.TxDelayNs != nil {
			args = append(args, "--tx-delay-ns", strconv.FormatUint(uint64(*o.Sim.TxDelayNs), 10))
		}
		if o.Sim.RXWatchdog != "" {
			args = append(args, "--rx-watchdog", o.Sim.RXWatchdog)
		}
		if o.Sim.PhyMode != "" {
			args = append(args, "--phy-mode", o.Sim.PhyMode)
		}
		if o.Sim.PHYTXDelay != nil {
			args = append(args, "--phy-tx-delay", map[bool]string{true: "on", false: "off"}[*o.Sim.PHYTXDelay])
		}
		cmd := command(ctx, args)
		cmd.Env = append(cmd.Environ(), "GOMAXPROCS=1")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("mesonemu %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
		}
		var doc struct {
			Mesonemu *perfrun.Report `json:"mesonemu"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Mesonemu == nil {
			return nil, fmt.Errorf("mesonemu %s: no report in its output (%v)", strings.Join(args, " "), err)
		}
		return doc.Mesonemu, nil
	}
}
