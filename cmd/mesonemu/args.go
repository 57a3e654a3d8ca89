package main

import (
	"errors"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mesonemu/iperf3"
)

// hints say where a flag that a command refuses does apply, when the generic
// "applies to" list is not the whole story.
var hints = map[string]map[string]string{
	"run": {
		"tap": "the main job runs against the in-process PC; over a TAP the board runs iperf3: `mesonemu --tap NAME iperf3 -c HOST` or `iperf3 -s`",
	},
}

// noArgs is cobra.NoArgs with the CLI's own messages: a word that is no
// command, a word after a command, and --ablate given its names after a
// space (it has a bare form, so the next word is not its value).
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if f := c.Flags().Lookup("ablate"); f != nil && f.Changed && f.Value.String() == "" {
		return usagef("--ablate takes its names after '=': --ablate=%s", args[0])
	}
	switch {
	case c.ArgsLenAtDash() >= 0:
		return usagef("unexpected argument %q", args[0])
	case c == c.Root():
		return unknownCommand(c, args[0])
	}
	return usagef("unexpected argument %q after command %q", args[0], c.Name())
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
			return nil, nil, usagef("--%s does not apply to the iperf3 command (a mesonemu flag iperf3 does not have)", name)
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

// flagError turns pflag's errors into one line with exit status 2. args
// are the command line as given: a flag the main job refused may belong to
// a command word that came after it.
func flagError(c *cobra.Command, err error, args []string) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		return refuseFlag(c, name, args)
	}
	// pflag reads "-json" as the shorthands j, s, o, n.
	if rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: "); ok {
		_, tok, _ := strings.Cut(rest, " in ")
		if long := strings.TrimLeft(tok, "-"); len(long) > 1 && allFlags(c.Root())[long] != nil {
			return usagef("%s: a long flag takes two dashes: --%s", tok, long)
		}
		return usagef("unknown flag %s (mesonemu help lists the flags)", tok)
	}
	return usagef("%s", strings.ReplaceAll(msg, "\n", " "))
}

// refuseFlag names why a command does not take a flag: no command has it,
// it belongs to the command word that follows it (cobra gives a flag before
// the word to the command only when the main job can tell how many words
// the flag takes), or it applies elsewhere.
func refuseFlag(c *cobra.Command, name string, args []string) error {
	root := c.Root()
	if allFlags(root)[name] == nil {
		return unknownFlag(root, c, name)
	}
	if c == root {
		for _, a := range args {
			if sub := subcommand(root, a); sub != nil && sub.Flags().Lookup(name) != nil {
				return usagef("--%s is a flag of %s: give it after the command word (mesonemu %s --%s ...)", name, sub.Name(), sub.Name(), name)
			}
		}
	}
	return notApplies(root, c, name)
}
