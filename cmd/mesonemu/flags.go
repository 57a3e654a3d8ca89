package main

import (
	"flag"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"time"

	"mesonemu/emu"
	"mesonemu/perfrun"
	"mesonemu/platform"
	"mesonemu/sim"
	"mesonemu/soc/board"
	stmmacdrv "mesonemu/stmmac/stmmaceth"
)

// flags holds every option; each command reads the ones it needs.
type flags struct {
	board, driver, phyMode, phyTXDelay, mechanism, kernel string
	txDelayNs                                             int
	json                                                  bool
	trace                                                 string
	seed                                                  uint64
	speed                                                 int
	// main job
	duration      time.Duration
	pcModeration  time.Duration
	reverse       bool
	parallel      int
	cc            string
	boardIP, pcIP string
	// linktest
	frames, size       int
	payload, direction string
	// TAP and capture
	tap, ip, ip6, pcap string
	tapAddrSet         string // --ip or --ip6 was given
	// compare, scan, eye
	seeds, jobs int
	png, svg    string
	version     bool
	tcp         bool // scan: an iperf3 test per cell
	timeSet     bool // --time was given
	// scan: the TX skew sweep
	skewFrom, skewTo, skewStep float64
	skewSet                    bool
	ablate                     ablateFlag
}

// ablateFlag is --ablate (compare: every mechanism) or --ablate=NAME[,NAME]
// (compare: those; run: the one).
type ablateFlag struct {
	on    bool
	names []string
	err   error // reported by check: the flag package would call it a bad boolean
}

func (a *ablateFlag) String() string   { return strings.Join(a.names, ",") }
func (a *ablateFlag) IsBoolFlag() bool { return true }

func (a *ablateFlag) Set(v string) error {
	*a = ablateFlag{}
	switch v {
	case "false":
		return nil
	case "true", "all":
		a.on = true
		return nil
	}
	for _, n := range strings.Split(v, ",") {
		if _, err := perfrun.LookupAblation(n); err != nil {
			a.err = err
			return nil
		}
		a.names = append(a.names, n)
	}
	a.on = true
	return nil
}

func (f *flags) register() *flag.FlagSet {
	fs := flag.NewFlagSet("mesonemu", flag.ContinueOnError)
	fs.StringVar(&f.board, "board", board.Default, "board: "+strings.Join(board.Names(), ", "))
	fs.StringVar(&f.driver, "driver", "fixed", "dwmac-meson8b glue driver: pre-fix (Linux <= v5.4) or fixed (v5.5)")
	fs.IntVar(&f.txDelayNs, "tx-delay-ns", -1, "amlogic,tx-delay-ns in the device tree, 0..7 (default: the board's DT, 2 ns)")
	fs.StringVar(&f.phyMode, "phy-mode", "", "phy-mode in the device tree: "+strings.Join(sim.PhyModes, ", ")+" (default: the board's DT, rgmii)")
	fs.StringVar(&f.phyTXDelay, "phy-tx-delay", "", "after boot, force the RTL8211F TX delay bit on or off over MDIO, as phytool would")
	fs.StringVar(&f.mechanism, "mechanism", "A", "how the MAC makes its TX delay steps: A (project default) or B (rgmii-timing.md §6)")
	fs.StringVar(&f.kernel, "kernel", stmmacdrv.DefaultTree, "stmmac tuning of this Linux tree (TX coalescing, RX watchdog): "+kernelNames())
	fs.BoolVar(&f.json, "json", false, "print one JSON object")
	fs.StringVar(&f.trace, "trace", "", "trace: regs prints every guest register access (R/W addr block.REG = value) to stderr")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the wire's errors and the payloads")
	fs.IntVar(&f.speed, "speed", 0, "limit the link partner to 1000, 100 or 10 Mbit/s (default: no limit, 1000)")
	fs.DurationVar(&f.duration, "time", 10*time.Second, "iperf3 test length in virtual time")
	fs.BoolVar(&f.reverse, "reverse", false, "the PC sends and the board receives")
	fs.DurationVar(&f.pcModeration, "pc-rx-moderation", 0, "the PC NIC's interrupt moderation: frames wait up to this long before its stack sees them (e.g. 250us, igb/e1000e at 4000 interrupts/s; default 0: none)")
	fs.IntVar(&f.parallel, "parallel", 1, "parallel iperf3 streams")
	fs.StringVar(&f.cc, "cc", "cubic", "TCP congestion control: cubic or reno")
	fs.StringVar(&f.boardIP, "board-ip", perfrun.DefaultBoardIP.String(), "board address")
	fs.StringVar(&f.pcIP, "pc-ip", perfrun.DefaultPCIP.String(), "PC address")
	fs.IntVar(&f.frames, "frames", 100000, "linktest: frames per direction")
	fs.IntVar(&f.size, "size", 1514, "linktest: frame length without FCS, 60..1514")
	fs.StringVar(&f.payload, "payload", "random", "linktest: random (as iperf3 sends) or zeros")
	fs.StringVar(&f.direction, "direction", "both", "linktest: tx, rx or both; eye: tx or rx")
	fs.StringVar(&f.tap, "tap", "", "attach the far end of the cable to this Linux TAP device (real time)")
	fs.StringVar(&f.ip, "ip", "198.18.1.2/24", "board address with --tap")
	fs.StringVar(&f.ip6, "ip6", "", "board IPv6 address with --tap (default: 2001:2:0:1::2/64 when the iperf3 line uses IPv6)")
	fs.StringVar(&f.pcap, "pcap", "", "write every frame as it left the wire (FCS included) to this pcapng file")
	fs.BoolVar(&f.tcp, "tcp", false, "scan: also run an iperf3 test on every live cell (--time, default 3s there; --reverse)")
	fs.Float64Var(&f.skewFrom, "skew-from", 0, "scan: sweep the board's TX skew from this many ps (with --skew-to, --skew-step)")
	fs.Float64Var(&f.skewTo, "skew-to", 0, "scan: sweep the TX skew up to this many ps")
	fs.Float64Var(&f.skewStep, "skew-step", 0, "scan: TX skew step in ps; with --tcp, iperf3 runs along the sweep at --tx-delay-ns and --phy-tx-delay")
	fs.BoolVar(&f.version, "version", false, "print the module version and VCS revision, then exit")
	fs.Var(&f.ablate, "ablate", "compare: the commit's two rows again with each timing mechanism off in turn (--ablate=NAME,... for some); run: --ablate=NAME switches one off: "+strings.Join(perfrun.AblationNames(), ", "))
	fs.IntVar(&f.seeds, "seeds", 1, "compare: seeds per configuration")
	fs.IntVar(&f.jobs, "jobs", runtime.NumCPU(), "compare, scan: runs at once (the output does not depend on it)")
	fs.StringVar(&f.png, "png", "", "scan/eye: write a PNG picture")
	fs.StringVar(&f.svg, "svg", "", "scan/eye: write an SVG picture")
	return fs
}

// check validates the options a user typed; errors become exit status 2.
func (f *flags) check(cmd string) error {
	if f.ablate.err != nil {
		return usagef("--%v", f.ablate.err)
	}
	if f.tapAddrSet != "" && f.tap == "" {
		return usagef("--%s: the board's address is chosen only with --tap (in-process it is 198.18.0.2, and 2001:2::2 with IPv6)", f.tapAddrSet)
	}
	if f.ablate.on && cmd != "run" && cmd != "iperf3" && cmd != "compare" {
		return usagef("--ablate: only run, iperf3 and compare switch mechanisms off")
	}
	if _, err := f.simOptions(); err != nil {
		return err
	}
	if f.trace != "" && f.trace != "regs" {
		return usagef("--trace %q: the only trace is regs", f.trace)
	}
	if f.pcap != "" {
		fh, err := os.OpenFile(f.pcap, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return usagef("--pcap: cannot write %s: %v", f.pcap, unwrapPath(err))
		}
		fh.Close()
	}
	switch cmd {
	case "run", "iperf3":
		if _, err := f.perfOptions(); err != nil {
			return err
		}
		if f.ablate.on && len(f.ablate.names) != 1 {
			return usagef("%s --ablate: name one mechanism, e.g. --ablate=tsq (compare --ablate runs them all)", cmd)
		}
	case "linktest":
		if _, err := f.linkOptions(); err != nil {
			return err
		}
	case "compare", "scan":
		if f.seeds < 1 || f.seeds > 100 {
			return usagef("--seeds %d: want 1..100", f.seeds)
		}
		if f.jobs < 1 || f.jobs > 1024 {
			return usagef("--jobs %d: want 1..1024", f.jobs)
		}
	case "eye":
		if f.direction != "tx" && f.direction != "rx" && f.direction != "both" {
			return usagef("--direction %q: want tx or rx", f.direction)
		}
	}
	return nil
}

func kernelNames() string {
	var names []string
	for _, k := range stmmacdrv.Trees {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func (f *flags) simOptions() (sim.Options, error) {
	o := sim.Options{Board: f.board, Driver: f.driver, PhyMode: f.phyMode, Seed: f.seed, Speed: f.speed, Kernel: f.kernel,
		Mechanism: platform.Mechanism(strings.ToUpper(f.mechanism))}
	if f.txDelayNs != -1 {
		if f.txDelayNs < 0 || f.txDelayNs > 7 {
			return o, usagef("--tx-delay-ns %d: want 0..7 (the binding allows 0, 2, 4, 6)", f.txDelayNs)
		}
		v := uint32(f.txDelayNs)
		o.TxDelayNs = &v
	}
	switch f.phyTXDelay {
	case "":
	case "on", "off":
		v := f.phyTXDelay == "on"
		o.PHYTXDelay = &v
	default:
		return o, usagef("--phy-tx-delay %q: want on or off", f.phyTXDelay)
	}
	if f.pcModeration < 0 || f.pcModeration > time.Second {
		return o, usagef("--pc-rx-moderation %v: want 0 to 1s", f.pcModeration)
	}
	o.FarEnd.RxDelay = emu.Time(f.pcModeration)
	if o.Mechanism != platform.MechanismA && o.Mechanism != platform.MechanismB {
		return o, usagef("--mechanism %q: want A or B", f.mechanism)
	}
	if _, err := o.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	return o, nil
}

func (f *flags) perfOptions() (perfrun.Options, error) {
	so, err := f.simOptions()
	if err != nil {
		return perfrun.Options{}, err
	}
	o := perfrun.Options{Sim: so, Duration: f.duration, Reverse: f.reverse, Parallel: f.parallel, CC: f.cc, JSON: f.json}
	if len(f.ablate.names) == 1 {
		o.Ablate = f.ablate.names[0]
	}
	if f.duration < time.Second || f.duration > time.Hour || f.duration%time.Second != 0 {
		return o, usagef("--time %v: want whole seconds from 1s to 1h", f.duration)
	}
	if f.parallel < 1 || f.parallel > 128 {
		return o, usagef("--parallel %d: want 1..128", f.parallel)
	}
	if f.cc != "cubic" && f.cc != "reno" {
		return o, usagef("--cc %q: want cubic or reno", f.cc)
	}
	if o.BoardIP, err = netip.ParsePrefix(f.boardIP); err != nil || !o.BoardIP.Addr().Is4() {
		return o, usagef("--board-ip %q: want an IPv4 address with prefix, e.g. 198.18.0.2/24", f.boardIP)
	}
	if o.PCIP, err = netip.ParsePrefix(f.pcIP); err != nil || !o.PCIP.Addr().Is4() {
		return o, usagef("--pc-ip %q: want an IPv4 address with prefix, e.g. 198.18.0.1/24", f.pcIP)
	}
	if o.BoardIP.Masked() != o.PCIP.Masked() || o.BoardIP.Addr() == o.PCIP.Addr() {
		return o, usagef("--board-ip %v and --pc-ip %v must be two addresses in one subnet", o.BoardIP, o.PCIP)
	}
	return o, nil
}
