package main

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mesonemu/perfrun"
	"mesonemu/plot"
	"mesonemu/scan"
)

func init() { register(newScanCmd) }

// scanOpts are scan's options.
type scanOpts struct {
	cmdFlags
	setting
	stmmacTuning
	seed                       uint64
	jobs                       int
	tcp                        bool // an iperf3 test per cell
	duration                   durationValue
	reverse                    bool
	skewFrom, skewTo, skewStep float64 // the TX skew sweep
	pictures
	json  bool
	shard shardFlag
}

func newScanCmd(e *env) *cobra.Command {
	f := &scanOpts{}
	c := &cobra.Command{Use: "scan", Args: noArgs,
		Short: "sweep MAC and PHY TX delays with quick link tests; pass/fail map",
		Example: `  mesonemu scan --driver pre-fix
  mesonemu scan --tcp --time 2s
  mesonemu scan --skew-from -1000 --skew-to 3000 --skew-step 250 --tcp --png skew.png`,
		RunE: func(*cobra.Command, []string) error { return f.run(e) }}
	fs := c.Flags()
	f.fs = fs
	f.setting.add(fs, false)
	f.stmmacTuning.add(fs)
	fs.Lookup("tx-delay-ns").Usage = "with a skew sweep and --tcp: the MAC delay iperf3 runs at (default: the board's DT)"
	fs.Lookup("phy-tx-delay").Usage = "with a skew sweep and --tcp: the PHY delay iperf3 runs at (default off)"
	addSeed(fs, &f.seed)
	addJobs(fs, &f.jobs)
	fs.BoolVar(&f.tcp, "tcp", false, "also run an iperf3 test on every live cell")
	addTime(fs, &f.duration, scan.DefaultTCPTime, "with --tcp: iperf3 test length per cell, whole seconds")
	addReverse(fs, &f.reverse)
	fs.Lookup("reverse").Usage = "with --tcp: the PC sends and the board receives"
	fs.Float64Var(&f.skewFrom, "skew-from", 0, "sweep the board's TX skew from this many ps (with --skew-to, --skew-step)")
	fs.Float64Var(&f.skewTo, "skew-to", 0, "sweep the TX skew up to this many ps")
	fs.Float64Var(&f.skewStep, "skew-step", 0, "TX skew step in ps")
	f.pictures.add(fs, "the map (and NAME-tcp.EXT, the iperf3 sweep along the skew)")
	addJSON(fs, &f.json)
	addShard(fs, &f.shard)
	return c
}

func (f *scanOpts) run(e *env) error {
	o, err := f.scanOptions()
	if err != nil {
		return err
	}
	setProcs(o.Workers)
	p := newProgress(e.stderr, "scan --tcp")
	defer p.Finish()
	if p != nil {
		o.Tick = p.Tick
	}
	if f.shard.On() {
		return f.runScanShard(e, o)
	}
	// The cells' iperf3 tests run in this process: a child gets only the
	// options the command line can carry, and a cell's are more.
	r, err := scan.Run(e.ctx, o)
	if f.json && r == nil && e.ctx.Err() != nil {
		// Ctrl-C during the frame tests: no cell is complete to report.
		return errors.Join(writeJSON(e.stdout, struct {
			Interrupted bool `json:"interrupted"`
		}{true}), err)
	}
	if r == nil || err != nil && (e.ctx.Err() == nil || r.TCPSeconds == 0) {
		return err
	}
	p.Finish()
	if err != nil { // Ctrl-C during the iperf3 tests: the table so far, no pictures
		if f.json {
			return errors.Join(r.WriteJSON(e.stdout), err)
		}
		return errors.Join(r.WriteTable(e.stdout), err)
	}
	if err := f.writeScanPictures(r); err != nil {
		return err
	}
	if f.json {
		return r.WriteJSON(e.stdout)
	}
	return r.WriteTable(e.stdout)
}

// scanOptions checks scan's flags against each other and builds its options.
func (f *scanOpts) scanOptions() (scan.Options, error) {
	so, err := f.simOptions(f.stmmacTuning, f.seed)
	if err != nil {
		return scan.Options{}, err
	}
	if err := checkJobs(f.cmdFlags, f.jobs); err != nil {
		return scan.Options{}, err
	}
	if err := checkShard(f.cmdFlags, f.shard, f.json, "png", "svg"); err != nil {
		return scan.Options{}, err
	}
	skewSet := f.given("skew-from") || f.given("skew-to") || f.given("skew-step")
	for _, n := range []string{"time", "reverse"} {
		if f.given(n) && !f.tcp {
			return scan.Options{}, usagef("--%s: scan runs iperf3 only with --tcp", n)
		}
	}
	if f.given("rx-watchdog") && !f.tcp {
		return scan.Options{}, usagef("--rx-watchdog: scan's frame test only sends; the RX watchdog matters only with --tcp")
	}
	for _, n := range []string{"tx-delay-ns", "phy-tx-delay"} {
		if f.given(n) && !(skewSet && f.tcp) {
			return scan.Options{}, usagef("--%s: scan sweeps every MAC and PHY delay; it picks the one iperf3 runs at only with --tcp and a skew sweep", n)
		}
	}
	o := scan.Options{Sim: so, Workers: f.jobs, TCP: f.tcp, Reverse: f.reverse}
	if f.tcp {
		o.TCPTime = time.Duration(f.duration)
		if err := perfrun.CheckDuration(o.TCPTime); err != nil {
			return o, optionError(err)
		}
	}
	if skewSet {
		rng := scan.SkewRange{FromPs: f.skewFrom, ToPs: f.skewTo, StepPs: f.skewStep}
		if _, err := rng.Points(); err != nil {
			return o, usagef("--skew-from/--skew-to/--skew-step: %v", err)
		}
		o.Skew = &rng
		// The setting iperf3 runs at along the sweep: the command line's.
		if o.Setting, err = scan.SettingOf(so); err != nil {
			return o, usagef("%v", err)
		}
	}
	return o, nil
}

// writeScanPictures draws the map into each --png/--svg file, and an iperf3
// sweep along the skew beside it (NAME-tcp.EXT).
func (f *scanOpts) writeScanPictures(r *scan.Result) error {
	for _, path := range f.targets() {
		if err := writePicture(path, func(w io.Writer, format string) error { return plot.ScanMap(w, format, r, plot.Size{}) }); err != nil {
			return err
		}
		if len(r.Skew) > 0 {
			ext := filepath.Ext(path)
			tcpPath := strings.TrimSuffix(path, ext) + "-tcp" + ext
			if err := writePicture(tcpPath, func(w io.Writer, format string) error { return plot.SkewTCP(w, format, r, plot.Size{}) }); err != nil {
				return err
			}
		}
	}
	return nil
}
