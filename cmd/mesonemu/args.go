package main

import (
	"errors"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mesonemu/iperf3"
)

// passThrough are first words cobra answers itself (help, shell completion).
var passThrough = map[string]bool{"help": true, "completion": true,
	cobra.ShellCompRequestCmd: true, cobra.ShellCompNoDescRequestCmd: true}

// hints say where a flag that a command refuses does apply, when the generic
// "applies to" list is not the whole story.
var hints = map[string]map[string]string{
	"run": {
		"tap": "the main job runs against the in-process PC; over a TAP the board runs iperf3: `mesonemu --tap NAME iperf3 -c HOST` or `iperf3 -s`",
	},
	"iperf3": {
		"time":     "give iperf3's own -t after the command: `mesonemu iperf3 -c HOST -t 3`",
		"reverse":  "give iperf3's own -R after the command: `mesonemu iperf3 -c HOST -R`",
		"parallel": "give iperf3's own -P after the command: `mesonemu iperf3 -c HOST -P 2`",
		"json":     "give iperf3's own -J after the command: `mesonemu iperf3 -c HOST -J`",
	},
}

// arrange puts the command word first and checks every flag against that
// command's own flag set, so that flags may stand before or after the command
// (as they always could) while each command parses only its own. Everything
// after "iperf3" belongs to that command, which parses its arguments itself
// (cobra's DisableFlagParsing): arrange passes them on after a "--" that ends
// the flags it placed.
func arrange(root *cobra.Command, args []string) (final []string, err error) {
	if len(args) > 0 && passThrough[args[0]] {
		return args, nil
	}
	known := allFlags(root)
	var cmd *cobra.Command
	var given, flagArgs, iperf3Args []string // given: flag names, in order
	version := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return nil, usagef("unexpected argument %q", args[i+1])
			}
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			tok, name, hasValue := normalise(a)
			switch fl := known[name]; {
			case name == "h" || name == "help":
				flagArgs = append(flagArgs, "--help")
			case fl == nil:
				return nil, unknownFlag(root, cmd, name)
			case name == "version":
				version = true
			default:
				given = append(given, name)
				flagArgs = append(flagArgs, tok)
				if !hasValue && fl.NoOptDefVal == "" && i+1 < len(args) {
					i++
					flagArgs = append(flagArgs, args[i])
				}
			}
			continue
		}
		if len(flagArgs) > 0 && flagArgs[len(flagArgs)-1] == "--ablate" {
			return nil, usagef("--ablate takes its names after '=': --ablate=%s", a)
		}
		if cmd != nil {
			return nil, usagef("unexpected argument %q after command %q", a, cmd.Name())
		}
		if cmd = subcommand(root, a); cmd == nil {
			return nil, unknownCommand(root, a)
		}
		if cmd.DisableFlagParsing {
			iperf3Args = append([]string{"--"}, args[i+1:]...)
			break
		}
	}
	if version {
		return []string{"version"}, nil
	}
	target := root
	if cmd != nil {
		target = cmd
		final = append(final, cmd.Name())
	}
	for _, name := range given {
		if target.Flags().Lookup(name) == nil && target.InheritedFlags().Lookup(name) == nil {
			return nil, notApplies(root, target, name)
		}
	}
	return append(append(final, flagArgs...), iperf3Args...), nil
}

// normalise spells a flag the pflag way: "-json" (Go's flag package took
// one dash) is "--json". It returns the token, the flag's name and whether
// the token carries its value ("--seed=2").
func normalise(a string) (tok, name string, hasValue bool) {
	name = strings.TrimLeft(a, "-")
	name, _, hasValue = strings.Cut(name, "=")
	if len(name) == 1 {
		return a, name, hasValue
	}
	return "--" + strings.TrimLeft(a, "-"), name, hasValue
}

// splitIperf3Args takes mesonemu's own flags out of iperf3's arguments: a
// flag of the iperf3 command that iperf3 does not know applies; any other
// mesonemu flag that iperf3 does not know is refused by name, rather than
// left to iperf3's "unknown option". "--help" alone asks for this command's
// help (iperf3's own is -h).
func splitIperf3Args(c *cobra.Command, known map[string]*pflag.Flag, args []string) (rest, pulled []string, err error) {
	if len(args) == 1 && args[0] == "--help" {
		return nil, args, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			rest = append(rest, a)
			continue
		}
		name, _, hasValue := strings.Cut(a[2:], "=")
		if known[name] == nil || iperf3Knows(name) {
			rest = append(rest, a)
			continue
		}
		if c.Flags().Lookup(name) == nil {
			return nil, nil, usagef("--%s after iperf3: a mesonemu flag that does not apply to the iperf3 command", name)
		}
		pulled = append(pulled, a)
		if !hasValue && known[name].NoOptDefVal == "" {
			if i+1 >= len(args) {
				return nil, nil, usagef("flag needs an argument: --%s", name)
			}
			i++
			pulled = append(pulled, args[i])
		}
	}
	return rest, pulled, nil
}

// iperf3Knows reports whether iperf3 has a long option of this name.
func iperf3Knows(name string) bool { return iperf3.HasLongOption(name) }

// allFlags is every flag of every command, by name.
func allFlags(root *cobra.Command) map[string]*pflag.Flag {
	out := map[string]*pflag.Flag{}
	add := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			if out[f.Name] == nil {
				out[f.Name] = f
			}
		})
	}
	add(root.PersistentFlags())
	add(root.Flags())
	for _, c := range root.Commands() {
		add(c.Flags())
	}
	return out
}

func subcommand(root *cobra.Command, name string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

func commandName(root, c *cobra.Command) string {
	if c == root || c == nil {
		return "the main job (run)"
	}
	return c.Name()
}

// notApplies refuses a flag the command does not take, naming where it applies.
func notApplies(root, c *cobra.Command, name string) error {
	cmdName := "run"
	if c != root {
		cmdName = c.Name()
	}
	if h := hints[cmdName][name]; h != "" {
		return usagef("--%s does not apply to %s: %s", name, commandName(root, c), h)
	}
	var where []string
	for _, sub := range root.Commands() {
		if sub.Flags().Lookup(name) != nil {
			where = append(where, sub.Name())
		}
	}
	sort.Strings(where)
	return usagef("--%s does not apply to %s (it applies to %s)", name, commandName(root, c), strings.Join(where, ", "))
}

func unknownCommand(root *cobra.Command, name string) error {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(name, n)
		if abbreviates(name, n) {
			d = 0 // "cmp" is compare, not clk (two edits away)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	if best != "" {
		return usagef("unknown command %q: did you mean %s? (commands: %s)", name, best, strings.Join(names, ", "))
	}
	return usagef("unknown command %q (commands: %s)", name, strings.Join(names, ", "))
}

// abbreviates reports whether short is an abbreviation of word: its first
// letter, then the rest of its letters in word's order ("cmp" of "compare").
func abbreviates(short, word string) bool {
	if len(short) < 2 || len(short) >= len(word) || short[0] != word[0] {
		return false
	}
	i := 1
	for j := 1; j < len(word) && i < len(short); j++ {
		if word[j] == short[i] {
			i++
		}
	}
	return i == len(short)
}

// unknownFlag names the flag and the closest one there is.
func unknownFlag(root, cmd *cobra.Command, name string) error {
	if s := closestFlag(root, cmd, name); s != "" {
		return usagef("unknown flag --%s: did you mean --%s?", name, s)
	}
	return usagef("unknown flag --%s (mesonemu help lists the flags)", name)
}

// closestFlag is the flag name nearest to name: the command's own first,
// then any command's.
func closestFlag(root, cmd *cobra.Command, name string) string {
	best, bestD := "", 3 // at most two edits away, or a prefix
	try := func(names []string) {
		for _, n := range names {
			d := editDistance(name, n)
			if strings.HasPrefix(n, name) && len(name) >= 3 {
				d = min(d, 1)
			}
			if d < bestD {
				best, bestD = n, d
			}
		}
	}
	if cmd != nil {
		var own []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { own = append(own, f.Name) })
		try(own)
	}
	if best == "" {
		var all []string
		for n := range allFlags(root) {
			all = append(all, n)
		}
		sort.Strings(all)
		try(all)
	}
	return best
}

// editDistance is Levenshtein's distance, a transposition counting one.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// flagError turns pflag's errors into one line with exit status 2.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown flag: --") {
		return unknownFlag(c.Root(), c, strings.TrimPrefix(msg, "unknown flag: --"))
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	return usagef("%s", strings.ReplaceAll(msg, "\n", " "))
}
