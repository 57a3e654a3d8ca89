package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"mesonemu/plot"
)

func init() { register(newEyeCmd) }

// eyeOpts are eye's options.
type eyeOpts struct {
	cmdFlags
	setting
	seed      uint64
	direction string
	pictures
	json bool
}

func newEyeCmd(e *env) *cobra.Command {
	f := &eyeOpts{}
	c := &cobra.Command{Use: "eye", Args: noArgs,
		Short: "eye diagram and bathtub curve of the RGMII data lines",
		RunE:  func(*cobra.Command, []string) error { return f.run(e) }}
	fs := c.Flags()
	f.fs = fs
	f.setting.add(fs, true)
	addSeed(fs, &f.seed)
	fs.StringVar(&f.direction, "direction", "tx", "tx (board -> PHY) or rx (PHY -> board)")
	f.pictures.add(fs, "the eye (and NAME-bathtub.EXT, the bathtub curve)")
	addJSON(fs, &f.json)
	return c
}

// pictureTargets lists the --png/--svg files asked for.
func (f *pictures) targets() []string {
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

func (f *eyeOpts) run(e *env) error {
	so, err := f.simOptions(defaultTuning, f.seed)
	if err != nil {
		return err
	}
	if f.direction != "tx" && f.direction != "rx" {
		return usagef("--direction %q: want tx or rx (one eye per picture)", f.direction)
	}
	for _, p := range f.targets() {
		if _, err := plot.FormatOf(p); err != nil {
			return usagef("%v", err)
		}
	}
	if f.given("seed") && len(f.targets()) == 0 {
		return usagef("--seed: eye draws random samples only for the picture; give --png or --svg")
	}
	s, d, err := bootDescribed(so, false, e.stderr)
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
	for _, p := range f.targets() {
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
		fmt.Fprintf(e.stderr, "wrote %s and %s\n", p, tubPath)
	}
	if f.json {
		return writeJSON(e.stdout, map[string]any{"direction": b.Timing.Direction, "budget": b, "predicted_frame_loss": b.PredictedLoss(1514)})
	}
	fmt.Fprintf(e.stdout, "%s\n", b.String())
	if len(f.targets()) == 0 {
		fmt.Fprintf(e.stdout, "(give --png FILE or --svg FILE for the eye diagram and bathtub curve)\n")
	}
	return nil
}
