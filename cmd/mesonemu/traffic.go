package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"

	"mesonemu/compare"
	"mesonemu/perfrun"
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
		code, ctr, err := tap.Run(ctx, tap.Options{Sim: so, TAP: f.tap, BoardIP: ip, CC: f.cc, PcapPath: f.pcap,
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
	r, err := compare.Run(ctx, compare.Options{Board: f.board, Duration: f.duration, Seeds: f.seeds, Jobs: f.jobs, Progress: progress})
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(stdout, r)
	}
	compare.WriteTable(stdout, r)
	return nil
}
