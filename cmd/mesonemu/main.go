// Command mesonemu is the Amlogic Meson8b (Odroid-C1) Ethernet emulator. It only
// chooses and reports: the machine is assembled by sim, the traffic is run by
// linktest and perfrun.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
)

// tuneProcs is set by main: the process is ours, so run may size GOMAXPROCS.
var tuneProcs bool

func main() {
	tuneProcs = true
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f flags
	fs := f.register()
	cmd, rest, err := parseFlags(fs, args)
	if err == nil && cmd == "help" {
		usage(stdout, fs)
		return 0
	}
	fs.Visit(func(fl *flag.Flag) {
		f.timeSet = f.timeSet || fl.Name == "time"
		f.skewSet = f.skewSet || strings.HasPrefix(fl.Name, "skew-")
		if fl.Name == "ip" || fl.Name == "ip6" {
			f.tapAddrSet = fl.Name
		}
	})
	if err == nil && f.version {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	if err == nil {
		err = f.check(cmd)
	}
	if err == nil && tuneProcs && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(engineProcs(cmd, &f))
	}
	if err == nil {
		err = dispatch(ctx, cmd, &f, rest, stdout, stderr)
	}
	var ue *usageError
	var ec *exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ec):
		return ec.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mesonemu: %s\n", ue.msg)
		return 2
	default:
		fmt.Fprintf(stderr, "mesonemu: %v\n", err)
		return 1
	}
}

// engineProcs is how many threads run Go code: one per machine that runs at
// once. An engine runs one piece of emulated code at a time, so a spare thread
// only adds cross-thread wake-ups to every hand-over (the main job: 2.1 wall s
// per virtual s on 2 threads, 1.5 on one). The output is the same either way.
// A TAP run keeps every core: the host's frames are read beside the engine.
func engineProcs(cmd string, f *flags) int {
	n := runtime.NumCPU()
	switch {
	case cmd == "compare" || cmd == "scan":
		return min(f.jobs, n)
	case (cmd == "run" || cmd == "iperf3") && f.tap == "":
		return 1
	}
	return n
}

// versionLine names the build: module version, VCS revision and Go version,
// from the build info (`go build` records the revision; `go run` does not).
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "mesonemu (no build info) " + runtime.Version()
	}
	rev, modified := "unknown", ""
	for _, st := range bi.Settings {
		switch {
		case st.Key == "vcs.revision":
			rev = st.Value
		case st.Key == "vcs.modified" && st.Value == "true":
			modified = " (modified)"
		}
	}
	return fmt.Sprintf("mesonemu %s, revision %s%s, %s", bi.Main.Version, rev, modified, bi.GoVersion)
}

// exitCode passes a sub-tool's exit status through (iperf3's).
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func dispatch(ctx context.Context, cmd string, f *flags, rest []string, stdout, stderr io.Writer) error {
	switch cmd {
	case "clk", "regs":
		return cmdDescribe(cmd, f, stdout, stderr)
	case "linktest":
		return cmdLinktest(f, stdout, stderr)
	case "run":
		return cmdRun(ctx, f, stdout, stderr)
	case "iperf3":
		return cmdIperf3(ctx, f, rest, stdout, stderr)
	case "compare":
		return cmdCompare(ctx, f, stdout, stderr)
	case "scan":
		return cmdScan(f, stdout, stderr)
	case "eye":
		return cmdEye(f, stdout, stderr)
	}
	return usagef("unknown command %q", cmd)
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, `mesonemu: an emulated Amlogic Meson8b (Odroid-C1) Ethernet path that reproduces
the RGMII TX delay bug fixed in Linux by "net: stmmac: dwmac-meson8b: Fix the RGMII TX
delay on Meson8b/8m2 SoCs" (Dec 2019).

Usage: mesonemu [command] [flags]     (flags may stand before or after the command)

Commands:
`)
	for _, c := range commandOrder {
		fmt.Fprintf(w, "  %-9s %s\n", c, commands[c])
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintf(w, `
Examples:
  mesonemu --board odroid-c1                       # iperf3 board -> PC, fixed driver
  mesonemu --driver pre-fix --tx-delay-ns 4        # the commit's "before": retransmits
  mesonemu clk --driver pre-fix --json             # which clocks Linux chose
  mesonemu linktest --driver pre-fix --tx-delay-ns 4 --frames 200000
`)
}
