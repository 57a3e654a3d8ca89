// Command lossyrelay is a lossy link between two namespaces, for Linux's own TCP.
// Outside the emulator: a measuring instrument beside it, on no side of the bus.
//
// It is a lossy Ethernet link between two network namespaces
// it creates: a TAP in each, and this process in between, losing frames from A
// to B with a given probability and delaying each direction by a given time.
// It is the measuring instrument for Linux's own TCP under loss (README.md,
// docs/linux-k-grid.sh, docs/tcp.md).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
)

// config is the whole command line.
type config struct {
	A, B       End
	AtoB, BtoA Direction
}

func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("lossyrelay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var addrA, addrB string
	fs.StringVar(&c.A.Netns, "a", "lossyA", "namespace of end A (the sender; created, removed at exit)")
	fs.StringVar(&c.B.Netns, "b", "lossyB", "namespace of end B (the receiver; created, removed at exit)")
	fs.StringVar(&c.A.Device, "dev-a", "lra", "TAP device in A")
	fs.StringVar(&c.B.Device, "dev-b", "lrb", "TAP device in B")
	fs.StringVar(&addrA, "addr-a", "198.18.9.2/24", "address of A's TAP")
	fs.StringVar(&addrB, "addr-b", "198.18.9.1/24", "address of B's TAP")
	fs.Float64Var(&c.AtoB.Loss, "loss", 0.00388, "loss probability of a full 1518-byte frame from A to B, scaled by length; nothing is lost from B to A")
	fs.DurationVar(&c.AtoB.Delay, "delay", 0, "one-way delay from A to B")
	fs.DurationVar(&c.BtoA.Delay, "back", 0, "one-way delay from B to A")
	rate := fs.Float64("rate", 1e9, "line rate in bit/s, both directions (0: unpaced)")
	seed := fs.Uint64("seed", 1, "seed of the loss draws")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if c.A.Addr, err = netip.ParsePrefix(addrA); err != nil {
		return c, fmt.Errorf("-addr-a: %w", err)
	}
	if c.B.Addr, err = netip.ParsePrefix(addrB); err != nil {
		return c, fmt.Errorf("-addr-b: %w", err)
	}
	c.AtoB.Rate, c.BtoA.Rate = *rate, *rate
	c.AtoB.Seed, c.BtoA.Seed = *seed, *seed+1
	return c, c.validate()
}

func (c config) validate() error {
	if c.A.Netns == c.B.Netns || c.A.Addr.Addr() == c.B.Addr.Addr() {
		return errors.New("ends A and B need different namespaces and addresses")
	}
	return errors.Join(c.A.validate(), c.B.validate(), c.AtoB.Validate(), c.BtoA.Validate())
}

// Link is a running relay: both namespaces exist, both pumps run.
type Link struct {
	cfg        config
	devA, devB io.ReadWriteCloser
	ab, ba     *pump
	done       chan error
}

// Start creates both ends and starts carrying frames. onFrame (may be nil)
// sees A-to-B's counters after every frame, for tests that wait on events.
func Start(cfg config, onFrame func(Counters)) (*Link, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	devA, err := cfg.A.setUp()
	if err != nil {
		return nil, err
	}
	devB, err := cfg.B.setUp()
	if err != nil {
		return nil, errors.Join(err, devA.Close(), cfg.A.tearDown())
	}
	l := &Link{cfg: cfg, devA: devA, devB: devB, ab: newPump(cfg.AtoB, wallClock), ba: newPump(cfg.BtoA, wallClock), done: make(chan error, 2)}
	l.ab.onFrame = onFrame
	go func() { l.done <- l.ab.run(devA, devB) }()
	go func() { l.done <- l.ba.run(devB, devA) }()
	return l, nil
}

// Stop closes both TAPs, waits for the pumps and removes both namespaces.
func (l *Link) Stop() error {
	err := errors.Join(l.devA.Close(), l.devB.Close())
	err = errors.Join(err, <-l.done, <-l.done)
	return errors.Join(err, l.cfg.A.tearDown(), l.cfg.B.tearDown())
}

func main() {
	cfg, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lossyrelay:", err)
		os.Exit(2)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	l, err := Start(cfg, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lossyrelay:", err)
		os.Exit(1)
	}
	fmt.Printf("ready: %s %v in %s <-> %s %v in %s\n", cfg.A.Device, cfg.A.Addr, cfg.A.Netns, cfg.B.Device, cfg.B.Addr, cfg.B.Netns)
	<-sig
	ab, ba := l.ab.Counters(), l.ba.Counters()
	err = l.Stop()
	fmt.Printf("a->b passed %d dropped %d oversize %d\n", ab.Passed, ab.Dropped, ab.Oversize)
	fmt.Printf("b->a passed %d dropped %d oversize %d\n", ba.Passed, ba.Dropped, ba.Oversize)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lossyrelay:", err)
		os.Exit(1)
	}
}

// isEnd reports whether err only says the device was closed.
func isEnd(err error) bool {
	return err == nil || errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed)
}
