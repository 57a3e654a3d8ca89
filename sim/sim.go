// Package sim builds one emulated board and boots its guest on it.
// Outside the bus: it joins the two sides, the user's choices going to the DT and the guest build.
//
// It builds one emulated board and boots its guest: the platform
// (hardware) from the board description, then the guest drivers in Linux's probe
// order on top of it, with the user's choices (driver variant, TX delay, phy-mode,
// link speed) applied where they belong: to the device tree and the guest build,
// never to the hardware models.
package sim

import (
	"fmt"
	"io"

	"mesonemu/emu"
	"mesonemu/farend"
	"mesonemu/linux/boot"
	"mesonemu/linux/kernel"
	"mesonemu/linux/phy/realtek"
	"mesonemu/linux/stmmac"
	"mesonemu/linux/stmmac/dwmacmeson8b"
	"mesonemu/platform"
	"mesonemu/soc"
	"mesonemu/soc/board"
)

// Options are what a user chooses.
type Options struct {
	Board string // board name; "" is board.Default
	// DeviceTree, when set, is a compiled DTB that names the board and gives its
	// Ethernet path's DT (board.FromDeviceTree); Board must then be "".
	DeviceTree []byte
	Driver     string // "pre-fix" or "fixed"; "" is "fixed"
	// TxDelayNs overrides the DT's amlogic,tx-delay-ns when non-nil.
	TxDelayNs *uint32
	// PhyMode overrides the DT's phy-mode when non-empty.
	PhyMode string
	Seed    uint64
	// Speed limits the far end's advertisement: 0 (no limit), 1000, 100, 10.
	Speed     int
	Mechanism platform.Mechanism
	// TXSkewPs replaces the board's calibrated TX skew (scan).
	TXSkewPs *float64
	FarEnd   farend.Config
	// M250Div overrides the glue variant's divider definition (tests of the fix).
	M250Div *dwmacmeson8b.DividerDef
	// PHYDelays chooses the Realtek driver's delay policy (v5.5 default).
	PHYDelays realtek.DelayPolicy
	// Kernel names the Linux tree whose stmmac tuning the guest runs with
	// (stmmac.Trees; "" is stmmac.DefaultTree). Stmmac, if set, is
	// applied after it.
	Kernel string
	Stmmac func(*stmmac.Config)
	// RXWatchdog reads the MAC's RX watchdog one way or the other where the
	// databook is ambiguous (docs/latency.md): "first" (a frame completed with
	// DIC starts it if it is not running), "reload" (every such frame reloads
	// it), "" the board's reading. The board's CPU is the one fitted under it.
	RXWatchdog string
	Log        func(string)
	// PHYTXDelay, when non-nil, sets the RTL8211F's internal TX delay bit after
	// boot, as a developer would with phytool over MDIO (page 0xd08, reg 0x11,
	// bit 8), whatever phy-mode made the driver choose.
	PHYTXDelay *bool
	// Trace, when set, receives one line per guest register access from power-on.
	Trace io.Writer
	// Clock is the machine's clock mode: emu.Virtual (in-process runs) or
	// emu.WallPaced (a TAP's far side keeps real time; boot then takes real time too).
	Clock emu.ClockMode
}

// Sim is one booted board.
type Sim struct {
	Opts  Options
	Board board.Board
	hw    *platform.Platform
	Guest *boot.Guest
	DT    boot.DeviceTree
	// DTNotes lists device-tree properties on the Ethernet path that the guest's
	// drivers do not read (with Options.DeviceTree).
	DTNotes  []string
	LinkTime emu.Time // virtual time at which the link came up
}

// The interrupt numbers of the board's device tree: the order in which New
// gives the guest kernel the lines.
const (
	macIRQ kernel.IRQ = 1
	phyIRQ kernel.IRQ = 2
)

// LinkTimeout bounds how long boot waits for the PHY (autoneg takes ~2 s).
const LinkTimeout = 10 * emu.Second

var compatibles = map[soc.Kind]string{
	soc.Meson8b:  "amlogic,meson8b-dwmac",
	soc.Meson8m2: "amlogic,meson8m2-dwmac",
	soc.GXBB:     "amlogic,meson-gxbb-dwmac",
}

// PhyModes lists what --phy-mode accepts.
var PhyModes = []string{"rgmii", "rgmii-id", "rgmii-rxid", "rgmii-txid"}

// Validate checks the user's choices without building anything.
func (o Options) Validate() (board.Board, error) {
	b, _, err := o.lookupBoard()
	if err != nil {
		return board.Board{}, err
	}
	if o.Driver != "" {
		if _, err := dwmacmeson8b.ParseVariant(o.Driver); err != nil {
			return board.Board{}, fmt.Errorf("driver %q: want pre-fix or fixed", o.Driver)
		}
	}
	if o.TxDelayNs != nil && *o.TxDelayNs > 7 {
		return board.Board{}, fmt.Errorf("tx-delay-ns %d: want 0..7 (the binding allows 0, 2, 4, 6)", *o.TxDelayNs)
	}
	if o.PhyMode != "" {
		ok := false
		for _, m := range PhyModes {
			ok = ok || m == o.PhyMode
		}
		if !ok {
			return board.Board{}, fmt.Errorf("phy-mode %q: want one of %v", o.PhyMode, PhyModes)
		}
	}
	switch o.Speed {
	case 0, 10, 100, 1000:
	default:
		return board.Board{}, fmt.Errorf("speed %d: want 1000, 100 or 10", o.Speed)
	}
	if _, err := stmmac.LookupTree(o.Kernel); err != nil {
		return board.Board{}, err
	}
	switch o.RXWatchdog {
	case "":
	case RXWatchdogFirst, RXWatchdogReload:
		if b, err = b.WithRXWatchdog(o.RXWatchdog == RXWatchdogReload); err != nil {
			return board.Board{}, err
		}
	default:
		return board.Board{}, fmt.Errorf("rx-watchdog %q: want %s or %s", o.RXWatchdog, RXWatchdogFirst, RXWatchdogReload)
	}
	return b, nil
}

// lookupBoard is the named board, or the one the device tree describes with the
// notes on what its drivers do not read.
func (o Options) lookupBoard() (board.Board, []string, error) {
	if o.DeviceTree != nil {
		if o.Board != "" {
			return board.Board{}, nil, fmt.Errorf("board %q and a device tree both given: the tree names its board", o.Board)
		}
		return board.FromDeviceTree(o.DeviceTree)
	}
	name := o.Board
	if name == "" {
		name = board.Default
	}
	b, err := board.Lookup(name)
	return b, nil, err
}

// The two readings of the RX watchdog (Options.RXWatchdog).
const (
	RXWatchdogFirst  = "first"
	RXWatchdogReload = "reload"
)

// DeviceTree is the board's DT with the user's overrides.
func DeviceTree(b board.Board, o Options, ramSize uint32) boot.DeviceTree {
	dt := boot.DeviceTree{
		Compatible: compatibles[b.SoC],
		DWMACBase:  b.SoC.Addrs().DWMACBase,
		PhyMode:    b.DT.PhyMode,
		TxDelayNs:  b.DT.TXDelayNS,
		MACIRQ:     macIRQ,
		PHYAddr:    int(b.DT.PHYAddr),
		PHYIRQ:     phyIRQ,
		MAC:        b.MAC,
		// The kernel image and its data sit in the first MiB; the rest is the
		// DMA pool for the rings and buffers.
		DMAStart: soc.RAMBase + 1<<20,
		DMASize:  ramSize - 1<<20,
	}
	if o.TxDelayNs != nil {
		dt.TxDelayNs = o.TxDelayNs
	}
	if o.PhyMode != "" {
		dt.PhyMode = o.PhyMode
	}
	return dt
}

// New assembles the board and boots the guest in discrete-event time up to link.
func New(o Options) (*Sim, error) {
	b, err := o.Validate()
	if err != nil {
		return nil, err
	}
	if o.Driver == "" {
		o.Driver = "fixed"
	}
	variant, _ := dwmacmeson8b.ParseVariant(o.Driver)
	hw, err := platform.New(platform.Options{
		Board: b, Seed: o.Seed, PartnerMaxSpeed: o.Speed, Mechanism: o.Mechanism,
		TXSkewPs: o.TXSkewPs, FarEnd: o.FarEnd, Clock: o.Clock,
	})
	if err != nil {
		return nil, err
	}
	if o.Trace != nil {
		hw.Machine().Bus().SetTrace(o.Trace)
	}
	s := &Sim{Opts: o, Board: b, hw: hw, DT: DeviceTree(b, o, hw.RAMSize())}
	_, s.DTNotes, _ = o.lookupBoard()
	tree, _ := stmmac.LookupTree(o.Kernel)
	tune := func(c *stmmac.Config) {
		tree.Apply(c)
		if o.Stmmac != nil {
			o.Stmmac(c)
		}
	}
	// The guest's interrupt numbers follow the order its kernel is given the lines.
	k := kernel.New(hw.Machine(), hw.GuestBus(), hw.MACIRQ(), hw.PHYIRQ())
	s.Guest, err = boot.Boot(k, s.DT, boot.Options{Variant: variant, M250Div: o.M250Div, PHYDelays: o.PHYDelays, Stmmac: tune, Log: o.Log})
	if err != nil {
		return nil, err
	}
	if err := s.Guest.WaitLink(LinkTimeout); err != nil {
		return nil, err
	}
	if o.PHYTXDelay != nil {
		if err := s.setPHYTXDelay(*o.PHYTXDelay); err != nil {
			return nil, err
		}
	}
	s.LinkTime = hw.Machine().VirtualNow()
	return s, nil
}

// Hardware is the board's hardware: its counters, timing budgets, taps and the
// far end of the cable.
func (s *Sim) Hardware() *platform.Platform { return s.hw }

// Machine is the engine the board runs on.
func (s *Sim) Machine() *emu.Machine { return s.hw.Machine() }

// RTL8211F paged register holding the internal TX delay (docs/reference/rtl8211f.md §3).
const (
	phyPageSelect = 0x1f
	phyPageMIICtl = 0xd08
	phyRegTXDelay = 0x11
	phyTXDelayBit = 1 << 8
)

// setPHYTXDelay is `phytool` on the guest: a paged read-modify-write over MDIO.
func (s *Sim) setPHYTXDelay(on bool) error {
	mii, addr := s.Guest.MAC, s.DT.PHYAddr
	page, err := mii.ReadPHY(addr, phyPageSelect)
	if err != nil {
		return fmt.Errorf("phy tx delay: %w", err)
	}
	if err := mii.WritePHY(addr, phyPageSelect, phyPageMIICtl); err != nil {
		return fmt.Errorf("phy tx delay: %w", err)
	}
	v, err := mii.ReadPHY(addr, phyRegTXDelay)
	if err != nil {
		return fmt.Errorf("phy tx delay: %w", err)
	}
	if on {
		v |= phyTXDelayBit
	} else {
		v &^= phyTXDelayBit
	}
	if err := mii.WritePHY(addr, phyRegTXDelay, v); err != nil {
		return fmt.Errorf("phy tx delay: %w", err)
	}
	if err := mii.WritePHY(addr, phyPageSelect, page); err != nil {
		return fmt.Errorf("phy tx delay: %w", err)
	}
	return nil
}
