package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"

	"mesonemu/compare"
	"mesonemu/perfrun"
	"mesonemu/sim"
	"mesonemu/tap"
)

// cmdIperf3 runs the board's iperf3 with iperf3's own flags: against the
// in-process PC, or with --tap against the host.
func cmdIperf3(ctx context.Context, f *flags, rest []string, stdout, stderr io.Writer) error {
	if len(rest) == 0 {
		return usagef("iperf3: give iperf3's flags, e.g. `mesonemu iperf3 -c 198.18.0.1 -t 5` or `iperf3 -s`")
	}
	so, err := f.simOptions()
	if err != nil {
		return err
	}
	if f.tap != "" {
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
		code, ctr, err := tap.Run(ctx, tap.Options{Sim: so, TAP: f.tap, BoardIP: ip, BoardIP6: ip6, CC: f.cc, PcapPath: f.pcap,
			Iperf3Args: rest, Stdout: stdout, Stderr: stderr})
		var se *tap.SetupError
		if errors.As(err, &se) {
			return usagef("%v", se)
		}
		if err != nil {
			return err
		}
		if ctr != nil {
			fmt.Fprintf(stderr, "\nTAP bridge counters:\n")
			for _, c := range ctr.List() {
				fmt.Fprintf(stderr, "  %-22s %-28s %d\n", c.Where, c.Name, c.Value)
			}
		}
		if code != 0 {
			return &exitCode{code}
		}
		return nil
	}
	o, err := f.perfOptions()
	if err != nil {
		return err
	}
	code, err := perfrun.RunIperf3(ctx, o, rest, stdout, stderr)
	if err != nil {
		return usagef("%v", err)
	}
	if code != 0 {
		return &exitCode{code}
	}
	return nil
}

func cmdCompare(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	if _, err := f.perfOptions(); err != nil {
		return err
	}
	var progress io.Writer = stderr
	co := compare.Options{Board: f.board, Duration: f.duration, Seeds: f.seeds, Jobs: f.jobs, Progress: progress}
	if exe, err := os.Executable(); err == nil && tuneProcs {
		co.RunTCP = childRun(func(ctx context.Context, args []string) *exec.Cmd {
			return exec.CommandContext(ctx, exe, args...)
		})
	}
	if f.ablate.on {
		r, err := compare.Ablate(ctx, co, f.ablate.names)
		if err != nil {
			return err
		}
		if f.json {
			return writeJSON(stdout, r)
		}
		compare.WriteAblation(stdout, r)
		return nil
	}
	r, err := compare.Run(ctx, co)
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(stdout, r)
	}
	compare.WriteTable(stdout, r)
	return nil
}

// childRun runs compare's iperf3 tests as `mesonemu run --json` in child
// processes of one thread each: an engine costs 1.4x as much when Go has a
// second thread, so jobs in one process gain little from a second core. It
// passes on the options compare sets (board, driver, delays, PHY, seed, time)
// and refuses any other, rather than run another configuration.
func childRun(command func(ctx context.Context, args []string) *exec.Cmd) func(context.Context, perfrun.Options) (*perfrun.Report, error) {
	return func(ctx context.Context, o perfrun.Options) (*perfrun.Report, error) {
		s := o.Sim
		carried := sim.Options{Board: s.Board, Driver: s.Driver, TxDelayNs: s.TxDelayNs, PhyMode: s.PhyMode, PHYTXDelay: s.PHYTXDelay, Seed: s.Seed}
		if !reflect.DeepEqual(o, perfrun.Options{Sim: carried, Duration: o.Duration, Ablate: o.Ablate}) {
			return nil, errors.New("a child run carries only board, driver, tx-delay-ns, phy-mode, phy-tx-delay, seed, time and ablate")
		}
		args := []string{"run", "--json", "--driver", o.Sim.Driver, "--seed", strconv.FormatUint(o.Sim.Seed, 10), "--time", o.Duration.String()}
		if o.Ablate != "" {
			args = append(args, "--ablate="+o.Ablate)
		}
		if o.Sim.Board != "" {
			args = append(args, "--board", o.Sim.Board)
		}
		if o.Sim.TxDelayNs != nil {
			args = append(args, "--tx-delay-ns", strconv.FormatUint(uint64(*o.Sim.TxDelayNs), 10))
		}
		if o.Sim.PhyMode != "" {
			args = append(args, "--phy-mode", o.Sim.PhyMode)
		}
		if o.Sim.PHYTXDelay != nil {
			args = append(args, "--phy-tx-delay", map[bool]string{true: "on", false: "off"}[*o.Sim.PHYTXDelay])
		}
		cmd := command(ctx, args)
		cmd.Env = append(cmd.Environ(), "GOMAXPROCS=1")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("mesonemu %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
		}
		var doc struct {
			Mesonemu *perfrun.Report `json:"mesonemu"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Mesonemu == nil {
			return nil, fmt.Errorf("mesonemu %s: no report in its output (%v)", strings.Join(args, " "), err)
		}
		return doc.Mesonemu, nil
	}
}
