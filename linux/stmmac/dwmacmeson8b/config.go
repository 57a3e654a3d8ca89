package dwmacmeson8b

import (
	"fmt"
	"strings"

	"mesonemu/emu"
	"mesonemu/linux/clk"
)

// Variant is the glue driver version.
type Variant int

// Variants.
const (
	PreFix Variant = iota // v5.4 and earlier
	Fixed                 // v5.5 (bd6f48546b9c)
)

func (v Variant) String() string {
	switch v {
	case PreFix:
		return "pre-fix"
	case Fixed:
		return "fixed"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// ParseVariant accepts "pre-fix" and "fixed".
func ParseVariant(s string) (Variant, error) {
	switch strings.ToLower(s) {
	case "pre-fix":
		return PreFix, nil
	case "fixed":
		return Fixed, nil
	}
	return 0, fmt.Errorf("dwmac-meson8b: unknown variant %q (want pre-fix or fixed)", s)
}

// DividerDef is the part of the m250_div registration that differs between the
// variants: the divider flags and the optional table. It is a plain value so a
// test can take a variant's definition and change it.
type DividerDef struct {
	Flags clk.DividerFlags
	Table []clk.DivTable
}

// M250Div returns the variant's m250_div definition (a fresh copy).
func (v Variant) M250Div() (DividerDef, error) {
	switch v {
	case PreFix:
		return DividerDef{Flags: clk.DividerOneBased | clk.DividerAllowZero | clk.DividerRoundClosest}, nil
	case Fixed:
		return DividerDef{
			Flags: clk.DividerAllowZero | clk.DividerRoundClosest,
			Table: []clk.DivTable{{Val: 2, Div: 2}, {Val: 3, Div: 3}, {Val: 4, Div: 4},
				{Val: 5, Div: 5}, {Val: 6, Div: 6}, {Val: 7, Div: 7}, {}},
		}, nil
	}
	return DividerDef{}, fmt.Errorf("dwmac-meson8b: unknown variant %d", int(v))
}

// SelMask chooses the m250_sel mux mask.
type SelMask int

// Mux masks.
const (
	// SelMaskV55 is the v5.4/v5.5 definition (shift 4, mask 0x10): the mux reads and
	// clears bit 8. With a boot value that has bit 8 set, m250_sel and its children
	// are orphans until clk_set_rate gives them a parent.
	SelMaskV55 SelMask = iota
	// SelMaskFixed is the Dec 2020 fix (shift 4, mask 0x1).
	SelMaskFixed
)

func (m SelMask) mask() (uint32, error) {
	switch m {
	case SelMaskV55:
		return prgEth0ClkM250SelMaskV55, nil
	case SelMaskFixed:
		return prgEth0ClkM250SelMaskFixed, nil
	}
	return 0, fmt.Errorf("dwmac-meson8b: unknown m250_sel mask choice %d", int(m))
}

// Compatible is the DT compatible of the glue node (all three use
// meson8b_set_phy_mode).
type Compatible int

// Compatibles.
const (
	Meson8b Compatible = iota
	Meson8m2
	GXBB
)

var compatNames = map[Compatible][2]string{
	Meson8b:  {"meson8b", "amlogic,meson8b-dwmac"},
	Meson8m2: {"meson8m2", "amlogic,meson8m2-dwmac"},
	GXBB:     {"gxbb", "amlogic,meson-gxbb-dwmac"},
}

func (c Compatible) String() string {
	if n, ok := compatNames[c]; ok {
		return n[1]
	}
	return fmt.Sprintf("Compatible(%d)", int(c))
}

// ParseCompatible accepts the short names meson8b, meson8m2, gxbb and the DT
// strings amlogic,meson8b-dwmac, amlogic,meson8m2-dwmac, amlogic,meson-gxbb-dwmac.
func ParseCompatible(s string) (Compatible, error) {
	for _, c := range []Compatible{Meson8b, Meson8m2, GXBB} {
		for _, n := range compatNames[c] {
			if strings.EqualFold(s, n) {
				return c, nil
			}
		}
	}
	return 0, fmt.Errorf("dwmac-meson8b: unsupported compatible %q", s)
}

// PrgEth0Addr is the chip's PRG_ETH0 address.
func (c Compatible) PrgEth0Addr() (uint32, error) {
	switch c {
	case Meson8b, Meson8m2:
		return PrgEth0AddrMeson8b, nil
	case GXBB:
		return PrgEth0AddrGXBB, nil
	}
	return 0, fmt.Errorf("dwmac-meson8b: unknown compatible %d", int(c))
}

// PhyMode is the DT phy-mode.
type PhyMode int

// PHY interface modes the Meson8b glue supports.
const (
	RGMII PhyMode = iota
	RGMIIID
	RGMIIRXID
	RGMIITXID
	RMII
)

var phyModeNames = map[PhyMode]string{
	RGMII: "rgmii", RGMIIID: "rgmii-id", RGMIIRXID: "rgmii-rxid", RGMIITXID: "rgmii-txid", RMII: "rmii",
}

func (m PhyMode) String() string {
	if n, ok := phyModeNames[m]; ok {
		return n
	}
	return fmt.Sprintf("PhyMode(%d)", int(m))
}

// ParsePhyMode accepts rgmii, rgmii-id, rgmii-rxid, rgmii-txid and rmii (what
// of_get_phy_mode would give the driver; any other mode makes Linux fail the probe).
func ParsePhyMode(s string) (PhyMode, error) {
	for m, n := range phyModeNames {
		if s == n {
			return m, nil
		}
	}
	return 0, fmt.Errorf("dwmac-meson8b: unsupported phy-mode %q (want rgmii, rgmii-id, rgmii-rxid, rgmii-txid or rmii)", s)
}

func (m PhyMode) isRGMII() bool { return m != RMII }

// MaxTxDelayNs is the largest amlogic,tx-delay-ns accepted. The binding allows 0,
// 2, 4, 6; the v5.5 driver takes any u32 and masks tx_delay_ns >> 1 to two bits,
// so 8 would silently become 0 ns. DECISION: accept 0..7 (exactly the values the
// masking maps faithfully: 0,1 -> 0; 2,3 -> 1; 4,5 -> 2; 6,7 -> 3) and refuse
// anything larger with an error rather than program a delay nobody asked for.
const MaxTxDelayNs = 7

// TxDelaySteps is the PRG_ETH0 TXDLY value (steps of the MAC's TX delay) that
// amlogic,tx-delay-ns asks for: tx_delay_ns >> 1, before the masking to two bits.
func TxDelaySteps(ns uint32) uint32 { return ns >> 1 }

// DefaultTxDelayNs is used when amlogic,tx-delay-ns is absent ("previously
// hardcoded").
const DefaultTxDelayNs = 2

// DT is the glue node's properties the driver reads.
type DT struct {
	PhyMode   string  // "phy-mode", required
	TxDelayNs *uint32 // "amlogic,tx-delay-ns", optional (nil: absent)
}

// Config is everything the probe gets from the platform: the bus, the clock
// framework, the node and its two parent clocks.
type Config struct {
	Bus         emu.GuestBus
	Clocks      *clk.Framework
	PrgEth0Addr uint32 // the node's second reg entry
	Compatible  string // see ParseCompatible
	DevName     string // dev_name(), e.g. "c9410000.ethernet"
	DT          DT
	ClkIn0      *clk.Clock // "clkin0": mpll2 on Meson8b/8m2, fclk_div2 on GXBB
	ClkIn1      *clk.Clock // "clkin1": mpll2
	Variant     Variant
	// M250Div, when non-nil, replaces the variant's m250_div definition (tests).
	M250Div *DividerDef
	// SelMask picks the m250_sel mask: SelMaskV55 (default) or the later fix.
	SelMask SelMask
}

// MaxDevNameLen bounds the device name (Linux's dev_name has no such limit, but
// every clock name built from it is cut to 31 bytes anyway).
const MaxDevNameLen = 64

// parsed is a validated Config.
type parsed struct {
	cfg       Config
	compat    Compatible
	phyMode   PhyMode
	txDelayNs uint32
	div       DividerDef
	selMask   uint32
}

// parse checks every input before the probe touches anything, so a bad
// configuration gives an error and leaves the machine as the boot loader left it.
func parse(cfg Config) (*parsed, error) {
	p := &parsed{cfg: cfg}
	var err error
	if cfg.Bus == nil || cfg.Clocks == nil {
		return nil, fmt.Errorf("dwmac-meson8b: no bus or clock framework")
	}
	if p.compat, err = ParseCompatible(cfg.Compatible); err != nil {
		return nil, err
	}
	if cfg.PrgEth0Addr == 0 || cfg.PrgEth0Addr%4 != 0 {
		return nil, fmt.Errorf("dwmac-meson8b: bad PRG_ETH0 address %#x", cfg.PrgEth0Addr)
	}
	if cfg.DevName == "" || len(cfg.DevName) > MaxDevNameLen {
		return nil, fmt.Errorf("dwmac-meson8b: bad device name %q", cfg.DevName)
	}
	if cfg.DT.PhyMode == "" {
		return nil, fmt.Errorf("dwmac-meson8b: missing phy-mode property")
	}
	if p.phyMode, err = ParsePhyMode(cfg.DT.PhyMode); err != nil {
		return nil, err
	}
	p.txDelayNs = DefaultTxDelayNs
	if cfg.DT.TxDelayNs != nil {
		p.txDelayNs = *cfg.DT.TxDelayNs
	}
	if p.txDelayNs > MaxTxDelayNs {
		return nil, fmt.Errorf("dwmac-meson8b: amlogic,tx-delay-ns = %d: the TX delay field holds 0, 2, 4 or 6 ns (0..%d accepted)", p.txDelayNs, MaxTxDelayNs)
	}
	if cfg.ClkIn0 == nil {
		return nil, fmt.Errorf("dwmac-meson8b: Missing clock clkin0")
	}
	if cfg.ClkIn1 == nil {
		return nil, fmt.Errorf("dwmac-meson8b: Missing clock clkin1")
	}
	if p.div, err = cfg.Variant.M250Div(); err != nil {
		return nil, err
	}
	if cfg.M250Div != nil {
		p.div = DividerDef{Flags: cfg.M250Div.Flags}
		if cfg.M250Div.Table != nil {
			p.div.Table = append([]clk.DivTable{}, cfg.M250Div.Table...)
		}
	}
	if p.selMask, err = cfg.SelMask.mask(); err != nil {
		return nil, err
	}
	return p, nil
}
