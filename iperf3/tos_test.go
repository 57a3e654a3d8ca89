package iperf3

import (
	"strings"
	"testing"
)

// TestParseTOS: -S and --dscp read their values as 3.12's strtol and
// parse_qos do, with 3.12's one error text.
func TestParseTOS(t *testing.T) {
	const bad = "bad TOS value (must be between 0 and 255 inclusive)"
	tests := []struct {
		args string
		tos  int
		err  string
	}{
		{"-S 52", 52, ""},
		{"-S 064", 52, ""}, // octal, as the --help text says
		{"-S 0x34", 52, ""},
		{"-S 0X34", 52, ""},
		{"--tos=255", 255, ""},
		{"-S0", 0, ""},
		{"-S  16", 16, ""},        // strtol skips white space
		{"-S 16abc", 16, ""},      // and stops at the first non-digit
		{"-S 08", 0, ""},          // "0" is octal, "8" is not a digit of it
		{"-S 0x", 0, ""},          // "0", then "x"
		{"-S +7", 7, ""},          // a sign is allowed
		{"-S 4294967312", 16, ""}, // the long lands in a C int: 2^32+16 reads 16
		{"-S 256", 0, bad},
		{"-S -1", 0, bad},
		{"-S abc", 0, bad},
		{"-S ''", 0, bad},
		{"-S 99999999999999999999", 0, bad}, // LONG_MAX, which is -1 as an int
		{"--dscp ef", 0xb8, ""},
		{"--dscp AF11", 0x28, ""}, // names in any case
		{"--dscp cs7", 0xe0, ""},
		{"--dscp lowdelay", 0x10, ""},
		{"--dscp 46", 46 << 2, ""},
		{"--dscp 0x2e", 46 << 2, ""},
		{"--dscp 63", 252, ""},
		{"--dscp 64", 0, bad},
		{"--dscp 16abc", 0, bad}, // parse_qos wants the whole value
		{"--dscp af99", 0, bad},
		{"--dscp -1", 0, bad},
		{"-S 16 --dscp 1", 4, ""}, // the last one wins
		{"-s -S 16", 0, "some option you are trying to set is client only (-S)"},
		{"-s --dscp ef", 0, "some option you are trying to set is client only (--dscp)"},
	}
	for _, tc := range tests {
		args := strings.Fields(tc.args)
		for i, a := range args {
			if a == "''" {
				args[i] = ""
			}
		}
		if !strings.HasPrefix(tc.args, "-s") {
			args = append([]string{"-c", "h"}, args...)
		}
		cfg, err := ParseArgs(args)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.args, err)
		case cfg.Client.TOS != tc.tos:
			t.Errorf("%s: TOS %d, want %d", tc.args, cfg.Client.TOS, tc.tos)
		}
	}
}
