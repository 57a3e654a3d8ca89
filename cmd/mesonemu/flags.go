package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"mesonemu/emu"
	"mesonemu/farend"
	"mesonemu/linkclass"
	stmmacdrv "mesonemu/linux/stmmac"
	"mesonemu/perfrun"
	"mesonemu/platform"
	"mesonemu/sim"
	"mesonemu/soc/board"
)

// Each command owns its options: a struct of its own (in its file), made of
// the small groups below, bound to its own flag set. Nothing is shared between
// commands, so every flag keeps the default its command gave it.

// cmdFlags is what every command's options hold: its flag set, to tell a flag
// the user gave from a default.
type cmdFlags struct{ fs *pflag.FlagSet }

// given reports whether the user gave the flag.
func (c cmdFlags) given(name string) bool { return c.fs.Changed(name) }

// setting: what the device tree, the driver and the PHY say (every command that
// boots a board).
type setting struct {
	board, dtb, driver, phyMode, phyTXDelay, mechanism string
	txDelayNs                                          optionalInt
	speed                                              int
}

// stmmacTuning: how the stmmac driver is tuned and how the MAC's RX watchdog
// behaves.
type stmmacTuning struct{ kernel, rxWatchdog string }

// pcFlags: the in-process PC and the stacks' TCP.
type pcFlags struct {
	cc            string
	profile       string
	moderation    durationValue
	boardIP, pcIP string
}

// outputFlags: the register trace and the capture of a run.
type outputFlags struct{ trace, pcap string }

// pictures: the --png and --svg files of eye and scan.
type pictures struct{ png, svg string }

// boardRun: a run of the board's iperf3 against the in-process PC (run and
// iperf3): the machine, the PC, the seed and the run's trace and capture.
type boardRun struct {
	cmdFlags
	setting
	stmmacTuning
	pc   pcFlags
	out  outputFlags
	seed uint64
}

func (f *boardRun) add(fs *pflag.FlagSet) {
	f.fs = fs
	f.setting.add(fs, true)
	f.stmmacTuning.add(fs)
	addSeed(fs, &f.seed)
	f.pc.add(fs)
	f.out.addPcap(fs)
	f.out.addTrace(fs)
}

// defaultTuning is the stmmac tuning of a command that offers none.
var defaultTuning = stmmacTuning{kernel: stmmacdrv.DefaultTree}

// defaultSeed is the seed of a command that offers none.
const defaultSeed = 1

// durationValue is a time.Duration flag whose error names the unit it wants
// ("--time 10" is 10 what?).
type durationValue time.Duration

func (d *durationValue) String() string {
	if *d == 0 {
		return "" // no "(default 0s)" in the help: the usage says what 0 means
	}
	return time.Duration(*d).String()
}
func (d *durationValue) Type() string { return "duration" }
func (d *durationValue) Set(s string) error {
	if s == "" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
			return fmt.Errorf("a duration needs its unit, e.g. %ss or %sms", s, s)
		}
		return fmt.Errorf("want a duration with its unit, e.g. 10s, 500ms, 250us")
	}
	*d = durationValue(v)
	return nil
}

// optionalInt is an int flag that may be absent (the board's device tree
// decides then); its help shows no made-up default.
type optionalInt struct {
	v  int
	ok bool
}

func (o *optionalInt) String() string {
	if !o.ok {
		return ""
	}
	return strconv.Itoa(o.v)
}
func (o *optionalInt) Type() string { return "int" }
func (o *optionalInt) Set(s string) error {
	if s == "" {
		*o = optionalInt{}
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	o.v, o.ok = v, true
	return nil
}

// ablateFlag is --ablate (compare: every mechanism) or --ablate=NAME[,NAME]
// (compare: those; run: the one).
type ablateFlag struct {
	on    bool
	names []string
}

func (a *ablateFlag) String() string { return strings.Join(a.names, ",") }
func (a *ablateFlag) Type() string   { return "name,..." }

func (a *ablateFlag) Set(v string) error {
	*a = ablateFlag{}
	switch v {
	case "", "false":
		return nil
	case "true", "all":
		a.on = true
		return nil
	}
	for _, n := range strings.Split(v, ",") {
		if _, err := perfrun.LookupAblation(n); err != nil {
			return err
		}
		a.names = append(a.names, n)
	}
	a.on = true
	return nil
}

// The flag groups. A command registers the groups whose options it honours.

// addBoardName: which board (every command that boots one).
func addBoardName(fs *pflag.FlagSet, name *string) {
	fs.StringVar(name, "board", board.Default, "board: "+strings.Join(board.Names(), ", "))
}

// addSetting: what the device tree, the driver and the PHY say.
func (f *setting) add(fs *pflag.FlagSet, phyMode bool) {
	addBoardName(fs, &f.board)
	fs.StringVar(&f.dtb, "dtb", "", "a compiled Linux device tree (dtc, make dtbs): it names the board and gives phy-mode, amlogic,tx-delay-ns and the PHY, as Linux reads them")
	fs.StringVar(&f.driver, "driver", "fixed", "dwmac-meson8b glue driver: pre-fix (Linux <= v5.4) or fixed (v5.5)")
	fs.Var(&f.txDelayNs, "tx-delay-ns", "amlogic,tx-delay-ns in the device tree, 0..7 (default: the board's DT, 2 ns)")
	if phyMode {
		fs.StringVar(&f.phyMode, "phy-mode", "", "phy-mode in the device tree: "+strings.Join(sim.PhyModes, ", ")+" (default: the board's DT, rgmii)")
	}
	fs.StringVar(&f.phyTXDelay, "phy-tx-delay", "", "after boot, force the RTL8211F TX delay bit on or off over MDIO, as phytool would")
	fs.StringVar(&f.mechanism, "mechanism", "A", "how the MAC makes its TX delay steps: A (project default) or B (rgmii-timing.md §6)")
	fs.IntVar(&f.speed, "speed", 0, "limit the link partner to 1000, 100 or 10 Mbit/s (default: no limit, 1000)")
}

// addStmmac: how the stmmac driver is tuned and how the MAC's RX watchdog
// behaves (every command whose board moves frames or shows that tuning).
func (f *stmmacTuning) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.kernel, "kernel", stmmacdrv.DefaultTree, "stmmac tuning of this Linux tree (TX coalescing, RX watchdog): "+kernelNames())
	addRXWatchdog(fs, &f.rxWatchdog)
}

// addRXWatchdog: the silicon's reading of the MAC's RX watchdog.
func addRXWatchdog(fs *pflag.FlagSet, rxWatchdog *string) {
	fs.StringVar(rxWatchdog, "rx-watchdog", "", "the MAC's RX watchdog where the databook reads two ways: "+
		sim.RXWatchdogFirst+" (started by the first frame, the default) or "+sim.RXWatchdogReload+
		" (reloaded by every frame; the board CPU fitted under it); docs/latency.md")
}

func (f *outputFlags) addTrace(fs *pflag.FlagSet) {
	fs.StringVar(&f.trace, "trace", "", "trace: regs prints every guest register access (R/W addr block.REG = value) to stderr")
}

func addSeed(fs *pflag.FlagSet, seed *uint64) {
	fs.Uint64Var(seed, "seed", 1, "seed of the wire's errors and the payloads")
}

// addExpect: the CI verdict a run must reach (exit 1 when it does not).
func addExpect(fs *pflag.FlagSet, expect *string) {
	fs.StringVar(expect, "expect", "", "exit 1 unless the link's verdict is this: clean (no frame lost on the wire), lossy (some lost) or dead (none arrive)")
}

// checkExpect is --expect's usage check.
func checkExpect(expect string) error {
	if expect == "" || linkclass.Valid(expect) {
		return nil
	}
	return usagef("--expect %q: want clean, lossy or dead", expect)
}

// expectHolds is --expect's outcome: nil when the verdict is the expected
// one (or none was asked for), else exit status 1 with one line on stderr.
func expectHolds(expect string, stderr io.Writer, class, why string) error {
	if expect == "" || expect == class {
		return nil
	}
	fmt.Fprintf(stderr, "mesonemu: --expect %s: the link is %s: %s\n", expect, class, why)
	return &exitCode{1}
}

func addJSON(fs *pflag.FlagSet, json *bool) {
	fs.BoolVar(json, "json", false, "print one JSON object (snake_case keys)")
}

// addPC: the in-process PC and the stacks' TCP.
func (f *pcFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.cc, "cc", "cubic", "TCP congestion control of both stacks: cubic or reno")
	fs.StringVar(&f.profile, "pc", farend.DefaultPCProfile, "the PC's NIC class and its driver's default receive moderation: "+pcProfileNames()+" (docs/latency.md)")
	fs.Var(&f.moderation, "pc-rx-moderation", "the PC NIC's interrupt moderation: frames wait up to this long before its stack sees them (e.g. 250us, igb/e1000e at 4000 interrupts/s; default 0: none)")
	fs.StringVar(&f.boardIP, "board-ip", perfrun.DefaultBoardIP.String(), "board address (in-process)")
	fs.StringVar(&f.pcIP, "pc-ip", perfrun.DefaultPCIP.String(), "PC address (in-process)")
}

// addTime: the length of an iperf3 test (the iperf3 command takes iperf3's
// own -t).
func addTime(fs *pflag.FlagSet, d *durationValue, def time.Duration, usage string) {
	*d = durationValue(def)
	fs.Var(d, "time", usage)
}

// addReverse: the PC sends (the iperf3 command takes iperf3's own -R).
func addReverse(fs *pflag.FlagSet, reverse *bool) {
	fs.BoolVar(reverse, "reverse", false, "the PC sends and the board receives")
}

func (f *outputFlags) addPcap(fs *pflag.FlagSet) {
	fs.StringVar(&f.pcap, "pcap", "", "write every frame as it left the wire (FCS included) to this pcapng file")
}

func addAblate(fs *pflag.FlagSet, a *ablateFlag, usage string) {
	fs.Var(a, "ablate", usage+": "+strings.Join(perfrun.AblationNames(), ", "))
	fs.Lookup("ablate").NoOptDefVal = "all"
}

func addJobs(fs *pflag.FlagSet, jobs *int) {
	fs.IntVar(jobs, "jobs", runtime.NumCPU(), "runs at once (the output does not depend on it)")
}

func (f *pictures) add(fs *pflag.FlagSet, what string) {
	fs.StringVar(&f.png, "png", "", "write "+what+" as a PNG picture to this file")
	fs.StringVar(&f.svg, "svg", "", "write "+what+" as an SVG picture to this file")
}

// check refuses a --trace that is not regs and a --pcap file that cannot be
// written, before anything boots.
func (f *outputFlags) check() error {
	if f.trace != "" && f.trace != "regs" {
		return usagef("--trace %q: the only trace is regs", f.trace)
	}
	if f.pcap != "" {
		// Only a check: a file made here is removed again, so a refusal that
		// comes later leaves nothing behind.
		_, statErr := os.Stat(f.pcap)
		fh, err := os.OpenFile(f.pcap, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return usagef("--pcap: cannot write %s: %v", f.pcap, unwrapPath(err))
		}
		fh.Close()
		if errors.Is(statErr, fs.ErrNotExist) {
			_ = os.Remove(f.pcap)
		}
	}
	return nil
}

// checkJobs is --jobs' range, when given.
func checkJobs(c cmdFlags, jobs int) error {
	if c.given("jobs") && (jobs < 1 || jobs > 1024) {
		return usagef("--jobs %d: want 1..1024", jobs)
	}
	return nil
}

func pcProfileNames() string {
	var names []string
	for _, p := range farend.PCProfiles {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
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

// simOptions is the machine the setting names, with the stmmac tuning and the
// seed of the command.
func (f *setting) simOptions(k stmmacTuning, seed uint64) (sim.Options, error) {
	o := sim.Options{Board: f.board, Driver: f.driver, PhyMode: f.phyMode, Seed: seed, Speed: f.speed, Kernel: k.kernel,
		RXWatchdog: k.rxWatchdog, Mechanism: platform.Mechanism(strings.ToUpper(f.mechanism))}
	if o.Driver == "" {
		o.Driver = "fixed"
	}
	if f.dtb != "" {
		if err := f.readDTB(&o); err != nil {
			return o, err
		}
	}
	if o.Mechanism == "" {
		o.Mechanism = platform.MechanismA
	}
	if f.txDelayNs.ok {
		if f.txDelayNs.v < 0 || f.txDelayNs.v > 7 {
			return o, usagef("--tx-delay-ns %d: want 0..7 (the binding allows 0, 2, 4, 6)", f.txDelayNs.v)
		}
		v := uint32(f.txDelayNs.v)
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
	if o.Mechanism != platform.MechanismA && o.Mechanism != platform.MechanismB {
		return o, usagef("--mechanism %q: want A or B", f.mechanism)
	}
	if _, err := o.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	return o, nil
}

// perfOptions is an in-process iperf3 run on the machine so, of length d with
// parallel streams, checked by perfrun.
func (pc *pcFlags) perfOptions(so sim.Options, d time.Duration, parallel int) (perfrun.Options, error) {
	if m := time.Duration(pc.moderation); m < 0 || m > time.Second {
		return perfrun.Options{}, usagef("--pc-rx-moderation %v: want 0 to 1s", m)
	}
	prof, err := farend.LookupPCProfile(cmp.Or(pc.profile, farend.DefaultPCProfile))
	if err != nil {
		return perfrun.Options{}, usagef("%v", err)
	}
	if pc.moderation != 0 && prof.Name != farend.DefaultPCProfile {
		return perfrun.Options{}, usagef("--pc %s and --pc-rx-moderation: the profile sets the moderation", prof.Name)
	}
	so.FarEnd = prof.Apply(so.FarEnd)
	if pc.moderation != 0 {
		so.FarEnd.RxDelay, so.FarEnd.Profile = emu.Time(pc.moderation), ""
	}
	o := perfrun.Options{Sim: so, Duration: d, Parallel: parallel, CC: pc.cc}
	// A zero is the runner's default: the command line's zero is refused.
	for _, err := range []error{perfrun.CheckDuration(d), perfrun.CheckParallel(parallel)} {
		if err != nil {
			return o, optionError(err)
		}
	}
	if o.BoardIP, err = netip.ParsePrefix(pc.boardIP); err != nil || !o.BoardIP.Addr().Is4() {
		return o, usagef("--board-ip %q: want an IPv4 address with prefix, e.g. 198.18.0.2/24", pc.boardIP)
	}
	if o.PCIP, err = netip.ParsePrefix(pc.pcIP); err != nil || !o.PCIP.Addr().Is4() {
		return o, usagef("--pc-ip %q: want an IPv4 address with prefix, e.g. 198.18.0.1/24", pc.pcIP)
	}
	if err := o.Validate(); err != nil {
		return o, optionError(err)
	}
	return o, nil
}

// optionError is a runner's refusal of its options as a usage error (the
// runner names each option by its flag).
func optionError(err error) error { return usagef("%v", err) }

// readDTB puts the device tree in place of the board name; a tree that is not a
// DTB, or that asks for what the model cannot honour, is a usage error naming
// the node and the property.
func (f *setting) readDTB(o *sim.Options) error {
	if f.board != board.Default {
		return usagef("--dtb and --board %s: the device tree names its board", f.board)
	}
	blob, err := os.ReadFile(f.dtb)
	if err != nil {
		return usagef("--dtb: %v", unwrapPath(err))
	}
	if _, _, err := board.FromDeviceTree(blob); err != nil {
		return usagef("--dtb %s: %v", f.dtb, err)
	}
	o.Board, o.DeviceTree = "", blob
	return nil
}
