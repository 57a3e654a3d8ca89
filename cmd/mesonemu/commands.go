package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	stmmacdrv "mesonemu/linux/stmmac"
	"mesonemu/perfrun"
	"mesonemu/soc/board"
)

// The command line is spf13/cobra with pflag (docs/cli.md says why): each
// command is one *cobra.Command with its own flag set, made by a builder that a
// file registers in its init. Adding a command is one file:
//
//	func init() { register(newWireCmd) }
//	func newWireCmd(e *env) *cobra.Command { ...; e.f.addSetting(c.Flags(), true); return c }

// env is what a command's run sees: the context (cancelled by Ctrl-C), the
// output streams, the flags (bound by the builders), and, for iperf3, the
// arguments that belong to iperf3.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	f              *flags
	rest           []string
}

var builders []func(*env) *cobra.Command

// register adds a command; init functions call it.
func register(b func(*env) *cobra.Command) { builders = append(builders, b) }

// newFlags holds the defaults of every flag, registered or not, so that a
// command reads sane values of the options it does not offer.
func newFlags() *flags {
	return &flags{board: board.Default, driver: "fixed", mechanism: "A", kernel: stmmacdrv.DefaultTree, seed: 1,
		duration: durationValue(10 * time.Second), parallel: 1, cc: "cubic",
		boardIP: perfrun.DefaultBoardIP.String(), pcIP: perfrun.DefaultPCIP.String(),
		frames: 100000, size: 1514, payload: "random", direction: "both", ip: "198.18.1.2/24",
		seeds: 1, jobs: runtime.NumCPU(), set: map[string]bool{}}
}

// newRoot builds the command tree for one run. The root command is the main
// job itself (so `mesonemu --driver pre-fix` runs it), and `run` is its name.
func newRoot(e *env) *cobra.Command {
	root := newRunCmd(e)
	root.Use = "mesonemu"
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
	root.PersistentFlags().BoolVar(&e.f.version, "version", false, "print the module version and VCS revision, then exit")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		// Commands share the flags' variables and each registration set its
		// own default: the command that runs gets its own back.
		var reset error
		c.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Changed {
				e.f.set[fl.Name] = true
			} else if err := fl.Value.Set(fl.DefValue); err != nil && reset == nil {
				reset = fmt.Errorf("default of --%s: %w", fl.Name, err)
			}
		})
		if reset != nil {
			return reset
		}
		if err := e.f.check(); err != nil {
			return err
		}
		if tuneProcs && os.Getenv("GOMAXPROCS") == "" {
			name := c.Name()
			if c == c.Root() {
				name = "run" // the root command is the main job
			}
			runtime.GOMAXPROCS(engineProcs(name, e.f))
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, err) })
	run := newRunCmd(e)
	run.Short = "boot the board and run iperf3 from the board to the PC (the default)"
	root.AddCommand(run)
	for _, b := range builders {
		root.AddCommand(b(e))
	}
	root.AddCommand(&cobra.Command{Use: "version", Short: "print the module version and VCS revision", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := io.WriteString(e.stdout, versionLine()+"\n")
			return err
		}})
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	return root
}

// execute runs one command line.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, f: newFlags()}
	root := newRoot(e)
	final, rest, err := arrange(root, args)
	if err != nil {
		return err
	}
	e.rest = rest
	root.SetArgs(final)
	return root.ExecuteContext(ctx)
}
