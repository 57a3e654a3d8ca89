package iperf3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"

	"mesonemu/socket"
)

// Env is what a command-line run needs from its surroundings: a transport,
// a clock, TCP statistics and the output streams.
type Env struct {
	Dial       socket.DialFunc
	Listen     func(ctx context.Context, port int) (net.Listener, error)
	DialUDP    socket.DialFunc                                             // nil: socket.HostDialUDP
	ListenUDP  func(ctx context.Context, port int) (net.PacketConn, error) // nil: socket.HostListenUDP
	Clock      tcpip.Clock
	TCPInfo    socket.TCPInfoFunc
	Congestion socket.CongestionFunc
	SockOpts   socket.OptionsFunc // -w, -M, -N, -C on data streams
	Stdout     io.Writer
	Stderr     io.Writer
	Seed       uint64     // 0: random
	Sched      coop.Sched // the test's activities; nil: goroutines
	// StampAnchor is the wall time --timestamps counts from (LineStamps);
	// zero: time.Now() when Main starts.
	StampAnchor time.Time
}

// HostEnv runs over the host's TCP stack and wall clock.
func HostEnv() Env {
	return Env{
		Dial: socket.HostDial,
		Listen: func(ctx context.Context, port int) (net.Listener, error) {
			var lc net.ListenConfig
			return lc.Listen(ctx, Network(ctx), ":"+strconv.Itoa(port))
		},
		Clock:      tcpip.NewStdClock(),
		TCPInfo:    socket.HostTCPInfo,
		Congestion: socket.HostCongestion,
		SockOpts:   socket.SetHostOptions,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
	}
}

// Main runs an iperf3 command line (without the program name) and returns
// the exit status, printing like iperf3: results on Stdout, "iperf3:
// parameter error - ..." and "iperf3: error - ..." on Stderr.
func Main(ctx context.Context, args []string, env Env) int {
	stdout, stderr := env.Stdout, env.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	cfg, err := ParseArgs(args)
	if err != nil {
		// As 3.12's main: iperf_err (stamped if --timestamps came before the
		// bad option), a blank line, then the usage on stdout.
		fmt.Fprintf(stderr, "%siperf3: parameter error - %s\n\n", anchorStamps(&cfg, env).now(), err)
		fmt.Fprintf(stdout, "Usage: iperf3 [-s|-c host] [options]\n       iperf3 [-h|--help] [-v|--version]\n")
		return 1
	}
	switch {
	case cfg.Help:
		writeUsage(stdout)
		return 0
	case cfg.Version:
		// 3.12's version line, its uname line and the features it was built
		// with; here the features the board's iperf3 offers.
		fmt.Fprintf(stdout, "%s (mesonemu iperf3)\n%s\nOptional features available: TCP congestion algorithm setting, sendfile / zerocopy\n",
			versionString, defaultSystemInfo())
		return 0
	}
	if cfg.Client.Verbose && cfg.Client.JSON {
		// 3.12 warns and leaves its verbose lines out of the JSON run.
		fmt.Fprintf(stderr, "warning: Verbose output (-v) may interfere with JSON output (-J)\n")
	}
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "iperf3: error - unable to open log file: %s\n", unwrapPathError(err))
			return 1
		}
		defer f.Close()
		stdout = f
	}
	errStamp := anchorStamps(&cfg, env)
	if cfg.Mode == ModeClient {
		return mainClient(ctx, cfg, env, stdout, stderr, errStamp)
	}
	return mainServer(ctx, cfg, env, stdout, stderr)
}

// mainClient is Main's iperf3 -c: its exit status.
func mainClient(ctx context.Context, cfg Config, env Env, stdout, stderr io.Writer, errStamp *lineStamper) int {
	o := cfg.Client
	o.Dial, o.DialUDP, o.Clock, o.TCPInfo, o.Congestion = env.Dial, env.DialUDP, env.Clock, env.TCPInfo, env.Congestion
	o.Output, o.Seed, o.Sched, o.SockOpts = stdout, env.Seed, env.Sched, env.SockOpts
	if _, err := Run(ctx, o); err != nil {
		var ie *Error
		switch {
		case o.JSON:
		case errors.As(err, &ie) && ie.Interrupted():
			fmt.Fprintf(stderr, "%siperf3: %s\n", errStamp.at(DefaultTimestampFormat), err)
		default:
			// 3.12's iperf_errexit stamps with "%c " whatever the format.
			fmt.Fprintf(stderr, "%siperf3: error - %s\n", errStamp.at(DefaultTimestampFormat), err)
		}
		return 1
	}
	return 0
}

// mainServer is Main's iperf3 -s: its exit status.
func mainServer(ctx context.Context, cfg Config, env Env, stdout, stderr io.Writer) int {
	o := cfg.Server
	o.Clock, o.ListenUDP, o.TCPInfo, o.Congestion = env.Clock, env.ListenUDP, env.TCPInfo, env.Congestion
	o.Output, o.ErrOutput, o.Seed, o.Sched, o.SockOpts = stdout, stderr, env.Seed, env.Sched, env.SockOpts
	if env.Listen == nil {
		fmt.Fprintf(stderr, "iperf3: error - %s\n", fail(CodeAccept, fmt.Errorf("no listener available")))
		return 1
	}
	ln, err := env.Listen(WithNetwork(ctx, o.Family.network()), o.Port)
	if err != nil {
		fmt.Fprintf(stderr, "iperf3: error - unable to start listener for connections: %s\n", err)
		return 1
	}
	if err := Serve(ctx, ln, o); err != nil && ctx.Err() == nil {
		if o.OneOff {
			return 1
		}
		fmt.Fprintf(stderr, "iperf3: error - %s\n", err)
		return 1
	}
	return 0
}

// anchorStamps fixes the --timestamps anchor of both roles once, for the
// whole run, and returns a stamper for the client's error line (nil, which
// stamps nothing, when stamps are off).
func anchorStamps(cfg *Config, env Env) *lineStamper {
	if !cfg.Client.Stamps.On {
		return nil
	}
	anchor := env.StampAnchor
	if anchor.IsZero() {
		anchor = time.Now()
	}
	cfg.Client.Stamps.Anchor, cfg.Server.Stamps.Anchor = anchor, anchor
	clock := env.Clock
	if clock == nil {
		clock = tcpip.NewStdClock()
	}
	return newLineStamper(cfg.Client.Stamps, clock)
}
