package iperf3

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelp: -h prints a line for every option the parser accepts and for
// every refused one with its reason, exits 0 and runs nothing, wherever -h
// stands (3.12 answers it as soon as getopt reads it).
func TestHelp(t *testing.T) {
	refused := map[string]string{}
	for _, r := range refusedOptions {
		refused[r.long] = r.reason
	}
	for _, o := range options {
		if _, ok := optionHelp[o.long]; !ok && refused[o.long] == "" && o.long != "help" {
			t.Errorf("--%s has no help line", o.long)
		}
	}
	for long := range optionHelp {
		if findLong(long) == nil {
			t.Errorf("help for --%s, which the parser does not know", long)
		}
	}
	for _, args := range []string{"-h", "--help", "-c 198.18.0.1 -h", "-s -p 5202 --help -x"} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), strings.Fields(args), Env{Stdout: &out, Stderr: &errOut})
		text := out.String()
		if code != 0 || errOut.Len() != 0 || !strings.HasPrefix(text, "Usage: iperf3 [-s|-c host] [options]\n") {
			t.Fatalf("%s: exit %d, stderr %q, stdout:\n%s", args, code, errOut.String(), text)
		}
		for _, o := range options {
			if o.long != "help" && !strings.Contains(text, "--"+o.long+" ") && !strings.Contains(text, "--"+o.long+"\n") {
				t.Errorf("%s: no line for --%s", args, o.long)
			}
		}
		for long, reason := range refused {
			if !strings.Contains(text, "--"+long) || !strings.Contains(text, reason) {
				t.Errorf("%s: --%s not listed with its reason %q", args, long, reason)
			}
		}
	}
}

// TestVersion: -v prints 3.12's three lines (version, system, features) and
// exits 0 before anything else on the line is looked at.
func TestVersion(t *testing.T) {
	for _, args := range []string{"-v", "--version", "-c 198.18.0.1 -v -t abc"} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), strings.Fields(args), Env{Stdout: &out, Stderr: &errOut})
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if code != 0 || errOut.Len() != 0 || len(lines) != 3 || lines[0] != "iperf 3.12 (mesonemu iperf3)" ||
			!strings.HasPrefix(lines[2], "Optional features available: ") {
			t.Errorf("%s: exit %d, stderr %q, stdout %q", args, code, errOut.String(), out.String())
		}
	}
}
