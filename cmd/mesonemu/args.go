package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// commands are the words that choose what mesonemu does; the empty command is the
// main job (boot, link up, iperf3 from the board to the PC).
var commands = map[string]string{
	"run":      "boot the board and run iperf3 from the board to the PC (the default)",
	"clk":      "clock summary in the layout of Linux's clk_summary, then the MAC TX delay",
	"regs":     "PRG_ETH0 and HHI_MPLL_CNTL9 with every field decoded",
	"linktest": "push raw frames through driver, DMA, MAC, wire, PHY and far end; loss per direction",
	"iperf3":   "run the board's iperf3 with iperf3's own flags (-s, -c HOST, ...)",
	"compare":  "the commit's configurations side by side with the measured numbers",
	"scan":     "sweep MAC and PHY TX delays with quick link tests; pass/fail map",
	"eye":      "eye diagram and bathtub curve of the RGMII data lines",
}

var commandOrder = []string{"run", "clk", "regs", "linktest", "iperf3", "compare", "scan", "eye"}

// usageError is bad input from the user: one line on stderr, exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// splitArgs separates the command word from the flags, so flags may stand before
// or after it. Everything after "iperf3" belongs to iperf3's own parser.
func splitArgs(fs *flag.FlagSet, args []string) (cmd string, flags, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			flags = append(flags, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if strings.Contains(name, "=") {
				continue
			}
			f := fs.Lookup(name)
			if f == nil {
				if name == "h" || name == "help" {
					continue // flag.Parse answers with ErrHelp
				}
				// Said here, before its value is taken for a command word
				// ("--tx-delay 4ns" is a misspelt flag, not a command "4ns").
				return "", nil, nil, usagef("flag provided but not defined: -%s", name)
			}
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
				continue
			}
			if i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
			continue
		}
		if cmd != "" {
			return "", nil, nil, usagef("unexpected argument %q after command %q", a, cmd)
		}
		if _, ok := commands[a]; !ok {
			return "", nil, nil, usagef("unknown command %q (commands: %s)", a, strings.Join(commandOrder, ", "))
		}
		cmd = a
		if cmd == "iperf3" {
			rest = append(rest, args[i+1:]...)
			break
		}
	}
	if cmd == "" {
		cmd = "run"
	}
	return cmd, flags, rest, nil
}

func parseFlags(fs *flag.FlagSet, args []string) (string, []string, error) {
	fs.SetOutput(io.Discard)
	cmd, flags, rest, err := splitArgs(fs, args)
	if err != nil {
		return "", nil, err
	}
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "help", nil, nil
		}
		return "", nil, usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return "", nil, usagef("unexpected argument %q", fs.Arg(0))
	}
	return cmd, rest, nil
}
