package perfrun

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/iperf3"
	"mesonemu/linux/cpufreq"
	"mesonemu/netstack"
	"mesonemu/netstack/linuxmodel"
	"mesonemu/netstack/tcpseg"
	"mesonemu/platform"
	"mesonemu/sim"
)

// Bench is a booted board with TCP/IP stacks on both ends of the cable, on the
// machine's engine. Programs run on it as tasks (Go) while RunWhile drives it.
type Bench struct {
	Sim       *sim.Sim
	Board, PC *netstack.Host
	Clock     *netstack.Clock // for the programs: virtual time
	Sched     netstack.Sched  // their activities are engine tasks
	Report    *Report

	pcNIC *netstack.PCNIC
	cpu   *linuxmodel.CPU // the board's, under its governor if any
	wake  *linuxmodel.Wake
	// srttSum and srttN add up the board's link-layer srtt, sampled every
	// srttEvery while its iperf3 test runs (machine lock).
	srttSum time.Duration
	srttN   int
	// The board's data frames (machine lock): sent, changed by the wire, and
	// of those the ones the PC's MAC dropped, for a bad FCS or a lost start.
	dataSent, dataChanged, dataBadFCS, dataAlign uint64
	// lostSegs holds the board's data segments the PC's MAC dropped and that
	// have not yet crossed intact (machine lock).
	lostSegs map[segKey]bool
}

// segKey names a TCP segment: the board's source port and sequence number.
type segKey struct {
	port uint16
	seq  uint32
}

// Start boots the board (virtual time up to link) and builds both hosts on the
// engine. Close stops everything.
func Start(ctx context.Context, o Options) (*Bench, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	abl, err := LookupAblation(o.Ablate)
	if err != nil {
		return nil, err
	}
	if abl.sim != nil {
		abl.sim(&o.Sim)
	}
	s, err := sim.New(o.Sim)
	if err != nil {
		return nil, err
	}
	desc, err := s.Describe()
	if err != nil {
		return nil, err
	}
	b := &Bench{Sim: s, Report: &Report{Description: desc, Seed: o.Sim.Seed, Ablation: abl.Name, LinkUpSeconds: s.LinkTime.Seconds()}}
	b.lostSegs = map[segKey]bool{}
	hw := s.Hardware()
	hw.AddTap(b.countData)
	for _, t := range o.Taps {
		hw.AddTap(t)
	}
	m := s.Machine()
	b.Clock = netstack.NewClock(m)
	b.Sched = netstack.Sched{M: m}
	b.pcNIC = netstack.NewPCNIC(m, hw.FarEnd())
	b.cpu = linuxmodel.NewCPU(m, s.Board.CPU.PerPacketNs, s.Board.CPU.PerByteNs)
	if err := setGovernor(b.cpu, o.CPUFreq, s.Board.CPU.OPPsKHz); err != nil {
		b.Close()
		return nil, err
	}
	b.Report.CPUFreq = o.CPUFreq
	b.Report.Calibration = o.Calibration
	boardCfg := netstack.HostConfig{Name: "board", Machine: m, Addr: o.BoardIP, MAC: tcpip.LinkAddress(s.Board.MAC[:]),
		CC: o.CC, NIC: netstack.StmmacNIC{Driver: s.Guest.MAC}, Seeded: int64(o.Sim.Seed)*2 + 1,
		CPU: b.cpu, SmallQueues: linuxmodel.TSQOn}
	pcCfg := netstack.HostConfig{Name: "pc", Machine: m, Addr: o.PCIP, MAC: tcpip.LinkAddress(platform.FarEndMAC[:]),
		CC: o.CC, NIC: b.pcNIC, Seeded: int64(o.Sim.Seed)*2 + 2, DelayedAcks: true}
	if o.IPv6 {
		boardCfg.Addr6, pcCfg.Addr6 = DefaultBoardIP6, DefaultPCIP6
	}
	if abl.board != nil {
		abl.board(&boardCfg)
	}
	if abl.pc != nil {
		abl.pc(&pcCfg)
	}
	b.wakeBoard(&boardCfg, o.Calibration)
	if b.Board, err = netstack.NewHost(boardCfg); err != nil {
		b.Close()
		return nil, err
	}
	if b.PC, err = netstack.NewHost(pcCfg); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// countData is the tap that counts the board's TCP data frames and the ones
// the wire spoiled (the report's data loss).
func (b *Bench) countData(fr *platform.Frame) {
	if fr.Dir != platform.TX || len(fr.After) < dataFrameMin {
		return
	}
	b.dataSent++
	// The header as the MAC sent it, before the wire could flip a bit in it.
	seg, ok := tcpseg.Parse(fr.Before)
	key := segKey{port: seg.Key.LPort, seq: seg.Seq}
	if fr.Wire.Changed() {
		b.dataChanged++
		// The PC's MAC drops what it drops (farend: framing first, then
		// the FCS); a change only in the preamble reaches its stack.
		switch {
		case fr.Wire.AlignmentError():
			b.dataAlign++
		case !ether.CheckFCS(fr.After):
			b.dataBadFCS++
		default:
			return
		}
		if ok {
			b.lostSegs[key] = true
		}
		return
	}
	if ok && b.lostSegs[key] {
		delete(b.lostSegs, key) // a lost segment got through again
	}
}

func (b *Bench) tally() {
	m := b.Sim.Machine()
	m.Lock()
	b.Report.DataFramesSent, b.Report.DataFramesLost = b.dataSent, b.dataBadFCS
	b.Report.DataFramesAlignLost, b.Report.DataFramesChanged = b.dataAlign, b.dataChanged
	b.Report.LostNeverResent = uint64(len(b.lostSegs))
	b.Report.CPUFreqTransitions, b.Report.CPUFreqEndKHz = b.cpu.Transitions(), b.cpu.CurKHz()
	m.Unlock()
	b.Report.BoardWakes = b.wake.Wakes()
	srttMean := time.Duration(0)
	if b.srttN > 0 {
		srttMean = b.srttSum / time.Duration(b.srttN)
	}
	for _, h := range []*netstack.Host{b.Board, b.PC} {
		if st := h.EP.SmallQueueStats(); st.SRTT > 0 {
			b.Report.PathSRTTEndMicros = float64(st.SRTT) / float64(time.Microsecond)
			b.Report.PathSRTTMicros = b.Report.PathSRTTEndMicros
			b.Report.TSQThrottled, b.Report.HeldRetransmits = st.Waits, st.HeldRetransmits
			if srttMean > 0 {
				b.Report.PathSRTTMicros = float64(srttMean) / float64(time.Microsecond)
			}
		}
	}
}

// srttEvery is how often the board's link-layer srtt is sampled for the
// report's mean: often enough to see the stretches a flow spends in each
// regime (tens of ms), rare enough to cost nothing.
const srttEvery = 10 * emu.Millisecond

// sampleSRTT samples the board's link-layer srtt every srttEvery while on()
// holds. The samples only read the stacks' state, so the run is the same
// with or without them.
func (b *Bench) sampleSRTT(on func() bool) {
	m := b.Sim.Machine()
	var ev *emu.Event
	ev = m.NewGuestEvent(func() {
		if !on() {
			return
		}
		if st := b.Board.EP.SmallQueueStats(); st.SRTT > 0 {
			m.Lock()
			b.srttSum += st.SRTT
			b.srttN++
			m.Unlock()
		}
		m.Lock()
		m.Schedule(ev, m.Now()+srttEvery)
		m.Unlock()
	})
	m.Lock()
	m.Schedule(ev, m.Now()+srttEvery)
	m.Unlock()
}

// Go starts a program on the engine.
func (b *Bench) Go(name string, fn func()) *emu.Task { return b.Sim.Machine().Go(name, fn) }

// RunWhile drives the engine while more() holds (checked after each event) or
// until ctx ends; ctx's end is its error. After ctx ends the engine runs on a
// little (at most drainEvents events) so that the programs see the
// cancellation and end as the real ones do on a signal: iperf3 reports what
// it measured ("interrupt - the client has terminated") instead of being
// frozen mid-test with nothing written.
func (b *Bench) RunWhile(ctx context.Context, more func() bool) error {
	m := b.Sim.Machine()
	err := m.Run(ctx.Done(), func() bool { return !more() })
	if err == nil && ctx.Err() != nil {
		// A wall-paced engine (TAP) may wait for the host: a second bounds it.
		stop := make(chan struct{})
		t := time.AfterFunc(time.Second, func() { close(stop) })
		n := 0
		_ = m.Run(stop, func() bool { n++; return !more() || n > drainEvents })
		t.Stop()
		err = ctx.Err()
	}
	return err
}

// drainEvents bounds the run after a cancellation: a client's terminate and
// its last report take a few hundred events.
const drainEvents = 100000

// Close stops the machine (tasks still blocked are unwound) and the hosts.
func (b *Bench) Close() {
	b.Sim.Machine().Stop()
	if b.pcNIC != nil {
		b.pcNIC.Close()
	}
	if b.PC != nil {
		b.PC.Close()
	}
	if b.Board != nil {
		b.Board.Close()
	}
}

// RunIperf3 runs the board's iperf3 with iperf3's own arguments. The in-process
// PC plays the other end: an iperf3 server when the board is the client, a
// client (default 10 s test) when the board serves. After a UDP test the
// datagram counters (the wire's losses beside their prediction, each host's
// own drops) go to stderr.
func RunIperf3(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) (int, error) {
	r, err := RunIperf3Counted(ctx, o, args, stdout, stderr)
	if r == nil {
		return 0, err
	}
	return r.Code, err
}

// RunIperf3Counted is RunIperf3 with its counters.
func RunIperf3Counted(ctx context.Context, o Options, args []string, stdout, stderr io.Writer) (*Iperf3Run, error) {
	cfg, err := iperf3.ParseArgs(args)
	if err != nil {
		// iperf3's own parameter error text and exit status, no board booted.
		return &Iperf3Run{Code: iperf3.Main(ctx, args, iperf3.Env{Stdout: stdout, Stderr: stderr})}, nil
	}
	o, err = o.withDefaults()
	if err != nil {
		return nil, err
	}
	// IPv6 only when the command line asks for it, so that every IPv4 run
	// stays what it was, frame for frame.
	o.IPv6 = o.IPv6 || cfg.UsesIPv6()
	tap := &udpTap{}
	o.Taps = append(o.Taps, tap.tap)
	b, err := Start(ctx, o)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if stderr != nil && o.Header && !cfg.Help && !cfg.Version {
		writeIperf3Header(stderr, b.Report, o)
	}
	tap.budget[0], tap.budget[1], _ = b.Sim.Hardware().Budgets()
	env := iperf3.Env{Dial: b.Board.Dial, Clock: b.Clock, TCPInfo: netstack.TCPInfo, Congestion: netstack.ConnCongestion(o.CC),
		SockOpts: netstack.SockOpts,
		Stdout:   stdout, Stderr: stderr, Seed: o.Sim.Seed + 7, Sched: b.Sched,
		Listen: func(ctx context.Context, port int) (net.Listener, error) {
			return b.Board.ListenNet(iperf3.Network(ctx), uint16(port))
		}}
	run := &Iperf3Run{}
	if cfg.Mode == iperf3.ModeClient {
		ln, err := b.PC.Listen(uint16(portOr(cfg.Client.Port)))
		if err != nil {
			return nil, err
		}
		b.Go("pc iperf3 -s", func() {
			_ = iperf3.Serve(ctx, ln, iperf3.ServerOptions{Clock: b.Clock, TCPInfo: netstack.TCPInfo,
				Congestion: netstack.ConnCongestion(o.CC), Seed: o.Sim.Seed + 101, Sched: b.Sched,
				SockOpts: netstack.SockOpts,
				OnTest: func(r *iperf3.Result, _ error) {
					if r != nil {
						run.ServerDrops = r.UDPDrops
					}
				}})
		})
	} else {
		b.Go("pc iperf3 -c", func() {
			// Give the board's server a moment of virtual time to listen.
			b.Sim.Machine().Sleep(10 * emu.Millisecond)
			_, _ = iperf3.Run(ctx, iperf3.ClientOptions{Host: boardHost(o, cfg), Port: portOr(cfg.Server.Port),
				Dial: b.PC.Dial, Clock: b.Clock, Seed: o.Sim.Seed + 11, Sched: b.Sched})
		})
	}
	board := b.Go("board iperf3", func() { run.Code = iperf3.Main(ctx, args, env) })
	err = b.RunWhile(ctx, func() bool { return !board.Done() })
	m := b.Sim.Machine()
	m.Lock()
	run.BoardToPC, run.PCToBoard = tap.finish()
	m.Unlock()
	run.Board, run.PC = b.hostUDP(b.Board), b.hostUDP(b.PC)
	if cfg.Mode == iperf3.ModeClient && cfg.Client.UDP && stderr != nil {
		writeUDPCounters(stderr, run)
	}
	if stderr != nil && (o.Counters || ctx.Err() != nil) {
		// Asked for, or the run was stopped: the counters say what happened.
		b.tally()
		b.Report.Counters = collectCounters(b.Sim, b.Board, b.PC)
		b.Report.VirtualSeconds = m.Now().Seconds()
		writeCounters(stderr, b.Report)
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "\ninterrupted at %.2f s of virtual time\n", b.Report.VirtualSeconds)
		}
	}
	return run, err
}

func portOr(p int) int {
	if p == 0 {
		return iperf3.DefaultPort
	}
	return p
}

// boardHost is the address the PC's client dials when the board serves:
// its IPv6 address for a server started with -6.
func boardHost(o Options, cfg iperf3.Config) string {
	if cfg.Server.Family == iperf3.Family6 {
		return DefaultBoardIP6.Addr().String()
	}
	return o.BoardIP.Addr().String()
}

// setGovernor puts the board's CPU under the named governor over its OPP
// table (the costs are fitted at the table's top).
func setGovernor(cpu *linuxmodel.CPU, name string, opps []uint32) error {
	if name != CPUFreqOndemand {
		return nil
	}
	if len(opps) == 0 {
		return fmt.Errorf("cpufreq %s: the board has no OPP table", name)
	}
	g, err := cpufreq.NewOndemand(opps, cpufreq.UpThreshold)
	if err != nil {
		return fmt.Errorf("cpufreq %s: %w", name, err)
	}
	cpu.SetGovernor(g)
	return nil
}

// wakeBoard puts the board CPU's wake turnaround (CALIBRATED, soc/board) in
// front of its receive path when the calibration asks for it and the host
// has a CPU model (the cpu-cost ablation takes both away).
func (b *Bench) wakeBoard(cfg *netstack.HostConfig, calibration string) {
	d := emu.Time(b.Sim.Board.CPU.WakeTurnaroundNs)
	if calibration == CalibrationNone || cfg.CPU == nil || d == 0 {
		return
	}
	nic, ok := cfg.NIC.(netstack.StmmacNIC)
	if !ok {
		return
	}
	b.wake = linuxmodel.NewWake(b.Sim.Machine(), cfg.CPU, d, false)
	b.Report.WakeTurnaroundUs = float64(d) / float64(emu.Microsecond)
	cfg.NIC = wakingNIC{StmmacNIC: nic, wake: b.wake}
}

// wakingNIC is the board's card with the CPU's wake turnaround between its
// receive interrupt and the stack.
type wakingNIC struct {
	netstack.StmmacNIC
	wake *linuxmodel.Wake
}

// SetReceiver implements link.Endpoint.
func (n wakingNIC) SetReceiver(fn func([]byte)) { n.StmmacNIC.SetReceiver(n.wake.Receiver(fn)) }
