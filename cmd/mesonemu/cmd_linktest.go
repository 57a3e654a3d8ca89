package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"mesonemu/linktest"
)

func init() { register(newLinktestCmd) }

// linktestOpts are linktest's options.
type linktestOpts struct {
	cmdFlags
	setting
	stmmacTuning
	seed               uint64
	frames, size       int
	payload, direction string
	out                outputFlags
	json               bool
	expect             string
}

func newLinktestCmd(e *env) *cobra.Command {
	f := &linktestOpts{}
	c := &cobra.Command{Use: "linktest", Args: noArgs,
		Short: "push raw frames through driver, DMA, MAC, wire, PHY and far end; loss per direction",
		RunE:  func(*cobra.Command, []string) error { return f.run(e) }}
	fs := c.Flags()
	f.fs = fs
	f.setting.add(fs, true)
	f.stmmacTuning.add(fs)
	addSeed(fs, &f.seed)
	fs.IntVar(&f.frames, "frames", 100000, "frames per direction")
	fs.IntVar(&f.size, "size", 1514, "frame length without FCS, 60..1514")
	fs.StringVar(&f.payload, "payload", "random", "random (as iperf3 sends) or zeros")
	fs.StringVar(&f.direction, "direction", "both", "tx, rx or both")
	f.out.addPcap(fs)
	f.out.addTrace(fs)
	addJSON(fs, &f.json)
	addExpect(fs, &f.expect)
	return c
}

func (f *linktestOpts) linkOptions() (linktest.Options, error) {
	o := linktest.Options{Frames: f.frames, Size: f.size, Payload: f.payload, Direction: f.direction}
	if err := o.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	if f.given("rx-watchdog") && o.Direction == "tx" {
		return o, usagef("--rx-watchdog: --direction tx receives nothing; the RX watchdog matters with rx or both")
	}
	return o, nil
}

func (f *linktestOpts) run(e *env) error {
	stdout := e.stdout
	so, err := f.simOptions(f.stmmacTuning, f.seed)
	if err != nil {
		return err
	}
	if err := f.out.check(); err != nil {
		return err
	}
	lo, err := f.linkOptions()
	if err != nil {
		return err
	}
	if err := checkExpect(f.expect); err != nil {
		return err
	}
	if f.out.trace == "regs" {
		so.Trace = e.stderr
	}
	capt, err := f.out.openCapture(so.Board)
	if err != nil {
		return err
	}
	if capt != nil {
		lo.Taps = append(lo.Taps, capt.Tap)
	}
	// Interrupted, the run returns what it measured with the context's error:
	// it is printed, then the error makes the exit status 130 or 143.
	r, err := linktest.Run(e.ctx, so, lo)
	if err := f.out.closeCapture(capt, e.stderr, err); err != nil && (r == nil || !r.Interrupted) {
		return err
	}
	if f.json {
		if err := writeJSON(stdout, r); err != nil {
			return err
		}
	} else {
		writeLinktest(stdout, r, lo)
	}
	if e.ctx.Err() != nil {
		return e.ctx.Err()
	}
	return expectHolds(f.expect, e.stderr, r.Verdict.Class, r.Verdict.Why)
}

func writeLinktest(stdout io.Writer, r *linktest.Result, lo linktest.Options) {
	fmt.Fprintf(stdout, "linktest: %s, driver %s, phy-mode %s, tx-delay %d ns, %d Mbit/s, seed %d\n", r.Board, r.Driver, r.PhyMode, r.TxDelayNs, r.Speed, r.Seed)
	fmt.Fprintf(stdout, "%d frames of %d bytes (+4 FCS), %s payload, per direction\n", lo.Frames, r.Size, r.Payload)
	for _, d := range []*linktest.DirResult{r.TX, r.RX} {
		if d == nil {
			continue
		}
		name := map[string]string{"tx": "TX (board -> PC)", "rx": "RX (PC -> board)"}[d.Direction]
		fmt.Fprintf(stdout, "\n%s\n", name)
		fmt.Fprintf(stdout, "  sent %d, received %d, lost %d\n", d.Sent, d.Received, d.Sent-d.Received)
		for _, x := range d.Drops {
			fmt.Fprintf(stdout, "    %-52s %d\n", x.Cause, x.Count)
		}
		fmt.Fprintf(stdout, "  measured loss  %.4f %%\n  predicted loss %.4f %% (%s)\n", 100*d.MeasuredLoss, 100*d.PredictedLoss, sigmaNote(d))
		fmt.Fprintf(stdout, "  timing budget:\n%s\n", indent(d.Budget.String(), "    "))
	}
	fmt.Fprintf(stdout, "\nverdict: %s: %s\n", r.Verdict.Class, r.Verdict.Why)
	if r.Interrupted {
		fmt.Fprintf(stdout, "interrupted: the counts above are what was measured; frames on their way are in flight\n")
	}
	fmt.Fprintf(stdout, "\n%.3f s of virtual time in %.2f s\n", r.VirtualSecs, r.WallSecs)
}

func sigmaNote(d *linktest.DirResult) string {
	if d.PredictedLoss == 0 || d.PredictedLoss == 1 {
		return "exact"
	}
	// The prediction is the wire's: where it expects no lost frame at all, a
	// sigma would only measure how small it is.
	if expected := d.PredictedLoss * float64(d.Sent); expected < 0.01 {
		if d.CRCErrors > 0 {
			return fmt.Sprintf("it expects %.2g bad-FCS frames of %d; %d came", expected, d.Sent, d.CRCErrors)
		}
		return fmt.Sprintf("it expects %.2g bad-FCS frames of %d; none came", expected, d.Sent)
	}
	return fmt.Sprintf("measured is %+.1f binomial sigma from it", d.Sigmas)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
