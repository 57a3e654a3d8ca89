package main

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mesonemu/perfrun"
	"mesonemu/sim"
	"mesonemu/tap"
)

func init() { register(newIperf3Cmd) }

// iperf3Opts are the iperf3 command's own options; the rest of its
// command line is iperf3's.
type iperf3Opts struct {
	boardRun
	counters bool
	tap      tapFlags
	ablate   ablateFlag
	rest     []string // iperf3's arguments
}

// tapFlags: the host's TAP device and the board's addresses on it.
type tapFlags struct{ tap, ip, ip6 string }

func (f *tapFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.tap, "tap", "", "attach the far end of the cable to this existing Linux TAP device (real time)")
	fs.StringVar(&f.ip, "ip", "198.18.1.2/24", "board address with --tap")
	fs.StringVar(&f.ip6, "ip6", "", "board IPv6 address with --tap (default: 2001:2:0:1::2/64 when the iperf3 line uses IPv6)")
}

func newIperf3Cmd(e *env) *cobra.Command {
	o := &iperf3Opts{}
	c := &cobra.Command{Use: "iperf3 IPERF3-ARGS...",
		Short: "run the board's iperf3 with iperf3's own flags (-s, -c HOST, ...)",
		Long: `Run the board's iperf3 with iperf3's own flags: against the in-process PC (virtual
time), or with --tap against the host (real time). Everything after "iperf3" is
iperf3's, except mesonemu's flags listed below (they may stand on either side);
iperf3's own help is "mesonemu iperf3 -h". The header and the summary go to
stderr, iperf3's output to stdout.`,
		Example: `  mesonemu iperf3 -c 198.18.0.1 -t 5 --driver pre-fix --tx-delay-ns 4
  mesonemu iperf3 -c 198.18.0.1 -u -b 500M
  sudo mesonemu --tap tap0 iperf3 -s`,
		Args: cobra.ArbitraryArgs,
		// Its arguments are iperf3's, with mesonemu's own among them: it
		// parses them itself (parseArgs), as cmd/go's CustomFlags commands do.
		DisableFlagParsing: true,
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		if err := o.parseArgs(c, args); err != nil {
			return err
		}
		if o.given("help") {
			return c.Help()
		}
		return o.run(e)
	}
	fs := c.Flags()
	o.boardRun.add(fs)
	fs.BoolVar(&o.counters, "counters", false, "print the ethtool -S style counters of every stage to stderr after the run (in-process)")
	o.tap.add(fs)
	addAblate(fs, &o.ablate, "switch one timing mechanism off (--ablate=NAME; in-process)")
	return c
}

// parseArgs takes the command's arguments (those before the word
// "iperf3" too: cobra passes them on) and parses mesonemu's own among them;
// the rest are iperf3's.
func (f *iperf3Opts) parseArgs(c *cobra.Command, args []string) error {
	rest, pulled, err := splitIperf3Args(c, allFlags(c.Root()), args)
	if err != nil {
		return err
	}
	if err := c.Flags().Parse(pulled); err != nil {
		return flagError(c, err, nil)
	}
	f.rest = rest
	return nil
}

// run runs the board's iperf3 with iperf3's own flags: against the
// in-process PC, or with --tap against the host.
func (f *iperf3Opts) run(e *env) error {
	if len(f.rest) == 0 {
		return usagef("iperf3: give iperf3's flags, e.g. `mesonemu iperf3 -c 198.18.0.1 -t 5` or `iperf3 -s`")
	}
	for _, n := range []string{"ip", "ip6"} {
		if f.given(n) && f.tap.tap == "" {
			return usagef("--%s: the board's address is chosen only with --tap (in-process it is 198.18.0.2, and 2001:2::2 with IPv6)", n)
		}
	}
	so, err := f.simOptions(f.stmmacTuning, f.seed)
	if err != nil {
		return err
	}
	if err := f.out.check(); err != nil {
		return err
	}
	if f.out.trace == "regs" {
		so.Trace = e.stderr
	}
	if f.tap.tap != "" {
		for _, n := range []string{"board-ip", "pc-ip", "ablate", "pc", "pc-rx-moderation", "counters"} {
			if f.given(n) {
				return usagef("--%s does not apply with --tap (the far end is the host; the board's address is --ip)", n)
			}
		}
		return f.runTAP(e, so)
	}
	setProcs(1) // one engine
	return f.runInProcess(e, so)
}

// runInProcess runs the board's iperf3 against the in-process PC.
func (f *iperf3Opts) runInProcess(e *env, so sim.Options) error {
	// iperf3's own -t and -P set the test; these are only checked.
	o, err := f.pc.perfOptions(so, 10*time.Second, 1)
	if err != nil {
		return err
	}
	o.Counters = f.counters
	if f.ablate.on && len(f.ablate.names) != 1 {
		return usagef("iperf3 --ablate: name one mechanism, e.g. --ablate=tsq (compare --ablate runs them all)")
	}
	if len(f.ablate.names) == 1 {
		o.Ablate = f.ablate.names[0]
	}
	o.Header = true
	capt, err := f.out.openCapture(so.Board)
	if err != nil {
		return err
	}
	if capt != nil {
		o.Taps = append(o.Taps, capt.Tap)
	}
	r, err := perfrun.RunIperf3Counted(e.ctx, o, f.rest, e.stdout, e.stderr)
	if err := f.out.closeCapture(capt, e.stderr, err); err != nil {
		if r == nil {
			return usagef("%v", err)
		}
		return err
	}
	if r.Code != 0 {
		return &exitCode{r.Code}
	}
	return nil
}

// runTAP runs the board's iperf3 against the host over an existing TAP device.
func (o *iperf3Opts) runTAP(e *env, so sim.Options) error {
	f := &o.tap
	ip, err := netip.ParsePrefix(f.ip)
	if err != nil || !ip.Addr().Is4() {
		return usagef("--ip %q: want an IPv4 address with prefix, e.g. 198.18.1.2/24", f.ip)
	}
	var ip6 netip.Prefix
	if f.ip6 != "" {
		if ip6, err = netip.ParsePrefix(f.ip6); err != nil || !ip6.Addr().Is6() || ip6.Addr().Is4In6() {
			return usagef("--ip6 %q: want an IPv6 address with prefix, e.g. 2001:2:0:1::2/64", f.ip6)
		}
	}
	code, ctr, err := tap.Run(e.ctx, tap.Options{Sim: so, TAP: f.tap, BoardIP: ip, BoardIP6: ip6, CC: o.pc.cc, PcapPath: o.out.pcap,
		Iperf3Args: o.rest, Stdout: e.stdout, Stderr: e.stderr})
	var se *tap.SetupError
	if errors.As(err, &se) {
		return usagef("%v", se)
	}
	if err != nil {
		return err
	}
	if ctr != nil {
		fmt.Fprintf(e.stderr, "\nTAP bridge counters:\n")
		for _, c := range ctr.List() {
			fmt.Fprintf(e.stderr, "  %-22s %-28s %d\n", c.Where, c.Name, c.Value)
		}
	}
	if code != 0 {
		return &exitCode{code}
	}
	return nil
}
