package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"mesonemu/capture"
	"mesonemu/emu"
	"mesonemu/linux/stmmac"
	"mesonemu/netstack/linuxmodel"
	"mesonemu/sim"
)

// WireWriteQueue is how many frames each TAP writer of Wire holds while the
// host is slow to take them (both TAPs' writes run the receiving Linux's
// stack in the writer's thread). A frame that finds it full is dropped and
// counted; 8192 frames (100 ms at 1 Gbit/s) turn a host's hiccup into delay
// rather than loss, since loss is what the wire is there to show.
const WireWriteQueue = 8192

// ErrBadOptions marks a WireOptions.Sim the board cannot be built with (a
// usage error, as a SetupError is).
var ErrBadOptions = errors.New("bad board options")

// WireOptions are what `mesonemu wire` takes.
type WireOptions struct {
	// Sim is the board as the main job builds it (board, driver, TX delay,
	// phy-mode, kernel tree, seed...). Its Clock is set to emu.WallPaced.
	Sim sim.Options
	// BoardTAP is the TAP whose Linux plays the board's network stack;
	// BoardNetns the namespace it is in ("" the current one).
	BoardTAP, BoardNetns string
	// TAP is the PC-side TAP at the far end of the cable; Netns its namespace.
	TAP, Netns string
	// Time ends the run after this long (wall time, counted once the link is
	// up); 0 runs until ctx ends.
	Time time.Duration
	// PcapPath, if set, receives every frame on the RGMII wire (pcapng, FCS
	// kept, bad-FCS frames included).
	PcapPath string
	// Stderr gets one status line once frames flow; nil discards.
	Stderr io.Writer
	// Ready, if set, is called once both TAPs carry frames.
	Ready func()
	// noCPUModel leaves out the board CPU's per-packet cost (tests of the
	// port alone).
	noCPUModel bool
}

// Validate checks the options without opening anything but the namespaces'
// files: a missing board TAP name, a missing PC TAP name, the same TAP for
// both ends, a namespace that does not exist, bad board options. Every error
// but the last is a *SetupError; the last wraps ErrBadOptions.
func (o WireOptions) Validate() error {
	if o.BoardTAP == "" {
		return &SetupError{Kind: ErrNoBoardTAP, Problem: "wire needs the board-side TAP (whose Linux plays the board's stack)",
			Fix: "give --board-tap NAME, a TAP made with `ip tuntap add`"}
	}
	if o.TAP == "" {
		return &SetupError{Kind: ErrNoDevice, Problem: "wire needs the PC-side TAP (the far end of the cable)",
			Fix: "give --tap NAME, a TAP made with `ip tuntap add`"}
	}
	for _, n := range []string{o.BoardTAP, o.TAP} {
		if len(n) >= 16 {
			return &SetupError{Device: n, Problem: fmt.Sprintf("interface name %q is longer than 15 bytes", n), Fix: "choose a shorter name"}
		}
	}
	bns, err := netnsFile(o.BoardNetns)
	if err != nil {
		return err
	}
	pns, err := netnsFile(o.Netns)
	if err != nil {
		return err
	}
	if o.BoardTAP == o.TAP && os.SameFile(bns, pns) {
		where := "in this network namespace"
		if o.Netns != "" {
			where = "in network namespace " + o.Netns
		}
		return &SetupError{Device: o.TAP, Kind: ErrSameTAP,
			Problem: "it is both the board-side and the PC-side TAP " + where,
			Fix:     "give each end its own TAP (usually each in its own namespace: --board-netns and --netns)"}
	}
	if _, err := o.Sim.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	return nil
}

// netnsFile stats the namespace's file ("" the current thread's).
func netnsFile(netns string) (os.FileInfo, error) {
	path := "/proc/thread-self/ns/net"
	if netns != "" {
		path = netns
		if !filepath.IsAbs(path) {
			path = filepath.Join(NetnsDir, netns)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, netnsError(netns, path, err)
	}
	return fi, nil
}

// wire is one Wire run: the machine and what hangs off it.
type wire struct {
	o                   WireOptions
	s                   *sim.Sim
	m                   *emu.Machine
	boardDev, pcDev     io.ReadWriteCloser // until the port and bridge own them
	hostStats           bool               // the ports are TAPs whose kernel counters are read
	port                *BoardPort
	bridge              *Bridge
	capt                *capture.Capture
	boardHost0, pcHost0 HostTAPStats
	stop, stopped       chan struct{}
}

// Wire boots the board as the main job does and carries frames in real time
// between two TAPs: from the board-side TAP (its Linux plays the board's
// network stack) through the board's CPU, the stmmac ring driver, DMA, MAC,
// the RGMII TX wire, PHY, cable and the far-end NIC to the PC-side TAP, and
// back through the RX direction. It runs until o.Time has passed or ctx
// ends, and returns every stage's counters. Bad options come back as a
// *SetupError or ErrBadOptions before anything is opened or booted.
func Wire(ctx context.Context, o WireOptions) (*WireReport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	w := &wire{o: o}
	defer w.close()
	if err := w.open(); err != nil {
		return nil, err
	}
	return w.run(ctx)
}

// run boots the board between w's two ports and carries frames until the
// time is up or ctx ends.
func (w *wire) run(ctx context.Context) (*WireReport, error) {
	if err := w.build(); err != nil {
		return nil, err
	}
	desc, err := w.s.Describe()
	if err != nil {
		return nil, err
	}
	cc, ccErr := CongestionControl(w.o.BoardNetns)
	if ccErr != nil {
		fmt.Fprintf(w.o.Stderr, "mesonemu: the board's TCP is unknown: %v\n", ccErr)
	} else if note := congestionNote(cc, w.o.BoardNetns); note != "" {
		fmt.Fprintln(w.o.Stderr, note)
	}
	w.stop, w.stopped = make(chan struct{}), make(chan struct{})
	w.m.ResetPacing()
	go func() { _ = w.m.Run(w.stop, func() bool { return false }); close(w.stopped) }()
	start := time.Now()
	fmt.Fprintf(w.o.Stderr, "mesonemu: board %s (%s driver, tx-delay %d ns) between TAP %s (the board's Linux; eth0 promiscuous) and TAP %s (the PC), real time\n",
		w.s.Board.Name, desc.Driver, desc.TxDelayNs, w.o.BoardTAP, w.o.TAP)
	if w.o.Ready != nil {
		w.o.Ready()
	}
	var timeout <-chan time.Time
	if w.o.Time > 0 {
		t := time.NewTimer(w.o.Time)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
	case <-timeout:
	}
	r, err := w.finish(desc, time.Since(start))
	if r != nil {
		r.BoardCC, r.BoardCCLossBased = cc, lossBased[cc]
	}
	return r, err
}

// open opens both TAPs and takes the kernel's counters before anything moves.
func (w *wire) open() error {
	bd, err := OpenIn(w.o.BoardNetns, w.o.BoardTAP)
	if err != nil {
		return err
	}
	w.boardDev = bd
	pd, err := OpenIn(w.o.Netns, w.o.TAP)
	if err != nil {
		return err
	}
	w.pcDev, w.hostStats = pd, true
	if w.boardHost0, err = ReadHostTAPStats(w.o.BoardNetns, w.o.BoardTAP); err != nil {
		return err
	}
	w.pcHost0, err = ReadHostTAPStats(w.o.Netns, w.o.TAP)
	return err
}

// build boots the board on a wall-paced machine and attaches the capture,
// the PC-side bridge and the board port.
func (w *wire) build() error {
	so := w.o.Sim
	so.Clock = emu.WallPaced
	// The board's eth0 receives for the MAC address of the Linux behind the
	// board-side TAP, not its own: it is promiscuous, as a Linux bridge port.
	tune := so.Stmmac
	so.Stmmac = func(c *stmmac.Config) {
		if tune != nil {
			tune(c)
		}
		c.Promiscuous = true
	}
	s, err := sim.New(so)
	if err != nil {
		return err
	}
	w.s, w.m = s, s.Machine()
	if w.o.PcapPath != "" {
		w.capt, err = capture.Create(w.o.PcapPath, s.Board.Name+" rgmii",
			"mesonemu "+s.Board.Name+" wire, TAP "+w.o.BoardTAP+" to TAP "+w.o.TAP, time.Now().UnixNano()-int64(w.m.Now()))
		if err != nil {
			return err
		}
		s.Hardware().AddTap(w.capt.Tap)
	}
	w.bridge = NewBridge(w.m, s.Hardware().FarEnd(), w.pcDev, BridgeConfig{WriteQueue: WireWriteQueue})
	w.pcDev = nil
	var cpu *linuxmodel.CPU
	if !w.o.noCPUModel {
		cpu = linuxmodel.NewCPU(w.m, s.Board.CPU.PerPacketNs, s.Board.CPU.PerByteNs)
	}
	w.port = NewBoardPort(w.m, s.Guest.MAC, cpu, w.boardDev, WireWriteQueue)
	w.boardDev = nil
	return nil
}

// finish lets frames in flight arrive, stops the machine, closes the port,
// the bridge and the capture, and reads every counter.
func (w *wire) finish(desc sim.Description, wall time.Duration) (*WireReport, error) {
	time.Sleep(drainTime)
	w.stopMachine()
	var errs []error
	if err := w.port.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		errs = append(errs, fmt.Errorf("tap %s: close: %w", w.o.BoardTAP, err))
	}
	if err := w.bridge.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		errs = append(errs, fmt.Errorf("tap %s: close: %w", w.o.TAP, err))
	}
	r := &WireReport{Description: desc, Seed: w.o.Sim.Seed, BoardTAP: w.o.BoardTAP, BoardNetns: w.o.BoardNetns,
		TAP: w.o.TAP, Netns: w.o.Netns, WallSeconds: wall.Seconds(), ClockLagNs: int64(w.m.MaxLateness()), Pacing: w.m.Pacing()}
	if warn := lagWarning(r.Pacing, desc); warn != "" {
		fmt.Fprintln(w.o.Stderr, warn)
	}
	r.raw.port = w.port.Counters()
	r.raw.bridge = w.bridge.Counters()
	r.raw.path = w.s.Hardware().Path()
	r.raw.farEnd = w.s.Hardware().FarEnd().Stats()
	r.raw.driver = w.s.Guest.MAC.NetStats()
	if st, err := w.s.Guest.MAC.Stats(); err == nil {
		r.raw.ethtool = st
	} else {
		errs = append(errs, fmt.Errorf("board eth0 counters: %w", err))
	}
	if w.capt != nil {
		r.raw.pcap = [3]uint64{w.capt.Frames, w.capt.BadFCS, w.capt.SFDErrors}
		r.raw.hasPcap = true
		if err := w.capt.Close(); err != nil {
			errs = append(errs, fmt.Errorf("pcap %s: %w", w.o.PcapPath, err))
		}
		w.capt = nil
	}
	if w.hostStats {
		bh, berr := ReadHostTAPStats(w.o.BoardNetns, w.o.BoardTAP)
		ph, perr := ReadHostTAPStats(w.o.Netns, w.o.TAP)
		if berr == nil && perr == nil {
			r.raw.boardHost, r.raw.pcHost, r.raw.hasHost = bh.Sub(w.boardHost0), ph.Sub(w.pcHost0), true
		}
		errs = append(errs, berr, perr)
	}
	w.port, w.bridge = nil, nil
	r.Counters = r.raw.list(w.o.BoardTAP, w.o.TAP)
	return r, errors.Join(errs...)
}

func (w *wire) stopMachine() {
	if w.stop != nil {
		close(w.stop)
		<-w.stopped
		w.stop = nil
	}
}

// close tears down what finish has not (everything after an error).
func (w *wire) close() {
	w.stopMachine()
	if w.port != nil {
		w.port.Close()
	}
	if w.bridge != nil {
		w.bridge.Close()
	}
	if w.boardDev != nil {
		w.boardDev.Close()
	}
	if w.pcDev != nil {
		w.pcDev.Close()
	}
	if w.capt != nil {
		w.capt.Close()
	}
	if w.m != nil {
		w.m.Stop()
	}
}
