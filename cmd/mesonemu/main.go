// Command mesonemu is the emulator's command line: it chooses a run and reports it.
// Outside the bus: it assembles machines through sim and the runners, and models nothing.
//
// It is the Amlogic Meson8b (Odroid-C1) Ethernet emulator. It only
// chooses and reports: the machine is assembled by sim, the traffic is run by
// linktest and perfrun. Each command lives in its own file and registers itself
// (commands.go); args.go words the refusals
// of arguments and flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"
)

// tuneProcs is set by main: the process is ours, so run may size GOMAXPROCS.
var tuneProcs bool

// keepReport, set by a command whose report after the first signal is short
// and bounded (wire), makes later signals wait for it: timeout(1) sends the
// child one signal and its process group another, back to back.
var keepReport atomic.Bool

func main() {
	tuneProcs = true
	os.Exit(runProcess(os.Args[1:]))
}

// runProcess is the process's run: SIGINT and SIGTERM cancel it (it then
// prints what it measured and exits 128 + the signal); a second one exits at
// once.
func runProcess(args []string) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	// The handler stays until the process exits: with signal.Stop on return,
	// a signal between it and os.Exit (timeout(1) sends two) would kill the
	// process by the default action, with no exit status of its own.
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		cancel(signalError{s.(syscall.Signal)})
		for s, ok = <-sigs; ok && keepReport.Load(); s, ok = <-sigs {
		}
		if ok {
			os.Exit(exitStatus(s.(syscall.Signal)))
		}
	}()
	return run(ctx, args, os.Stdout, os.Stderr)
}

// signalError is why a run was stopped: the user's signal.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "stopped by " + signalName(e.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// exitStatus is what shells expect of a program a signal stopped: 128 + signal
// (130 for SIGINT).
func exitStatus(s syscall.Signal) int { return 128 + int(s) }

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := execute(ctx, args, stdout, stderr)
	var se signalError
	if errors.As(context.Cause(ctx), &se) {
		// The run stopped and printed what it had; say why on the same stream
		// as an error would go.
		fmt.Fprintf(stderr, "mesonemu: %v\n", se)
		return exitStatus(se.sig)
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

// usageError is bad input from the user: one line on stderr, exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }
