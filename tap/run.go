package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/capture"
	"mesonemu/emu"
	"mesonemu/iperf3"
	"mesonemu/netstack"
	"mesonemu/netstack/linuxmodel"
	"mesonemu/sim"
)

// drainTime lets frames in flight reach the host before the bridge closes.
const drainTime = 20 * time.Millisecond

// lingerLimit bounds how long the board's stack keeps retransmitting after its
// iperf3 has ended, as a kernel does for a program's closed sockets: 3 s
// covers four retransmissions at gVisor's 200 ms minimum RTO, backing off.
const lingerLimit = 3 * time.Second

// DefaultBoardIP is the board's address on the TAP link (RFC 2544's
// benchmarking range); the host side is expected at 198.18.1.1/24.
var DefaultBoardIP = netip.MustParsePrefix("198.18.1.2/24")

// DefaultBoardIP6 is the board's IPv6 address on the TAP link when the
// iperf3 line uses IPv6 (RFC 5180's range, the subnet after the in-process
// one's, as 198.18.1.0/24 follows 198.18.0.0/24); the host side is expected
// at 2001:2:0:1::1/64.
var DefaultBoardIP6 = netip.MustParsePrefix("2001:2:0:1::2/64")

// Options for Run.
type Options struct {
	Sim sim.Options
	// TAP is the interface name of a TAP made with `ip tuntap add`; one that
	// does not exist is refused (ErrNoDevice).
	TAP string
	// Netns, when set, opens the TAP inside this network namespace (a name from
	// `ip netns add`, or a path); the rest of the process stays where it is.
	Netns    string
	BoardIP  netip.Prefix // default DefaultBoardIP
	CC       string       // the board's congestion control: "cubic" (default) or "reno"
	PcapPath string       // if set, every frame on the wire goes there (pcapng, FCS kept)
	// BoardIP6 gives the board's stack IPv6 as well; zero: DefaultBoardIP6
	// if the iperf3 line uses IPv6 (-6 or an IPv6 address), else none.
	BoardIP6 netip.Prefix
	// Iperf3Args is an iperf3 command line for the board (-c HOST ..., -s ...),
	// without the program name. Empty: the board only answers ARP and ping
	// (gVisor's ICMP echo) until ctx ends.
	Iperf3Args []string
	Stdout     io.Writer // iperf3's output; nil discards
	Stderr     io.Writer // iperf3's errors and one status line; nil discards
	// RACK keeps gVisor's RACK-TLP loss detection on the board's stack. It is
	// off by default with a TAP: its tail loss probe has no floor (Linux's
	// has TCP_TIMEOUT_MIN), so in real time on a busy host it retransmits
	// segments whose ACK only waited in the emulator's queues
	// (docs/decisions.md).
	RACK bool
	// noCPUModel leaves out the board's CPU cost model (benchmarks of the
	// emulation's own cost).
	noCPUModel bool
	// Ready, if set, is called once the board's stack is on the link (and, for
	// an iperf3 server, listening), with the TAP's name: the moment to
	// configure the host side or start a client.
	Ready func(tapName string)
}

// Run boots the board, bridges its far end to the TAP, runs the machine in
// real time and the board's iperf3 until it ends or ctx is cancelled. It
// returns iperf3's exit status (0 without iperf3), the final counters, and an
// error for anything that kept the run from happening. A *SetupError (missing
// device or privilege) comes with exit status ExitSetup; other failures with 1.
func Run(ctx context.Context, o Options) (int, *Counters, error) {
	o, err := o.withDefaults()
	if err != nil {
		return 1, nil, err
	}
	if len(o.Iperf3Args) > 0 {
		if _, err := iperf3.ParseArgs(o.Iperf3Args); err != nil {
			// Main prints the parameter error exactly as iperf3 does.
			return iperf3.Main(ctx, o.Iperf3Args, iperf3.Env{Stdout: o.Stdout, Stderr: o.Stderr}), nil, nil
		}
	}
	if _, err := o.Sim.Validate(); err != nil {
		return 1, nil, err
	}
	dev, err := OpenIn(o.Netns, o.TAP)
	if err != nil {
		if errors.As(err, new(*SetupError)) {
			return ExitSetup, nil, err
		}
		return 1, nil, err
	}
	r, err := start(o, dev)
	if err != nil {
		return 1, nil, err
	}
	defer r.close()
	driver := o.Sim.Driver
	if driver == "" {
		driver = "fixed"
	}
	addrs := o.BoardIP.String()
	if o.BoardIP6.IsValid() {
		addrs += " and " + o.BoardIP6.String()
	}
	fmt.Fprintf(o.Stderr, "mesonemu: board %s (%s driver) at %s, MAC %s, on TAP %s, real time\n",
		r.s.Board.Name, driver, addrs, net.HardwareAddr(r.s.Board.MAC[:]), r.tapName)
	code := r.serve(ctx)
	if ctx.Err() == nil { // not after the user asked to stop
		r.linger(ctx)
	}
	return r.finish(code)
}

// withDefaults fills in the defaults and checks the board's address.
func (o Options) withDefaults() (Options, error) {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if !o.BoardIP.IsValid() {
		o.BoardIP = DefaultBoardIP
	}
	if !o.BoardIP.Addr().Is4() {
		return o, fmt.Errorf("board address %v: want IPv4", o.BoardIP)
	}
	if cfg, err := iperf3.ParseArgs(o.Iperf3Args); err == nil && len(o.Iperf3Args) > 0 && cfg.UsesIPv6() && !o.BoardIP6.IsValid() {
		o.BoardIP6 = DefaultBoardIP6
	}
	if o.BoardIP6.IsValid() && (!o.BoardIP6.Addr().Is6() || o.BoardIP6.Addr().Is4In6()) {
		return o, fmt.Errorf("board IPv6 address %v: want IPv6", o.BoardIP6)
	}
	if o.CC == "" {
		o.CC = "cubic"
	}
	return o, nil
}

// session is one Run's machine and what hangs off it; close tears down
// whatever is still up, in order.
type session struct {
	o       Options
	tapName string
	dev     *Device // until the bridge owns it
	s       *sim.Sim
	m       *emu.Machine
	capt    *capture.Capture
	bridge  *Bridge
	board   *netstack.Host
	stop    chan struct{} // closing it ends the engine's loop
	stopped chan struct{} // closed when the loop has returned
}

// start boots the board on a wall-paced machine with the capture, the bridge
// to dev and the board's stack, and starts the engine's loop. On error it has
// closed everything, dev included.
func start(o Options, dev *Device) (*session, error) {
	r := &session{o: o, tapName: dev.Name(), dev: dev}
	if err := r.build(); err != nil {
		r.close()
		return nil, err
	}
	// The engine's loop, paced to the wall clock; it sleeps while nothing is
	// due. Everything that touches the board from here on is an engine task.
	r.stop, r.stopped = make(chan struct{}), make(chan struct{})
	go func() { _ = r.m.Run(r.stop, func() bool { return false }); close(r.stopped) }()
	return r, nil
}

func (r *session) build() error {
	// The host keeps real time, so the machine does from power-on: the
	// board's boot and autonegotiation take their real 2 s.
	r.o.Sim.Clock = emu.WallPaced
	s, err := sim.New(r.o.Sim)
	if err != nil {
		return err
	}
	r.s, r.m = s, s.Machine()
	if r.o.PcapPath != "" {
		r.capt, err = capture.Create(r.o.PcapPath, s.Board.Name+" rgmii", "mesonemu "+s.Board.Name+" wire, TAP "+r.tapName,
			time.Now().UnixNano()-int64(r.m.Now()))
		if err != nil {
			return err
		}
		s.Hardware().AddTap(r.capt.Tap)
	}
	r.bridge = NewBridge(r.m, s.Hardware().FarEnd(), r.dev, BridgeConfig{})
	r.dev = nil // the bridge owns it now
	// The board's processor, as in the in-process runs: its per-packet cost is
	// what limits the fixed driver to the commit's 778 Mbit/s.
	var cpu *linuxmodel.CPU
	if !r.o.noCPUModel {
		cpu = linuxmodel.NewCPU(r.m, s.Board.CPU.PerPacketNs, s.Board.CPU.PerByteNs)
	}
	boardTCP := netstack.LinuxTCP()
	boardTCP.RACK = r.o.RACK
	r.board, err = netstack.NewHost(netstack.HostConfig{Name: "board", Machine: r.m, Addr: r.o.BoardIP, Addr6: r.o.BoardIP6, MAC: tcpip.LinkAddress(s.Board.MAC[:]),
		CC: r.o.CC, NIC: netstack.StmmacNIC{Driver: s.Guest.MAC}, Seeded: int64(r.o.Sim.Seed)*2 + 1, CPU: cpu, TCP: &boardTCP,
		SmallQueues: linuxmodel.TSQOn})
	return err
}

// serve runs the board's iperf3 (or, without one, waits for ctx) and returns
// its exit status. Ready is called once the board can be talked to.
func (r *session) serve(ctx context.Context) int {
	ready := func() {
		// The board's boot and autonegotiation are behind it: count the
		// engine's lateness from here.
		r.m.ResetPacing()
		if r.o.Ready != nil {
			r.o.Ready(r.tapName)
		}
	}
	if len(r.o.Iperf3Args) == 0 {
		ready()
		<-ctx.Done()
		return 0
	}
	env := iperf3.Env{
		Dial: r.board.Dial,
		Listen: func(ctx context.Context, port int) (net.Listener, error) {
			if port < 1 || port > 65535 {
				return nil, fmt.Errorf("port %d: want 1..65535", port)
			}
			ln, err := r.board.ListenNet(iperf3.Network(ctx), uint16(port))
			if err == nil {
				ready()
			}
			return ln, err
		},
		Clock: netstack.NewClock(r.m), TCPInfo: netstack.TCPInfo, Congestion: netstack.Congestion(r.o.CC),
		Stdout: r.o.Stdout, Stderr: r.o.Stderr, Seed: r.o.Sim.Seed + 7, Sched: netstack.Sched{M: r.m},
	}
	if cfg, _ := iperf3.ParseArgs(r.o.Iperf3Args); cfg.Mode == iperf3.ModeClient {
		ready()
	}
	return awaitTask(ctx, r.m, "board iperf3", func() int { return iperf3.Main(ctx, r.o.Iperf3Args, env) })
}

// linger: iperf3 has ended, but its last message (IPERF_DONE, a FIN) may have
// been lost on the wire while the host's iperf3 waits for it. The board's
// stack keeps retransmitting until the host has acknowledged everything, as
// Linux does after a program exits.
func (r *session) linger(ctx context.Context) {
	unsettled := awaitTask(ctx, r.m, "linger", func() int { return r.board.Linger(ctx, lingerLimit) })
	if unsettled != 0 {
		fmt.Fprintf(r.o.Stderr, "mesonemu: %d connection(s) still had unacknowledged data or FIN %v after iperf3 ended; "+
			"the board stops with them unsettled\n", unsettled, lingerLimit)
	}
}

// finish lets the stack's last frames (the ACK of the host's FIN) cross DMA,
// wire and bridge (1000 frame times at 1 Gbit/s), then stops the loop and
// closes the stack, the bridge (closing the TAP) and the capture, when nothing
// can add to them, and returns the final counters.
func (r *session) finish(code int) (int, *Counters, error) {
	time.Sleep(drainTime)
	r.stopMachine()
	r.board.Close()
	r.board = nil
	closeErr := r.bridge.Close()
	c := r.bridge.Counters()
	r.bridge = nil
	c.ClockLag = r.m.MaxLateness()
	c.Pacing = r.m.Pacing()
	if desc, err := r.s.Describe(); err == nil {
		if warn := lagWarning(c.Pacing, desc); warn != "" {
			fmt.Fprintln(r.o.Stderr, warn)
		}
	}
	c.Wire = wireCounters(r.s)
	var runErr error
	if closeErr != nil && !errors.Is(closeErr, os.ErrClosed) {
		runErr = fmt.Errorf("tap %s: close: %w", r.tapName, closeErr)
	}
	if r.capt != nil {
		c.Wire.PcapFrames, c.Wire.PcapBadFCS, c.Wire.PcapSFDErrors = r.capt.Frames, r.capt.BadFCS, r.capt.SFDErrors
		err := r.capt.Close()
		r.capt = nil
		if err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("pcap %s: %w", r.o.PcapPath, err))
			if code == 0 {
				code = 1
			}
		}
	}
	return code, &c, runErr
}

// wireCounters collects what the wire and both NICs saw go wrong.
func wireCounters(s *sim.Sim) WireCounters {
	path := s.Hardware().Path()
	fe := s.Hardware().FarEnd().Stats()
	mac := s.Hardware().MACCounters()
	return WireCounters{
		TxDamaged: path.TxWireDamaged, FarEndCRCErrors: fe.RxCRCErrors, FarEndAlignError: fe.RxAlignErrors,
		RxDamaged: path.RxWireDamaged, BoardCRCErrors: mac.RxCRCErrors, BoardSFDLost: path.RxSFDLost,
	}
}

func (r *session) stopMachine() {
	if r.stop != nil {
		close(r.stop)
		<-r.stopped
		r.stop = nil
	}
}

// close tears down what finish has not (all of it after an error or panic).
func (r *session) close() {
	r.stopMachine()
	if r.board != nil {
		r.board.Close()
	}
	if r.bridge != nil {
		r.bridge.Close()
	}
	if r.dev != nil {
		r.dev.Close()
	}
	if r.capt != nil {
		r.capt.Close()
	}
	if r.m != nil {
		r.m.Stop()
	}
}

// awaitTask runs fn as a task on the running engine and waits for its result
// (or ctx). When ctx ends first the task may still be running, so its result
// goes to a channel nobody reads rather than into a variable the caller reads
// (a data race before).
func awaitTask[T any](ctx context.Context, m *emu.Machine, name string, fn func() T) T {
	res := make(chan T, 1)
	m.Go(name, func() { res <- fn() })
	select {
	case v := <-res:
		return v
	case <-ctx.Done():
		var zero T
		return zero
	}
}
