package main

import (
	"context"
	"io"
)

func cmdIperf3(ctx context.Context, f *flags, rest []string, stdout, stderr io.Writer) error {
	return usagef("iperf3: not wired yet")
}
func cmdCompare(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	return usagef("compare: not wired yet")
}
func cmdScan(f *flags, stdout, stderr io.Writer) error { return usagef("scan: not wired yet") }
func cmdEye(f *flags, stdout, stderr io.Writer) error  { return usagef("eye: not wired yet") }
