package main

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"

	"github.com/spf13/cobra"
)

// The command line is spf13/cobra with pflag (docs/cli.md says why): each
// command is one *cobra.Command with its own options struct bound to its own
// flag set, made by a builder that a file registers in its init. Adding a
// command is one file:
//
//	func init() { register(newWireCmd) }
//	func newWireCmd(e *env) *cobra.Command { o := &wireOpts{}; ...; o.setting.add(c.Flags(), true); return c }

// env is what a command's run sees: the context (cancelled by Ctrl-C) and the
// output streams. The options are each command's own.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	args           []string // the command line as given, for error messages
}

var builders []func(*env) *cobra.Command

// register adds a command; init functions call it.
func register(b func(*env) *cobra.Command) { builders = append(builders, b) }

// newRoot builds the command tree for one run. The root command is the main
// job itself (so `mesonemu --driver pre-fix` runs it), and `run` is its name:
// the two share one set of options and flags.
func newRoot(e *env) *cobra.Command {
	run := newRunCmd(e)
	root := &cobra.Command{Use: "mesonemu", Args: noArgs, RunE: run.RunE}
	root.Flags().AddFlagSet(run.Flags())
	root.Short = "an emulated Amlogic Meson8b (Odroid-C1) Ethernet path"
	root.Long = `mesonemu: an emulated Amlogic Meson8b (Odroid-C1) Ethernet path that reproduces
the RGMII TX delay bug fixed in Linux by "net: stmmac: dwmac-meson8b: Fix the RGMII TX
delay on Meson8b/8m2 SoCs" (Dec 2019).

Without a command it runs the main job (the run command): boot the board, bring the
link up and run iperf3 from the board to the in-process PC. Flags may stand before or
after the command.`
	root.Example = `  mesonemu --board odroid-c1                       # iperf3 board -> PC, fixed driver
  mesonemu --driver pre-fix --tx-delay-ns 4        # the commit's "before": retransmits
  mesonemu clk --driver pre-fix --json             # which clocks Linux chose
  mesonemu linktest --driver pre-fix --tx-delay-ns 4 --frames 200000
  mesonemu help scan                               # one command's flags`
	root.SilenceErrors, root.SilenceUsage = true, true
	// --version anywhere prints the version instead of running the command.
	root.PersistentFlags().Bool("version", false, "print the module version and VCS revision, then exit")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if v, _ := c.Flags().GetBool("version"); v {
			if _, err := io.WriteString(e.stdout, versionLine()+"\n"); err != nil {
				return err
			}
			return errVersionShown
		}
		return nil
	}
	// cobra finds the command word past the flags before it only for flags
	// the root knows how to skip: its help flag is one of them.
	root.InitDefaultHelpFlag()
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err, e.args) })
	root.AddCommand(run)
	for _, b := range builders {
		root.AddCommand(b(e))
	}
	root.AddCommand(&cobra.Command{Use: "version", Short: "print the module version and VCS revision", Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := io.WriteString(e.stdout, versionLine()+"\n")
			return err
		}})
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	return root
}

// setProcs sizes GOMAXPROCS to the engines a command runs at once (n), when
// the process is ours and the user did not size it: an engine runs one piece
// of emulated code at a time, so a spare thread only adds cross-thread
// wake-ups to every hand-over (the main job: 2.1 wall s per virtual s on 2
// threads, 1.5 on one). The output is the same either way. A command that
// does not call it (a TAP run: the host's frames are read beside the engine)
// keeps every core.
func setProcs(n int) {
	if tuneProcs && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(min(n, runtime.NumCPU()))
	}
}

// execute runs one command line.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, args: args}
	root := newRoot(e)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); !errors.Is(err, errVersionShown) {
		return err
	}
	return nil
}

// errVersionShown ends a run that --version answered.
var errVersionShown = errors.New("version shown")
