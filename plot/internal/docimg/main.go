// Command docimg renders the pictures in docs/img.
// Outside the bus: a tool over plot, scan and sim.
//
// It renders the pictures in docs/img: the TX eye and bathtub of the
// Odroid-C1 with the pre-fix driver at tx-delay-ns 4 (the commit's "before") and
// the fixed driver at 2 ns (its "after"), and the TX delay scan map of each
// driver, plus the fixed driver's map over a board-skew sweep. Run from the module root: go run ./plot/internal/docimg -out docs/img
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"mesonemu/plot"
	"mesonemu/scan"
	"mesonemu/sim"
)

func main() {
	out := flag.String("out", "docs/img", "output directory")
	uis := flag.Int("uis", 1000, "unit intervals overlaid in the eyes")
	flag.Parse()
	if err := run(*out, *uis); err != nil {
		fmt.Fprintln(os.Stderr, "docimg:", err)
		os.Exit(1)
	}
}

func write(path string, draw func(w io.Writer, format string) error) error {
	format, err := plot.FormatOf(path)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := draw(f, format); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}

func run(out string, uis int) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, c := range []struct {
		name, driver string
		txDelay      uint32
	}{
		{"prefix-4ns", "pre-fix", 4},
		{"fixed-2ns", "fixed", 2},
	} {
		d := c.txDelay
		s, err := sim.New(sim.Options{Driver: c.driver, TxDelayNs: &d, Seed: 1})
		if err != nil {
			return err
		}
		tx, _, _ := s.Hardware().Budgets()
		setting := plot.SettingOf(s)
		eye := tx.Eye(s.Machine().Rand("docimg.eye"), 0, uis)
		if err := write(filepath.Join(out, "eye-tx-"+c.name+".png"), func(w io.Writer, f string) error {
			return plot.Eye(w, f, setting, tx, eye, plot.Size{})
		}); err != nil {
			return err
		}
		tub := tx.Bathtub(0, 801)
		if err := write(filepath.Join(out, "bathtub-tx-"+c.name+".png"), func(w io.Writer, f string) error {
			return plot.Bathtub(w, f, setting, tx, tub, plot.Size{})
		}); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		name, driver string
		skew         *scan.SkewRange
	}{
		{"scan-pre-fix", "pre-fix", nil},
		{"scan-fixed", "fixed", nil},
		{"scan-fixed-skew", "fixed", &scan.SkewRange{FromPs: -2000, ToPs: 6000, StepPs: 100}},
	} {
		r, err := scan.Run(context.Background(), scan.Options{Sim: sim.Options{Driver: c.driver, Seed: 1}, Skew: c.skew})
		if err != nil {
			return err
		}
		if err := write(filepath.Join(out, c.name+".png"), func(w io.Writer, f string) error {
			return plot.ScanMap(w, f, r, plot.Size{})
		}); err != nil {
			return err
		}
	}
	return nil
}
