package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"mesonemu/tap"
)

func init() { register(newWireCmd) }

// newWireCmd carries frames between two Linux TAP devices through the
// emulated board, in real time: Linux's own stacks on both ends.
// wireOpts are wire's options.
type wireOpts struct {
	setting
	stmmacTuning
	seed                 uint64
	boardTap, boardNetns string
	tap, netns           string
	time                 durationValue // wall time
	out                  outputFlags
	json                 bool
}

func newWireCmd(e *env) *cobra.Command {
	f := &wireOpts{}
	c := &cobra.Command{Use: "wire --board-tap NAME --tap NAME", Args: noArgs,
		Short: "the board's Ethernet path between two Linux TAPs: Linux's TCP on both ends (real time)",
		Long: `wire boots the board as the main job does and then, in real time, carries Ethernet
frames from the board-side TAP (the Linux behind it plays the board's network stack)
through the stmmac driver, DMA, MAC, RGMII TX wire, PHY, cable and far-end NIC to the
PC-side TAP, and back through the RX direction. It runs until --time or Ctrl-C, then
prints every stage's counters. docs/wire.md has the set-up.`,
		Example: `  ip netns add board; ip netns add pc
  ip netns exec board ip tuntap add dev tboard mode tap
  ip netns exec pc ip tuntap add dev tpc mode tap
  mesonemu wire --board-tap tboard --board-netns board --tap tpc --netns pc --driver pre-fix --tx-delay-ns 4`,
		RunE: func(*cobra.Command, []string) error { return f.run(e) }}
	fs := c.Flags()
	f.setting.add(fs, true)
	f.stmmacTuning.add(fs)
	addSeed(fs, &f.seed)
	fs.StringVar(&f.boardTap, "board-tap", "", "the existing TAP whose Linux plays the board's network stack")
	fs.StringVar(&f.boardNetns, "board-netns", "", "network namespace (ip netns add) the board-side TAP is in")
	fs.StringVar(&f.tap, "tap", "", "the existing TAP at the far end of the cable (the PC)")
	fs.StringVar(&f.netns, "netns", "", "network namespace the PC-side TAP is in")
	fs.Var(&f.time, "time", "stop after this long of wall time once the link is up (e.g. 30s; default: until Ctrl-C)")
	f.out.addPcap(fs)
	addJSON(fs, &f.json)
	return c
}

func (f *wireOpts) run(e *env) error {
	so, err := f.simOptions(f.stmmacTuning, f.seed)
	if err != nil {
		return err
	}
	if err := f.out.check(); err != nil {
		return err
	}
	if f.time < 0 {
		return usagef("--time %v: want a positive duration", time.Duration(f.time))
	}
	// The first signal stops the run; later ones must not cut its report.
	keepReport.Store(true)
	defer keepReport.Store(false)
	r, err := tap.Wire(e.ctx, tap.WireOptions{Sim: so, BoardTAP: f.boardTap, BoardNetns: f.boardNetns,
		TAP: f.tap, Netns: f.netns, Time: time.Duration(f.time), PcapPath: f.out.pcap, Stderr: e.stderr})
	var se *tap.SetupError
	if errors.As(err, &se) || errors.Is(err, tap.ErrBadOptions) {
		return usagef("wire: %v", err)
	}
	if r == nil {
		return err
	}
	if f.json {
		if werr := writeJSON(e.stdout, r); werr != nil {
			return werr
		}
	} else {
		r.WriteText(e.stdout)
	}
	return err
}
