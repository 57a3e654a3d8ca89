package main

import (
	"encoding/json"
	"io"
	"time"

	"github.com/spf13/cobra"

	"mesonemu/iperf3"
	"mesonemu/perfrun"
)

// runOpts are the main job's options.
type runOpts struct {
	boardRun
	duration durationValue
	reverse  bool
	parallel int
	counters bool
	ablate   ablateFlag
	json     bool
	expect   string
	cpufreq  string
	calib    string
}

// newRunCmd is the main job: boot, link, iperf3 board -> PC in virtual time.
func newRunCmd(e *env) *cobra.Command {
	o := &runOpts{}
	c := &cobra.Command{
		Use:   "run",
		Args:  noArgs,
		Short: "boot the board and run iperf3 from the board to the PC (the default)",
		RunE:  func(*cobra.Command, []string) error { return o.run(e) },
	}
	fs := c.Flags()
	o.boardRun.add(fs)
	addTime(fs, &o.duration, 10*time.Second, "iperf3 test length in virtual time, whole seconds (e.g. 10s)")
	addReverse(fs, &o.reverse)
	fs.IntVar(&o.parallel, "parallel", 1, "parallel iperf3 streams")
	fs.BoolVar(&o.counters, "counters", false, "print the ethtool -S style counters of every stage after the verdict")
	addAblate(fs, &o.ablate, "switch one timing mechanism off (--ablate=NAME)")
	addJSON(fs, &o.json)
	addExpect(fs, &o.expect)
	fs.StringVar(&o.cpufreq, "cpufreq", perfrun.DefaultCPUFreq, "the board CPU's frequency governor: off (clock fixed at the top OPP) or ondemand (Linux's, over meson8b's OPP table; whether the commit's board ran it is unconfirmed, docs/reference/cpufreq.md)")
	fs.StringVar(&o.calib, "calibration", perfrun.CalibrationFitted, "fitted (every calibrated parameter) or none (nothing fitted to the commit's before row: the board CPU's wake turnaround off, the sourced-only prediction); docs/model.md")
	return c
}

// perfOptions checks the main job's options and builds its run.
func (f *runOpts) perfOptions() (perfrun.Options, error) {
	so, err := f.simOptions(f.stmmacTuning, f.seed)
	if err != nil {
		return perfrun.Options{}, err
	}
	if err := f.out.check(); err != nil {
		return perfrun.Options{}, err
	}
	o, err := f.pc.perfOptions(so, time.Duration(f.duration), f.parallel)
	if err != nil {
		return o, err
	}
	o.Reverse, o.JSON, o.Counters = f.reverse, f.json, f.counters
	if f.ablate.on && len(f.ablate.names) != 1 {
		return o, usagef("run --ablate: name one mechanism, e.g. --ablate=tsq (compare --ablate runs them all)")
	}
	if len(f.ablate.names) == 1 {
		o.Ablate = f.ablate.names[0]
	}
	if err := checkExpect(f.expect); err != nil {
		return o, err
	}
	o.CPUFreq, o.Calibration = f.cpufreq, f.calib
	if err := o.Validate(); err != nil {
		return o, optionError(err)
	}
	if f.json && f.counters {
		return o, usagef("--counters with --json: the JSON report always holds the counters")
	}
	return o, nil
}

func (f *runOpts) run(e *env) error {
	setProcs(1) // one engine
	o, err := f.perfOptions()
	if err != nil {
		return err
	}
	if f.out.trace == "regs" {
		o.Sim.Trace = e.stderr
	}
	o.Output = e.stdout
	capt, err := f.out.openCapture(o.Sim.Board)
	if err != nil {
		return err
	}
	if capt != nil {
		o.Taps = append(o.Taps, capt.Tap)
	}
	res, rep, err := perfrun.Run(e.ctx, o)
	if err := f.out.closeCapture(capt, e.stderr, err); err != nil && (rep == nil || rep.Verdict == nil || e.ctx.Err() == nil) {
		return err
	}
	if f.json {
		if err := writeRunJSON(e.stdout, res, rep); err != nil {
			return err
		}
	}
	if e.ctx.Err() != nil {
		return e.ctx.Err()
	}
	return expectHolds(f.expect, e.stderr, rep.Verdict.Class, rep.Verdict.Why)
}

// runJSON is iperf3's own JSON object with one more top-level key: the
// embedded result's keys come first, in iperf3's order.
type runJSON struct {
	*iperf3.Result
	Mesonemu *perfrun.Report `json:"mesonemu"`
}

// writeRunJSON prints the main job's JSON object.
func writeRunJSON(w io.Writer, res *iperf3.Result, rep *perfrun.Report) error {
	if res == nil {
		res = &iperf3.Result{}
	}
	out, err := json.MarshalIndent(runJSON{res, rep}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}
