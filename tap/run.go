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
	"mesonemu/netstack"
	"mesonemu/netstack/iperf3"
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

// Options for Run.
type Options struct {
	Sim sim.Options
	// TAP is the interface name: attached if it exists (`ip tuntap add`),
	// created otherwise ("" lets the kernel choose). A created one vanishes
	// when Run returns.
	TAP string
	// Netns, when set, opens the TAP inside this network namespace (a name from
	// `ip netns add`, or a path); the rest of the process stays where it is.
	Netns    string
	BoardIP  netip.Prefix // default DefaultBoardIP
	CC       string       // the board's congestion control: "cubic" (default) or "reno"
	PcapPath string       // if set, every frame on the wire goes there (pcapng, FCS kept)
	// Iperf3Args is an iperf3 command line for the board (-c HOST ..., -s ...),
	// without the program name. Empty: the board only answers ARP and ping
	// (gVisor's ICMP echo) until ctx ends.
	Iperf3Args []string
	Stdout     io.Writer // iperf3's output; nil discards
	Stderr     io.Writer // iperf3's errors and one status line; nil discards
	// RACK keeps gVisor's RACK-TLP loss detection on the board's stack. It is
	// off by default in TAP mode: gVisor arms its tail loss probe at 2·SRTT
	// with no floor (Linux adds TCP_TIMEOUT_MIN, 2 jiffies), so in real time
	// on a busy host an ACK that waits a millisecond in the emulator's queues
	// sets off a spurious retransmission. Without it the board recovers by
	// SACK and duplicate ACKs (RFC 6675) and the RTO, and every retransmission
	// answers a lost frame.
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
	stdout, stderr := o.Stdout, o.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	if !o.BoardIP.IsValid() {
		o.BoardIP = DefaultBoardIP
	}
	if !o.BoardIP.Addr().Is4() {
		return 1, nil, fmt.Errorf("board address %v: want IPv4", o.BoardIP)
	}
	if o.CC == "" {
		o.CC = "cubic"
	}
	if len(o.Iperf3Args) > 0 {
		if _, err := iperf3.ParseArgs(o.Iperf3Args); err != nil {
			// Main prints the parameter error exactly as iperf3 does.
			return iperf3.Main(ctx, o.Iperf3Args, iperf3.Env{Stdout: stdout, Stderr: stderr}), nil, nil
		}
	}
	if _, err := o.Sim.Validate(); err != nil {
		return 1, nil, err
	}

	dev, err := OpenIn(o.Netns, o.TAP)
	if err != nil {
		var se *SetupError
		if errors.As(err, &se) {
			return ExitSetup, nil, err
		}
		return 1, nil, err
	}
	devOpen := true
	defer func() {
		if devOpen {
			dev.Close()
		}
	}()

	// The host keeps real time, so the machine does from power-on: the
	// board's boot and autonegotiation take their real 2 s.
	o.Sim.Clock = emu.WallPaced
	s, err := sim.New(o.Sim)
	if err != nil {
		return 1, nil, err
	}
	m := s.Machine()
	defer m.Stop()

	var capt *capture.Capture
	if o.PcapPath != "" {
		capt, err = capture.Create(o.PcapPath, s.Board.Name+" rgmii", "mesonemu "+s.Board.Name+" wire, TAP "+dev.Name(),
			time.Now().UnixNano()-int64(m.Now()))
		if err != nil {
			return 1, nil, err
		}
		s.Hardware().AddTap(capt.Tap)
	}

	bridge := NewBridge(m, s.Hardware().FarEnd(), dev, BridgeConfig{})
	devOpen = false // the bridge owns it now
	bridgeOpen := true
	defer func() {
		if bridgeOpen {
			bridge.Close()
		}
	}()

	// The board's processor, as in the in-process runs: its per-packet cost is
	// what limits the fixed driver to the commit's 778 Mbit/s.
	var cpu *netstack.CPU
	if !o.noCPUModel {
		cpu = netstack.NewCPU(m, s.Board.CPU.PerPacketNs, s.Board.CPU.PerByteNs)
	}
	board, err := netstack.NewHost(netstack.HostConfig{Name: "board", Machine: m, Addr: o.BoardIP, MAC: tcpip.LinkAddress(s.Board.MAC[:]),
		CC: o.CC, NIC: netstack.StmmacNIC{Driver: s.Guest.MAC}, Seeded: int64(o.Sim.Seed)*2 + 1, CPU: cpu, RACK: o.RACK})
	if err != nil {
		return 1, nil, err
	}
	boardOpen := true
	defer func() {
		if boardOpen {
			board.Close()
		}
	}()

	// The engine's loop, paced to the wall clock; it sleeps while nothing is
	// due. Everything that touches the board from here on is an engine task.
	stop := make(chan struct{})
	machineDone := make(chan struct{})
	go func() { _ = m.Run(stop, func() bool { return false }); close(machineDone) }()
	machineRunning := true
	stopMachine := func() {
		if machineRunning {
			close(stop)
			<-machineDone
			machineRunning = false
		}
	}
	defer stopMachine()

	driver := o.Sim.Driver
	if driver == "" {
		driver = "fixed"
	}
	fmt.Fprintf(stderr, "mesonemu: board %s (%s driver) at %v, MAC %s, on TAP %s, real time\n",
		s.Board.Name, driver, o.BoardIP, net.HardwareAddr(s.Board.MAC[:]), dev.Name())

	code := 0
	ready := func() {
		if o.Ready != nil {
			o.Ready(dev.Name())
		}
	}
	if len(o.Iperf3Args) == 0 {
		ready()
		<-ctx.Done()
	} else {
		env := iperf3.Env{
			Dial: board.Dial,
			Listen: func(ctx context.Context, port int) (net.Listener, error) {
				if port < 1 || port > 65535 {
					return nil, fmt.Errorf("port %d: want 1..65535", port)
				}
				ln, err := board.Listen(uint16(port))
				if err == nil {
					ready()
				}
				return ln, err
			},
			Clock: netstack.NewClock(m), TCPInfo: netstack.TCPInfo, Congestion: netstack.Congestion(o.CC),
			Stdout: stdout, Stderr: stderr, Seed: o.Sim.Seed + 7, Sched: netstack.Sched{M: m},
		}
		if cfg, _ := iperf3.ParseArgs(o.Iperf3Args); cfg.Mode == iperf3.ModeClient {
			ready()
		}
		awaitTask(ctx, m, "board iperf3", func() { code = iperf3.Main(ctx, o.Iperf3Args, env) })
	}

	// iperf3 has ended; its last message (IPERF_DONE, a FIN) may have been
	// lost on the wire, and the host's iperf3 waits for it. The board's stack
	// keeps retransmitting until the host has acknowledged everything, as
	// Linux does after a program exits. Not after ctx ended (the user asked to
	// stop).
	if ctx.Err() == nil {
		unsettled := 0
		awaitTask(ctx, m, "linger", func() { unsettled = board.Linger(ctx, lingerLimit) })
		if unsettled != 0 {
			fmt.Fprintf(stderr, "mesonemu: %d connection(s) still had unacknowledged data or FIN %v after iperf3 ended; "+
				"the board stops with them unsettled\n", unsettled, lingerLimit)
		}
	}
	// The stack's last frames (the ACK of the host's FIN) may still be
	// crossing DMA, wire and bridge; give them 1000 frame times at 1 Gbit/s.
	// Then the loop stops, and the stack, the bridge (closing the TAP) and
	// the capture follow, when nothing can add to them.
	time.Sleep(drainTime)
	stopMachine()
	board.Close()
	boardOpen = false
	closeErr := bridge.Close()
	bridgeOpen = false
	c := bridge.Counters()
	c.ClockLag = m.MaxLateness()
	hw := s.Hardware()
	path, fe, mac := hw.Path(), hw.FarEnd().Stats(), hw.MACCounters()
	c.Wire = WireCounters{
		TxDamaged: path.TxWireDamaged, FarEndCRCErrors: fe.RxCRCErrors, FarEndAlignError: fe.RxAlignErrors,
		RxDamaged: path.RxWireDamaged, BoardCRCErrors: mac.RxCRCErrors, BoardSFDLost: path.RxSFDLost,
	}
	var runErr error
	if closeErr != nil && !errors.Is(closeErr, os.ErrClosed) {
		runErr = fmt.Errorf("tap %s: close: %w", dev.Name(), closeErr)
	}
	if capt != nil {
		c.Wire.PcapFrames, c.Wire.PcapBadFCS, c.Wire.PcapSFDErrors = capt.Frames, capt.BadFCS, capt.SFDErrors
		err := capt.Close()
		if err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("pcap %s: %w", o.PcapPath, err))
			if code == 0 {
				code = 1
			}
		}
	}
	return code, &c, runErr
}

// awaitTask runs fn as a task on the running engine and waits for it (or ctx).
func awaitTask(ctx context.Context, m *emu.Machine, name string, fn func()) {
	done := make(chan struct{})
	m.Go(name, func() {
		defer close(done)
		fn()
	})
	select {
	case <-done:
	case <-ctx.Done():
	}
}
