package iperf3

import (
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args  string
		check func(Config) bool
		err   string
	}{
		{"-c 198.18.1.1 -t 5", func(c Config) bool {
			return c.Mode == ModeClient && c.Client.Host == "198.18.1.1" && c.Client.Seconds == 5 && c.Client.Port == 5201
		}, ""},
		{"-s", func(c Config) bool { return c.Mode == ModeServer && c.Server.Port == 5201 && !c.Server.OneOff }, ""},
		{"-s -p 5202 -1 -J -i 0.5", func(c Config) bool {
			return c.Server.Port == 5202 && c.Server.OneOff && c.Server.JSON && c.Server.Interval == 500*time.Millisecond
		}, ""},
		{"-c h -R -P 2 -l 64K -n 1M --cport 40000 -O 1 --get-server-output -i 0", func(c Config) bool {
			o := c.Client
			return o.Reverse && o.Parallel == 2 && o.BlockSize == 65536 && o.Bytes == 1<<20 && o.Seconds == 0 &&
				o.ClientPort == 40000 && o.Omit == 1 && o.GetServerOutput && o.NoIntervals
		}, ""},
		{"-ch -t5 -P4", func(c Config) bool { return c.Client.Host == "h" && c.Client.Seconds == 5 && c.Client.Parallel == 4 }, ""},
		{"--client=h --time=3 --parallel 4 --reverse --json", func(c Config) bool {
			return c.Client.Host == "h" && c.Client.Seconds == 3 && c.Client.Parallel == 4 && c.Client.Reverse && c.Client.JSON
		}, ""},
		{"-sJ1", func(c Config) bool { return c.Mode == ModeServer && c.Server.JSON && c.Server.OneOff }, ""},
		{"-c h -n 1.5K", func(c Config) bool { return c.Client.Bytes == 1536 }, ""},
		{"-c h -f M", func(c Config) bool { return c.Client.Format == 'M' }, ""},
		{"-s -f mbits", func(c Config) bool { return c.Server.Format == 'm' }, ""}, // 3.12 reads the first letter
		{"-c h -f x", nil, "bad format specifier (valid formats are in the set [kmgtKMGT])"},
		{"-c h -f a", nil, "bad format specifier (valid formats are in the set [kmgtKMGT])"},
		{"-c h -x --bogus -y", nil, "unknown option(s): -x, --bogus, -y"},
		{"-c h -t 3 -n 1M", nil, "only one test end condition (-t, -n, -k) may be specified"},
		{"-s -t 3", nil, "some option you are trying to set is client only (-t)"},
		{"-c h -1", nil, "some option you are trying to set is server only (-1)"},
		{"", nil, "must either be a client (-c) or server (-s)"},
		{"-s -c h", nil, "cannot be both server and client"},
		{"-c h -i 0.05", nil, "invalid report interval (min = 0.1, max = 60 seconds)"},
		{"-c h -t", nil, "option -t requires an argument"},
		{"-c h extra", nil, `unexpected argument "extra"`},
		{"-c h -P 0", nil, "number of parallel streams too large (maximum = 128)"},
		{"-c h -p 70000", nil, `-p: bad port number "70000"`},
		{"-c h --json=1", nil, "option --json takes no argument"},
		// --timestamps[=FORMAT]: "=" is required for a format (getopt's
		// optional_argument), the default is 3.12's "%c ", both roles take it.
		{"-c h --timestamps", func(c Config) bool { return c.Client.Stamps == LineStamps{On: true, Format: "%c "} }, ""},
		{"-s --timestamps=%T|", func(c Config) bool { return c.Server.Stamps == LineStamps{On: true, Format: "%T|"} }, ""},
		{"-c h --timestamps=", func(c Config) bool { return c.Client.Stamps == LineStamps{On: true} }, ""},
		{"-c h --timestamps %T", nil, `unexpected argument "%T"`},
		{"-c h --timestamps=" + strings.Repeat("%Y", 25), nil, "--timestamps: format expands to 100 bytes, more than 3.12's 99"},
	}
	for _, tc := range tests {
		cfg, err := ParseArgs(strings.Fields(tc.args))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !tc.check(cfg) {
			t.Errorf("%q: %+v, %v", tc.args, cfg, err)
		}
	}
}
