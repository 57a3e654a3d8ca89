package main

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/spf13/cobra"

	"mesonemu/perfrun"
	"mesonemu/sim"
	"mesonemu/tap"
)

func init() { register(newIperf3Cmd) }

func newIperf3Cmd(e *env) *cobra.Command {
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
		RunE: func(*cobra.Command, []string) error { return cmdIperf3(e) }}
	fs := c.Flags()
	e.f.addSetting(fs, true)
	e.f.addStmmac(fs)
	e.f.addSeed(fs)
	e.f.addPC(fs)
	fs.BoolVar(&e.f.counters, "counters", false, "print the ethtool -S style counters of every stage to stderr after the run (in-process)")
	e.f.addTAP(fs)
	e.f.addPcap(fs)
	e.f.addAblate(fs, "switch one timing mechanism off (--ablate=NAME; in-process)")
	e.f.addTrace(fs)
	return c
}

// cmdIperf3 runs the board's iperf3 with iperf3's own flags: against the
// in-process PC, or with --tap against the host.
func cmdIperf3(e *env) error {
	f, rest := e.f, e.rest
	if len(rest) == 0 {
		return usagef("iperf3: give iperf3's flags, e.g. `mesonemu iperf3 -c 198.18.0.1 -t 5` or `iperf3 -s`")
	}
	for _, n := range []string{"ip", "ip6"} {
		if f.given(n) && f.tap == "" {
			return usagef("--%s: the board's address is chosen only with --tap (in-process it is 198.18.0.2, and 2001:2::2 with IPv6)", n)
		}
	}
	so, err := f.simOptions()
	if err != nil {
		return err
	}
	if f.trace == "regs" {
		so.Trace = e.stderr
	}
	if f.tap != "" {
		for _, n := range []string{"board-ip", "pc-ip", "ablate", "pc-rx-moderation", "counters"} {
			if f.given(n) {
				return usagef("--%s does not apply with --tap (the far end is the host; the board's address is --ip)", n)
			}
		}
		return runTAP(e, so)
	}
	o, err := f.perfOptions()
	if err != nil {
		return err
	}
	if f.ablate.on && len(f.ablate.names) != 1 {
		return usagef("iperf3 --ablate: name one mechanism, e.g. --ablate=tsq (compare --ablate runs them all)")
	}
	o.Sim, o.Header = so, true
	capt, err := f.openCapture(so.Board)
	if err != nil {
		return err
	}
	if capt != nil {
		o.Taps = append(o.Taps, capt.Tap)
	}
	r, err := perfrun.RunIperf3Counted(e.ctx, o, rest, e.stdout, e.stderr)
	if err := f.closeCapture(capt, e.stderr, err); err != nil {
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
func runTAP(e *env, so sim.Options) error {
	f := e.f
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
	code, ctr, err := tap.Run(e.ctx, tap.Options{Sim: so, TAP: f.tap, BoardIP: ip, BoardIP6: ip6, CC: f.cc, PcapPath: f.pcap,
		Iperf3Args: e.rest, Stdout: e.stdout, Stderr: e.stderr})
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
