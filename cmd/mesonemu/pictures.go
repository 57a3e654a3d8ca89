package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mesonemu/plot"
	"mesonemu/scan"
)

// pictureTargets lists the --png/--svg files asked for.
func (f *flags) pictureTargets() []string {
	var out []string
	for _, p := range []string{f.png, f.svg} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writePicture renders with draw into path (format from its extension).
func writePicture(path string, draw func(w io.Writer, format string) error) error {
	format, err := plot.FormatOf(path)
	if err != nil {
		return usagef("%v", err)
	}
	var buf bytes.Buffer
	if err := draw(&buf, format); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return usagef("cannot write %s: %v", path, unwrapPath(err))
	}
	return nil
}

func cmdScan(f *flags, stdout, stderr io.Writer) error {
	so, err := f.simOptions()
	if err != nil {
		return err
	}
	o := scan.Options{Sim: so, Workers: f.jobs, TCP: f.tcp, Reverse: f.reverse}
	if f.tcp && f.timeSet {
		o.TCPTime = f.duration
	}
	if f.skewSet {
		rng := scan.SkewRange{FromPs: f.skewFrom, ToPs: f.skewTo, StepPs: f.skewStep}
		if _, err := rng.Points(); err != nil {
			return usagef("--skew-from/--skew-to/--skew-step: %v", err)
		}
		o.Skew = &rng
		// The setting iperf3 runs at along the sweep: the command line's
		// (default: the board's device tree, PHY delay off).
		b, err := so.Validate()
		if err != nil {
			return usagef("%v", err)
		}
		ns := b.DT.TXDelayNS
		if so.TxDelayNs != nil {
			ns = so.TxDelayNs
		}
		if ns != nil {
			o.Setting.MACTxDelaySteps = int(*ns / 2)
		}
		o.Setting.PHYTxDelay = so.PHYTXDelay != nil && *so.PHYTXDelay
	}
	// The cells' iperf3 tests run in this process: a child gets only the
	// options the command line can carry, and a cell's are more.
	r, err := scan.Run(context.Background(), o)
	if err != nil {
		return err
	}
	// The map goes to the named file; an iperf3 sweep along the skew beside
	// it (NAME-tcp.EXT).
	for _, p := range f.pictureTargets() {
		if err := writePicture(p, func(w io.Writer, format string) error { return plot.ScanMap(w, format, r, plot.Size{}) }); err != nil {
			return err
		}
		if len(r.Skew) > 0 {
			ext := filepath.Ext(p)
			tcpPath := strings.TrimSuffix(p, ext) + "-tcp" + ext
			if err := writePicture(tcpPath, func(w io.Writer, format string) error { return plot.SkewTCP(w, format, r, plot.Size{}) }); err != nil {
				return err
			}
		}
	}
	if f.json {
		return r.WriteJSON(stdout)
	}
	return r.WriteTable(stdout)
}

func cmdEye(f *flags, stdout, stderr io.Writer) error {
	s, d, err := f.bootDescribed(stderr)
	if err != nil {
		return err
	}
	tb, rb, _ := s.Hardware().Budgets()
	b := tb
	if f.direction == "rx" {
		b = rb
	}
	setting := plot.Setting{Board: d.Board, Driver: d.Driver, PhyMode: d.PhyMode, TxDelayNs: d.TxDelayNs}
	eye := b.Eye(s.Machine().Rand("eye"), 0, 2000)
	tub := b.Bathtub(0, 400)
	// The eye goes to the named file, the bathtub curve beside it (NAME-bathtub.EXT).
	for _, p := range f.pictureTargets() {
		err := writePicture(p, func(w io.Writer, format string) error {
			return plot.Eye(w, format, setting, b, eye, plot.Size{})
		})
		if err != nil {
			return err
		}
		ext := filepath.Ext(p)
		tubPath := strings.TrimSuffix(p, ext) + "-bathtub" + ext
		err = writePicture(tubPath, func(w io.Writer, format string) error {
			return plot.Bathtub(w, format, setting, b, tub, plot.Size{})
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s and %s\n", p, tubPath)
	}
	if f.json {
		return writeJSON(stdout, map[string]any{"direction": b.Timing.Direction, "budget": b, "predicted_frame_loss": b.PredictedLoss(1514)})
	}
	fmt.Fprintf(stdout, "%s\n", b.String())
	if len(f.pictureTargets()) == 0 {
		fmt.Fprintf(stdout, "(give --png FILE or --svg FILE for the eye diagram and bathtub curve)\n")
	}
	return nil
}
