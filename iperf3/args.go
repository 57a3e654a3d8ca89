package iperf3

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Mode is the role a command line asks for.
type Mode int

// The two roles.
const (
	ModeClient Mode = iota + 1 // -c host
	ModeServer                 // -s
)

// Config is a parsed iperf3 command line. Client or Server holds the options
// for Mode; the transport, clock, statistics and output fields are left for
// the caller to fill in. Server.Port is the port to listen on.
type Config struct {
	Mode    Mode
	Client  ClientOptions
	Server  ServerOptions
	LogFile string // --logfile: output is appended to this file
	Help    bool   // -h: print the usage and do nothing else
	Version bool   // -v: print the version and do nothing else

	rcvTimeoutSet bool // --rcv-timeout was given
}

// option describes one iperf3 flag this implementation accepts.
type option struct {
	short   byte
	long    string
	takes   bool // needs a value
	only    Mode // 0: both roles
	applies func(*Config, string) error
}

var options = []option{
	{'s', "server", false, 0, nil},
	{'c', "client", true, 0, nil},
	{'h', "help", false, 0, nil},
	{'v', "version", false, 0, nil},
	{'p', "port", true, 0, func(c *Config, v string) error {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("bad port number %q", v)
		}
		c.Client.Port, c.Server.Port = p, p
		return nil
	}},
	{'i', "interval", true, 0, func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < 0 || (f > 0 && (f < 0.1 || f > 60)) {
			return errors.New(codeText[CodeInterval])
		}
		d := time.Duration(math.Round(f * float64(time.Second)))
		c.Client.Interval, c.Server.Interval = d, d
		c.Client.NoIntervals, c.Server.NoIntervals = f == 0, f == 0
		return nil
	}},
	{'f', "format", true, 0, func(c *Config, v string) error {
		if v == "" || !strings.ContainsRune("kmgtKMGT", rune(v[0])) {
			return errors.New(codeText[CodeBadFormat]) // 3.12 reads the first letter only
		}
		c.Client.Format, c.Server.Format = v[0], v[0]
		return nil
	}},
	{'J', "json", false, 0, func(c *Config, _ string) error {
		c.Client.JSON, c.Server.JSON = true, true
		return nil
	}},
	{'1', "one-off", false, ModeServer, func(c *Config, _ string) error {
		c.Server.OneOff = true
		return nil
	}},
	{0, "idle-timeout", true, ModeServer, func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxIdleTimeout {
			return errors.New(codeText[CodeIdleTimeout])
		}
		c.Server.WaitTimeout = time.Duration(n) * time.Second
		return nil
	}},
	{0, "server-bitrate-limit", true, ModeServer, func(c *Config, v string) error {
		r, secs, hasSecs := strings.Cut(v, "/")
		rate, _, err := parseBitrate(r)
		if err != nil {
			return err
		}
		c.Server.Limit = BitrateLimit{Rate: rate, Window: defaultLimitWindow}
		if hasSecs {
			n, err := strconv.Atoi(strings.TrimSpace(secs))
			if err != nil || n < 1 || n > maxDuration {
				return errors.New(codeText[CodeTotalInterval])
			}
			c.Server.Limit.Window = time.Duration(n) * time.Second
		}
		return nil
	}},
	{'V', "verbose", false, 0, func(c *Config, _ string) error {
		c.Client.Verbose, c.Server.Verbose = true, true
		return nil
	}},
	{'t', "time", true, ModeClient, func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxDuration {
			return errors.New(codeText[CodeDuration])
		}
		c.Client.Seconds = n
		return nil
	}},
	{'n', "bytes", true, ModeClient, func(c *Config, v string) error {
		n, err := parseSize(v)
		if err != nil {
			return fmt.Errorf("bad byte count %q: %w", v, err)
		}
		c.Client.Bytes = n
		return nil
	}},
	{'k', "blockcount", true, ModeClient, func(c *Config, v string) error {
		n, err := parseSize(v)
		if err != nil {
			return fmt.Errorf("bad block count %q: %w", v, err)
		}
		c.Client.Blocks = n
		return nil
	}},
	{'P', "parallel", true, ModeClient, func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxStreams {
			return errors.New(codeText[CodeNumStreams])
		}
		c.Client.Parallel = n
		return nil
	}},
	{'R', "reverse", false, ModeClient, func(c *Config, _ string) error {
		c.Client.Reverse = true
		return nil
	}},
	{'l', "length", true, ModeClient, func(c *Config, v string) error {
		n, err := parseSize(v)
		if err != nil || n < 1 || n > maxBlockSize {
			return errors.New(codeText[CodeBlockSize])
		}
		c.Client.BlockSize = int(n)
		return nil
	}},
	{0, "cport", true, ModeClient, func(c *Config, v string) error {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("bad port number %q", v)
		}
		c.Client.ClientPort = p
		return nil
	}},
	{'O', "omit", true, ModeClient, func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxOmit {
			return errors.New(codeText[CodeOmit])
		}
		c.Client.Omit = n
		return nil
	}},
	{0, "get-server-output", false, ModeClient, func(c *Config, _ string) error {
		c.Client.GetServerOutput = true
		return nil
	}},
	{'w', "window", true, ModeClient, func(c *Config, v string) error {
		n, err := parseSize(v)
		if err != nil || n > maxTCPBuffer {
			return errors.New(codeText[CodeBufSize])
		}
		c.Client.Window = int(n)
		return nil
	}},
	{'M', "set-mss", true, ModeClient, func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxMSS {
			return errors.New(codeText[CodeMSS])
		}
		c.Client.MSS = n
		return nil
	}},
	{'N', "no-delay", false, ModeClient, func(c *Config, _ string) error {
		c.Client.NoDelay = true
		return nil
	}},
	{'C', "congestion", true, ModeClient, func(c *Config, v string) error {
		c.Client.CongestionAlg = v
		return nil
	}},
	{'S', "tos", true, ModeClient, func(c *Config, v string) error {
		tos, err := parseTOS(v)
		c.Client.TOS = tos
		return err
	}},
	{0, "dscp", true, ModeClient, func(c *Config, v string) error {
		tos, err := parseDSCP(v)
		c.Client.TOS = tos
		return err
	}},
	{0, "rcv-timeout", true, 0, func(c *Config, v string) error {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < minRcvTimeoutMs || ms > maxRcvTimeoutMs {
			return errWithErrno(CodeRcvTimeout)
		}
		c.Client.IdleTimeout = time.Duration(ms) * time.Millisecond
		c.Server.IdleTimeout = c.Client.IdleTimeout
		c.rcvTimeoutSet = true
		return nil
	}},
	{0, "snd-timeout", true, 0, func(c *Config, v string) error {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 || ms > maxRcvTimeoutMs {
			return errWithErrno(CodeSndTimeout)
		}
		c.Client.SndTimeout = time.Duration(ms) * time.Millisecond
		c.Server.SndTimeout = c.Client.SndTimeout
		return nil
	}},
	{0, "extra-data", true, ModeClient, func(c *Config, v string) error {
		c.Client.ExtraData = v
		return nil
	}},
	{'T', "title", true, ModeClient, func(c *Config, v string) error {
		c.Client.Title = v
		return nil
	}},
	{'4', "version4", false, 0, func(c *Config, _ string) error {
		c.Client.Family, c.Server.Family = Family4, Family4
		return nil
	}},
	{'6', "version6", false, 0, func(c *Config, _ string) error {
		c.Client.Family, c.Server.Family = Family6, Family6
		return nil
	}},
	{0, "timestamps", true, 0, func(c *Config, v string) error {
		if err := checkTimestampFormat(v); err != nil {
			return err
		}
		c.Client.Stamps = LineStamps{On: true, Format: v}
		c.Server.Stamps = c.Client.Stamps
		return nil
	}},
	{'F', "file", true, 0, func(c *Config, v string) error {
		c.Client.File, c.Server.File = v, v
		return nil
	}},
	{0, "dont-fragment", false, ModeClient, func(c *Config, _ string) error {
		c.Client.DontFragment = true
		return nil
	}},
	{0, "repeating-payload", false, ModeClient, func(c *Config, _ string) error {
		c.Client.Repeating = true
		return nil
	}},
	{'Z', "zerocopy", false, ModeClient, func(c *Config, _ string) error {
		c.Client.ZeroCopy = true
		return nil
	}},
	{0, "bidir", false, ModeClient, func(c *Config, _ string) error {
		c.Client.Bidir = true
		return nil
	}},
	{'u', "udp", false, ModeClient, func(c *Config, _ string) error {
		c.Client.UDP = true
		return nil
	}},
	{'b', "bitrate", true, ModeClient, func(c *Config, v string) error {
		r, burst, err := parseBitrate(v)
		if err != nil {
			return err
		}
		c.Client.Bandwidth, c.Client.Burst, c.Client.BandwidthSet = r, burst, true
		return nil
	}},
	{0, "udp-counters-64bit", false, ModeClient, func(c *Config, _ string) error {
		c.Client.Counters64 = true
		return nil
	}},
	{0, "pacing-timer", true, ModeClient, func(c *Config, v string) error {
		n, err := parseSize(v)
		if err != nil || n < 1 || n > maxPacingTimer {
			return fmt.Errorf("bad --pacing-timer %q (1..%d microseconds)", v, maxPacingTimer)
		}
		c.Client.PacingTimer = int(n)
		return nil
	}},
}

// optionalValue are the long options whose value is optional (getopt's
// optional_argument: only "--name=VALUE" gives one), with the value they
// take without one.
var optionalValue = map[string]string{"timestamps": DefaultTimestampFormat}

// 3.12 words a few parameter errors with strerror appended, which is empty
// there: "...: " and a blank line.
const errnoSuffix = ": \n"

func errWithErrno(c Code) error { return errors.New(codeText[c] + errnoSuffix) }

// The --rcv-timeout range in milliseconds (3.12's MIN/MAX_NO_MSG_RCVD_TIMEOUT);
// --snd-timeout takes 0 up to the same maximum.
const (
	minRcvTimeoutMs = 100
	maxRcvTimeoutMs = 86400 * 1000
)

// refusedOptions are 3.12 --help options that mean nothing on the emulated
// board or are not built here; each is refused with its reason, never
// silently ignored.
var refusedOptions = []struct {
	short  byte
	long   string
	takes  bool
	reason string
}{
	{'D', "daemon", false, "the board's iperf3 runs in the foreground of mesonemu"},
	{'d', "debug", false, "debug output is not implemented"},
	{'B', "bind", true, "each emulated host has one address per family, chosen by the destination"},
	{0, "bind-dev", true, "each emulated host has one interface"},
	{'L', "flowlabel", true, "the emulated stacks' sockets do not set IPv6 flow labels"},
	{'A', "affinity", true, "the emulated board has one core"},
	{0, "sctp", false, "the emulated stacks have no SCTP"},
	{0, "nstreams", true, "the emulated stacks have no SCTP"},
	{'X', "xbind", true, "the emulated stacks have no SCTP"},
	{'I', "pidfile", true, "the board's iperf3 is not a separate process"},
	{0, "fq-rate", true, "the emulated stacks have no fq pacing (3.12 without SO_MAX_PACING_RATE refuses it too)"},
	{0, "no-fq-socket-pacing", false, "the emulated stacks have no fq pacing"},
	{0, "username", true, "authentication is not built (3.12 without OpenSSL lacks it too)"},
	{0, "rsa-public-key-path", true, "authentication is not built"},
	{0, "rsa-private-key-path", true, "authentication is not built"},
	{0, "authorized-users-path", true, "authentication is not built"},
	{0, "time-skew-threshold", true, "authentication is not built"},
}

func init() {
	for _, r := range refusedOptions {
		reason := r.reason
		options = append(options, option{r.short, r.long, r.takes, 0, func(*Config, string) error {
			return fmt.Errorf("not available here: %s", reason)
		}})
	}
	options = append(options,
		option{0, "bandwidth", true, ModeClient, findLong("bitrate").applies},
		option{0, "linux-congestion", true, ModeClient, findLong("congestion").applies},
		option{0, "forceflush", false, 0, nil}, // output is written as it is printed
		option{0, "logfile", true, 0, func(c *Config, v string) error {
			c.LogFile = v
			return nil
		}},
		option{0, "connect-timeout", true, ModeClient, func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("bad --connect-timeout %q (milliseconds)", v)
			}
			c.Client.ConnectTimeout = time.Duration(n) * time.Millisecond
			return nil
		}},
	)
}

// parseBitrate reads -b RATE[/BURST]: unit_atof_rate's suffixes are powers
// of 1000, and like C's atof it takes the number a value starts with (junk
// reads as 0, unlimited). A burst must be 1..1000.
func parseBitrate(v string) (rate uint64, burst int, err error) {
	r, b, hasBurst := strings.Cut(v, "/")
	if hasBurst {
		burst, err = strconv.Atoi(strings.TrimSpace(b))
		if err != nil || burst <= 0 || burst > maxBurst {
			return 0, 0, errors.New(codeText[CodeBurst])
		}
	}
	mult := 1.0
	if r != "" {
		switch r[len(r)-1] {
		case 'k', 'K':
			mult = 1e3
		case 'm', 'M':
			mult = 1e6
		case 'g', 'G':
			mult = 1e9
		case 't', 'T':
			mult = 1e12
		}
		if mult != 1 {
			r = r[:len(r)-1]
		}
	}
	f := leadingFloat(r) * mult
	if math.IsNaN(f) || f < 0 || f >= math.Exp2(63) {
		return 0, 0, fmt.Errorf("bad bitrate %q", v)
	}
	return uint64(f), burst, nil
}

// leadingFloat is atof: the longest prefix that is a number, else 0.
func leadingFloat(s string) float64 {
	s = strings.TrimLeft(s, " \t")
	for n := len(s); n > 0; n-- {
		if f, err := strconv.ParseFloat(s[:n], 64); err == nil {
			return f
		}
	}
	return 0
}

// parseSize reads iperf3's "#[KMGT]" sizes (unit_atoi: the suffixes are
// powers of 1024).
func parseSize(v string) (uint64, error) {
	mult := 1.0
	if v != "" {
		switch v[len(v)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult != 1 {
			v = v[:len(v)-1]
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, err
	}
	n := f * mult
	if math.IsNaN(n) || n < 0 || n >= math.Exp2(63) {
		return 0, fmt.Errorf("out of range")
	}
	return uint64(n), nil
}

func findShort(ch byte) *option {
	for i := range options {
		if options[i].short == ch && ch != 0 {
			return &options[i]
		}
	}
	return nil
}

// HasLongOption reports whether iperf3 3.12 has the long option --name (a
// wrapper that takes its own flags among iperf3's asks it).
func HasLongOption(name string) bool { return findLong(name) != nil }

func findLong(name string) *option {
	for i := range options {
		if options[i].long == name {
			return &options[i]
		}
	}
	return nil
}

// use is one flag of a command line with its value.
type use struct {
	opt  *option
	name string
	val  string
}

// ParseArgs reads iperf3's own flag spellings (see options: -s, -c host, -p,
// -t, -n, -i, -P, -R, -l, -J, -O, -1, -u, -b, --cport, --get-server-output,
// --udp-counters-64bit, --pacing-timer and their long forms), with getopt's
// "-t5", "-sJ" and "--time=5" shapes. Unknown flags make an error that names
// every one of them. The error texts are iperf3's parameter errors.
func ParseArgs(args []string) (Config, error) {
	var cfg Config
	uses, err := tokenize(args)
	if err != nil {
		return cfg, err
	}
	for _, u := range uses { // tokenize stops at the first -h or -v
		if answersAtOnce(u.opt.long) {
			// 3.12 prints its usage or version as soon as getopt reads them.
			cfg.Help, cfg.Version = u.opt.long == "help", u.opt.long == "version"
			return cfg, nil
		}
	}
	if cfg.Mode, cfg.Client.Host, err = role(uses); err != nil {
		return cfg, err
	}
	timeSet := false
	for _, u := range uses {
		if u.opt.only != 0 && u.opt.only != cfg.Mode {
			if u.opt.only == ModeClient {
				return cfg, fmt.Errorf("some option you are trying to set is client only (%s)", u.name)
			}
			return cfg, fmt.Errorf("some option you are trying to set is server only (%s)", u.name)
		}
		if u.opt.long == "time" {
			timeSet = true
		}
		if u.opt.applies != nil {
			if err := u.opt.applies(&cfg, u.val); err != nil {
				if isCodeText(err.Error()) {
					return cfg, err // 3.12's own words, as it prints them
				}
				return cfg, fmt.Errorf("%s: %w", u.name, err)
			}
		}
	}
	if cfg.rcvTimeoutSet && cfg.Mode == ModeClient && !cfg.Client.Reverse && !cfg.Client.Bidir {
		return cfg, errWithErrno(CodeRcvTimeoutMode) // 3.12: a sending client never waits to receive
	}
	if c := cfg.Client; cfg.Mode == ModeClient && ((timeSet && (c.Bytes > 0 || c.Blocks > 0)) || (c.Bytes > 0 && c.Blocks > 0)) {
		return cfg, errors.New(codeText[CodeEndConditions])
	}
	if c := &cfg.Client; c.File != "" && !timeSet && c.Bytes == 0 && c.Blocks == 0 {
		// 3.12: without an end condition -F sends the file's size.
		if st, err := os.Stat(c.File); err == nil && st.Mode().IsRegular() {
			c.Bytes = uint64(st.Size())
		}
	}
	if cfg.Client.Reverse && cfg.Client.Bidir {
		return cfg, errors.New(codeText[CodeReverseBidir])
	}
	if c := cfg.Client; c.UDP && c.BlockSize != 0 && (c.BlockSize < minUDPBlockSize || c.BlockSize > maxUDPBlockSize) {
		return cfg, errors.New(codeText[CodeUDPBlockSize])
	}
	if cfg.Server.Port == 0 {
		cfg.Client.Port, cfg.Server.Port = DefaultPort, DefaultPort
	}
	return cfg, nil
}

// role finds -s or -c HOST.
func role(uses []use) (Mode, string, error) {
	server, client, host := false, false, ""
	for _, u := range uses {
		switch u.opt.long {
		case "server":
			server = true
		case "client":
			client, host = true, u.val
		}
	}
	switch {
	case server && client:
		return 0, "", errors.New("cannot be both server and client")
	case server:
		return ModeServer, "", nil
	case client:
		return ModeClient, host, nil
	}
	return 0, "", errors.New("must either be a client (-c) or server (-s)")
}

// tokenize splits a command line into flags and values, getopt's way.
func tokenize(args []string) ([]use, error) {
	var uses []use
	var unknown []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case strings.HasPrefix(arg, "--") && len(arg) > 2:
			name, val, hasVal := strings.Cut(arg[2:], "=")
			opt := findLong(name)
			if opt == nil {
				unknown = append(unknown, "--"+name)
				continue
			}
			if def, optional := optionalValue[name]; optional && !hasVal {
				val = def
			} else if opt.takes && !hasVal {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("option --%s requires an argument", name)
				}
				i++
				val = args[i]
			} else if !opt.takes && hasVal {
				return nil, fmt.Errorf("option --%s takes no argument", name)
			}
			uses = append(uses, use{opt, "--" + name, val})
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			var err error
			if uses, i, err = shortFlags(args, i, uses, &unknown); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("unexpected argument %q", arg)
		}
		if len(unknown) == 0 && len(uses) > 0 && answersAtOnce(uses[len(uses)-1].opt.long) {
			return uses, nil // getopt's order: -h and -v answer before what follows them
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown option(s): %s", strings.Join(unknown, ", "))
	}
	return uses, nil
}

// answersAtOnce are the options 3.12 answers as soon as it reads them.
func answersAtOnce(long string) bool { return long == "help" || long == "version" }

// shortFlags reads one "-xyz" word (and the next word if its last flag
// takes a value), returning the index of the last word used.
func shortFlags(args []string, i int, uses []use, unknown *[]string) ([]use, int, error) {
	arg := args[i]
	for j := 1; j < len(arg); j++ {
		opt := findShort(arg[j])
		if opt == nil {
			*unknown = append(*unknown, "-"+string(arg[j]))
			continue
		}
		name := "-" + string(arg[j])
		if !opt.takes {
			uses = append(uses, use{opt, name, ""})
			continue
		}
		val := arg[j+1:]
		if val == "" {
			if i+1 >= len(args) {
				return nil, i, fmt.Errorf("option %s requires an argument", name)
			}
			i++
			val = args[i]
		}
		return append(uses, use{opt, name, val}), i, nil
	}
	return uses, i, nil
}

// isCodeText reports whether msg is one of iperf3's error texts.
func isCodeText(msg string) bool {
	msg = strings.TrimSuffix(msg, errnoSuffix)
	for _, t := range codeText {
		if t == msg {
			return true
		}
	}
	return false
}
