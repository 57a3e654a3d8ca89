package main

import (
	"encoding/json"
	"io"
	"time"

	"github.com/spf13/cobra"

	"mesonemu/iperf3"
	"mesonemu/perfrun"
)

// newRunCmd is the main job: boot, link, iperf3 board -> PC in virtual time.
func newRunCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "run",
		Args:  cobra.NoArgs,
		Short: "boot the board and run iperf3 from the board to the PC (the default)",
		RunE:  func(*cobra.Command, []string) error { return cmdRun(e) },
	}
	fs := c.Flags()
	e.f.addSetting(fs, true)
	e.f.addStmmac(fs)
	e.f.addSeed(fs)
	e.f.addTime(fs, 10*time.Second, "iperf3 test length in virtual time, whole seconds (e.g. 10s)")
	e.f.addReverse(fs)
	fs.IntVar(&e.f.parallel, "parallel", 1, "parallel iperf3 streams")
	fs.BoolVar(&e.f.counters, "counters", false, "print the ethtool -S style counters of every stage after the verdict")
	e.f.addPC(fs)
	e.f.addPcap(fs)
	e.f.addAblate(fs, "switch one timing mechanism off (--ablate=NAME)")
	e.f.addTrace(fs)
	e.f.addJSON(fs)
	e.f.addExpect(fs)
	return c
}

func cmdRun(e *env) error {
	f := e.f
	o, err := f.perfOptions()
	if err != nil {
		return err
	}
	if f.ablate.on && len(f.ablate.names) != 1 {
		return usagef("run --ablate: name one mechanism, e.g. --ablate=tsq (compare --ablate runs them all)")
	}
	if err := f.checkExpect(); err != nil {
		return err
	}
	if f.json && f.counters {
		return usagef("--counters with --json: the JSON report always holds the counters")
	}
	if f.trace == "regs" {
		o.Sim.Trace = e.stderr
	}
	o.Output = e.stdout
	capt, err := f.openCapture(o.Sim.Board)
	if err != nil {
		return err
	}
	if capt != nil {
		o.Taps = append(o.Taps, capt.Tap)
	}
	res, rep, err := perfrun.Run(e.ctx, o)
	if err := f.closeCapture(capt, e.stderr, err); err != nil && (rep == nil || rep.Verdict == nil || e.ctx.Err() == nil) {
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
	return f.expectHolds(e.stderr, rep.Verdict.Class, rep.Verdict.Why)
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
