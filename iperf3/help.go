package iperf3

import (
	"fmt"
	"io"
	"strings"
)

// optionHelp is -h's line for each accepted option: its value and what it
// does here. Refused options are listed from refusedOptions with their
// reasons, so -h says what the board does not offer as well.
var optionHelp = map[string][2]string{
	"server":               {"", "run in server mode"},
	"client":               {"<host>", "run in client mode, connecting to <host>"},
	"port":                 {"#", "server port to listen on/connect to (default 5201)"},
	"interval":             {"#", "seconds between periodic reports (0.1-60, 0: none)"},
	"format":               {"[kmgtKMGT]", "unit of the bitrates: bits (lower case) or bytes per second"},
	"json":                 {"", "output in JSON, 3.12's schema"},
	"one-off":              {"", "serve one test, then exit"},
	"idle-timeout":         {"#", "listen afresh (or exit with -1) after # seconds without a client"},
	"server-bitrate-limit": {"#[KMG][/#]", "refuse or end tests over this total rate (averaged over # s, default 5)"},
	"verbose":              {"", "more detailed output"},
	"time":                 {"#", "seconds to transmit (default 10)"},
	"bytes":                {"#[KMG]", "bytes to transmit (instead of -t)"},
	"blockcount":           {"#[KMG]", "blocks to transmit (instead of -t or -n)"},
	"parallel":             {"#", "parallel streams (1-128)"},
	"reverse":              {"", "the server sends, the client receives"},
	"length":               {"#[KMG]", "block length (TCP default 128 KiB, UDP the path's MSS)"},
	"cport":                {"#", "client port of the data streams (stream i gets #+i)"},
	"omit":                 {"#", "leave the first # seconds out of the results"},
	"get-server-output":    {"", "print the server's results too"},
	"window":               {"#[KMG]", "socket buffer size (SO_SNDBUF and SO_RCVBUF)"},
	"set-mss":              {"#", "TCP maximum segment size, set before connect"},
	"no-delay":             {"", "TCP_NODELAY"},
	"congestion":           {"<algo>", "TCP congestion control: cubic or reno"},
	"linux-congestion":     {"<algo>", "the same as -C"},
	"tos":                  {"N", "IP type of service of the data streams (0-255; 0x hex, 0 octal)"},
	"dscp":                 {"N or name", "DSCP of the data streams (0-63, af11...ef, cs0...cs7)"},
	"rcv-timeout":          {"#", "ms a receiving side waits for data before it gives up (default 120000)"},
	"snd-timeout":          {"#", "TCP_USER_TIMEOUT in ms on the control and data connections"},
	"extra-data":           {"<str>", "a string put in both ends' JSON"},
	"title":                {"<str>", "prefix every output line with <str>:"},
	"version4":             {"", "IPv4 only"},
	"version6":             {"", "IPv6 only (brings IPv6 up on the emulated hosts)"},
	"timestamps":           {"<=format>", "stamp every print (strftime format, default \"%c \")"},
	"file":                 {"<name>", "send the file's bytes, or write what is received to it"},
	"repeating-payload":    {"", "send \"0123456789...\" instead of random bytes"},
	"zerocopy":             {"", "TCP: what 3.12's sendfile path sends (zeros)"},
	"bidir":                {"", "both directions at once"},
	"udp":                  {"", "UDP rather than TCP"},
	"bandwidth":            {"#[KMG][/#]", "the same as -b"},
	"bitrate":              {"#[KMG][/#]", "target bitrate in bits/s (UDP default 1M, TCP unlimited), optional burst"},
	"udp-counters-64bit":   {"", "64-bit UDP sequence numbers"},
	"dont-fragment":        {"", "UDP over IPv4: set DF on the datagrams (a too-long one is not sent)"},
	"pacing-timer":         {"#[KMG]", "UDP and -b pacing period in microseconds (default 1000)"},
	"forceflush":           {"", "flush the output after every line (it always is here)"},
	"logfile":              {"<file>", "append the output to <file>"},
	"connect-timeout":      {"#", "ms the control connection may take to connect"},
	"help":                 {"", "show this message and quit"},
	"version":              {"", "show version information and quit"},
}

// writeUsage is -h: the accepted options by role, then the refused ones.
func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("Usage: iperf3 [-s|-c host] [options]\n       iperf3 [-h|--help] [-v|--version]\n" +
		"(mesonemu's iperf3, wire-compatible with iperf3 3.12)\n")
	refused := make(map[string]bool, len(refusedOptions))
	for _, r := range refusedOptions {
		refused[r.long] = true
	}
	for _, g := range []struct {
		title string
		mode  Mode
	}{{"Server or Client", 0}, {"Server specific", ModeServer}, {"Client specific", ModeClient}} {
		fmt.Fprintf(&b, "\n%s:\n", g.title)
		for _, o := range options {
			h, ok := optionHelp[o.long]
			mode := o.only
			switch o.long {
			case "server":
				mode = ModeServer
			case "client":
				mode = ModeClient
			}
			if mode != g.mode || !ok || refused[o.long] {
				continue
			}
			fmt.Fprintf(&b, "  %-38s %s\n", strings.TrimRight(optionName(o.short, o.long)+" "+h[0], " "), h[1])
		}
	}
	b.WriteString("\nNot offered by the emulated board (refused with the reason):\n")
	for _, r := range refusedOptions {
		fmt.Fprintf(&b, "  %-38s %s\n", optionName(r.short, r.long), r.reason)
	}
	_, _ = io.WriteString(w, b.String())
}

// optionName is "-x, --long", or "    --long" for an option without a
// short form, so the long names line up.
func optionName(short byte, long string) string {
	if short == 0 {
		return "    --" + long
	}
	return fmt.Sprintf("-%c, --%s", short, long)
}
