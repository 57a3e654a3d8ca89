package board

import (
	"fmt"
	"net"
	"sort"
	"strings"

	"mesonemu/soc"
)

// Default is the board mesonemu runs when none is named: the one the fix was made on.
const Default = "odroid-c1"

// RTL8211FID is the PHY identifier all three boards carry (PHYSID1 0x001c, PHYSID2 0xc916).
const RTL8211FID uint32 = 0x001cc916

// DT is what the board's device tree tells the guest drivers.
type DT struct {
	// PhyMode is `phy-mode`: "rgmii", "rgmii-id", "rgmii-txid", "rgmii-rxid" or "rmii".
	PhyMode string
	// TXDelayNS is `amlogic,tx-delay-ns`; nil when the property is absent (the glue
	// driver then defaults to 2).
	TXDelayNS *uint32
	// RXDelayNS is `amlogic,rx-delay-ns` (v5.8 binding); nil when absent.
	RXDelayNS *uint32
	// PHYAddr is the PHY's MDIO address (the reg of the ethernet-phy node).
	PHYAddr uint8
	// PHYResetAssertUs / PHYResetDeassertUs are `reset-assert-us` / `reset-deassert-us`.
	PHYResetAssertUs, PHYResetDeassertUs uint32
	// Source says which tree these values follow.
	Source string
}

// PHYStraps are the PHY's pin-strap defaults, what its delay bits read before any
// driver touches them.
type PHYStraps struct {
	// TXDelay is the RXD1 strap (RTL8211F page 0xd08 reg 0x11 bit 8 at power-on).
	TXDelay bool
	// RXDelay is the RXD0 strap (page 0xd08 reg 0x15 bit 3 at power-on).
	RXDelay bool
	Source  string
}

// Board is one emulated board.
type Board struct {
	Name  string // lookup name, e.g. "odroid-c1"
	Model string // marketing name
	SoC   soc.Kind
	// PHY names the PHY model ("rtl8211f") and PHYID its identifier.
	PHY    string
	PHYID  uint32
	DT     DT
	Straps PHYStraps
	// MAC is the Ethernet address (locally administered; the real boards read theirs
	// from eFuse). Same layout as ether.MAC.
	MAC [6]byte
	// TX (MAC->PHY) and RX (PHY->MAC) link parameters under mechanism A, the default.
	TX, RX Link
	// TXMechanismB is the TX link re-fitted for the alternative mechanism B; use it
	// together with soc.MACTXDelayB only.
	TXMechanismB Link
	// Notes is the board's history in the kernel trees, for `mesonemu boards`.
	Notes string
	// CPU is the processor cost model of the network path (cpu.go), fitted
	// under the RX watchdog's reading DWMAC.RIWTRestart.
	CPU CPU
	// CPUOtherReading is the CPU fitted under the other reading of the RX
	// watchdog; WithRXWatchdog swaps the two.
	CPUOtherReading CPU
	// DWMAC is the Ethernet MAC as the boot loader clocks it and as its RX
	// watchdog behaves (dwmac.go).
	DWMAC DWMAC
}

// WithRXWatchdog is the board with its MAC's RX watchdog read one way or the
// other (DWMAC.RIWTRestart) and the CPU fitted under that reading; a board
// with no fit under the other reading cannot take it.
func (b Board) WithRXWatchdog(reload bool) (Board, error) {
	if reload == b.DWMAC.RIWTRestart {
		return b, nil
	}
	if b.CPUOtherReading.PerPacketNs == 0 {
		return b, fmt.Errorf("board %s: no CPU fitted under the RX watchdog's other reading", b.Name)
	}
	b.DWMAC.RIWTRestart = reload
	b.CPU, b.CPUOtherReading = b.CPUOtherReading, b.CPU
	return b, nil
}

// MACAddr is the MAC address as a net.HardwareAddr (a fresh slice).
func (b Board) MACAddr() net.HardwareAddr { return append(net.HardwareAddr(nil), b.MAC[:]...) }

func u32(v uint32) *uint32 { return &v }

// dtCell renders an optional one-cell property as a DT source does, or "absent".
func dtCell(v *uint32) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprintf("<%d>", *v)
}

// strapsInferred: docs/reference/rtl8211f.md §3. RX worked in v5.5, where Linux leaves the PHY's RX
// delay at its strap and the MAC keeps the boot loader's 2 ns RX adjustment, and
// 2 + 2 ns was later called breaking: so the RX strap is off (inference). TX strap:
// no evidence; with phy-mode "rgmii" the v5.5 driver clears the bit anyway, so the
// strap only shows before the PHY driver's config_init.
const srcStraps = "INFERENCE (rtl8211f.md §3): RX delay strap off because RX worked with the MAC's " +
	"2 ns adjustment alone and 2 + 2 ns was called breaking; TX strap unknown, off (Linux's " +
	"config_init sets the bit from phy-mode anyway)"

// boards builds fresh values on every call so callers may modify what they get.
var boards = map[string]func() Board{
	// Hardkernel ODROID-C1. DT as in the fix's own clean measurement (rgmii, 2 ns):
	// the v5.5 tree had amlogic,tx-delay-ns = <4> (the pre-fix measurement's setting:
	// pass 4 to reproduce 153 Mbit/s / 514 retransmits), and the May 2020 series
	// "ARM: dts: meson8b/m2: RGMII improvements" switched to phy-mode "rgmii-id" with
	// no tx-delay.
	"odroid-c1": func() Board {
		return rtl8211fBoard(Board{
			Name: "odroid-c1", Model: "Hardkernel ODROID-C1", SoC: soc.Meson8b,
			Straps: PHYStraps{Source: srcStraps},
			MAC:    [6]byte{0x02, 0xad, 0xc1, 0x00, 0x00, 0x01},
			Notes: "The board of the fix. v5.4 DT: rgmii + tx-delay 4 ns (pre-fix: 153 Mbit/s, 514 " +
				"retransmits); fix v1 proposed 2 ns (post-fix: 778 Mbit/s, 0 retransmits); May 2020: rgmii-id.",
		}, "meson8b-odroidc1.dts with the fix series v1 DT patch (tx-delay 2 ns, the fix's "+
			"clean run); v5.5 had 4 ns, May 2020 switched to rgmii-id")
	},
	// Tronsmart MXIII Plus: the same PHY and the same DT history as the Odroid-C1
	// (v5.5 rgmii + 4 ns, fix v1 proposed 2 ns, later rgmii-id).
	"mxiii-plus": func() Board {
		return rtl8211fBoard(Board{
			Name: "mxiii-plus", Model: "Tronsmart MXIII Plus", SoC: soc.Meson8m2,
			Straps: PHYStraps{Source: srcStraps + "; assumed equal to the Odroid-C1"},
			MAC:    [6]byte{0x02, 0xad, 0x82, 0x00, 0x00, 0x01},
			Notes: "Meson8m2 TV box, same PHY and MPLL2-fed TX clock as the Odroid-C1. Link parameters " +
				"are the Odroid-C1 values (ASSUMPTION: no measurement of this board).",
		}, "meson8m2-mxiii-plus.dts with the fix series v1 DT patch (2 ns); v5.5 had 4 ns, "+
			"later rgmii-id")
	},
	// Hardkernel ODROID-C2 (GXBB): rgmii + 2 ns in v5.5 already; its TX clock comes
	// from fclk_div2 (1 GHz / 4), so it never showed the bug.
	"odroid-c2": func() Board {
		return rtl8211fBoard(Board{
			Name: "odroid-c2", Model: "Hardkernel ODROID-C2", SoC: soc.GXBB,
			Straps: PHYStraps{Source: srcStraps + "; assumed equal to the Odroid-C1"},
			MAC:    [6]byte{0x02, 0xad, 0xc2, 0x00, 0x00, 0x01},
			Notes: "GXBB: m250_sel runs from fclk_div2 (1 GHz, m250_div 4) with either driver variant, " +
				"so the pre-fix bug does not occur. Link parameters are the Odroid-C1 values (ASSUMPTION).",
		}, "meson-gxbb-odroidc2.dts (v5.5): rgmii, tx-delay 2 ns")
	},
}

// rtl8211fBoard completes a board of the three, which share the RTL8211F at MDIO
// address 0 with its reset timing, a DT of rgmii + 2 ns (dtSource says from which
// tree), the CPU model and the Odroid-C1's link parameters.
func rtl8211fBoard(b Board, dtSource string) Board {
	b.CPU, b.CPUOtherReading = odroidC1CPU, odroidC1CPURIWTReload
	b.DWMAC = meson8DWMAC
	b.PHY, b.PHYID = "rtl8211f", RTL8211FID
	b.DT = DT{PhyMode: "rgmii", TXDelayNS: u32(2), PHYAddr: 0,
		PHYResetAssertUs: 10000, PHYResetDeassertUs: 30000, Source: dtSource}
	b.TX, b.RX, b.TXMechanismB = txLink(), rxLink(), txLinkMechanismB()
	return b
}

// Names lists the known boards, sorted.
func Names() []string {
	names := make([]string, 0, len(boards))
	for n := range boards {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns a fresh copy of the named board; the error lists the valid names.
func Lookup(name string) (Board, error) {
	mk, ok := boards[name]
	if !ok {
		return Board{}, fmt.Errorf("unknown board %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	return mk(), nil
}

// Describe renders the board with every parameter and its provenance, for the CLI.
func (b Board) Describe() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s: %s, SoC %v, PHY %s (%#08x) at MDIO %d, MAC %v\n",
		b.Name, b.Model, b.SoC, b.PHY, b.PHYID, b.DT.PHYAddr, b.MACAddr())
	fmt.Fprintf(&s, "  dt: phy-mode = %q, amlogic,tx-delay-ns = %s, amlogic,rx-delay-ns = %s  [%s]\n",
		b.DT.PhyMode, dtCell(b.DT.TXDelayNS), dtCell(b.DT.RXDelayNS), b.DT.Source)
	fmt.Fprintf(&s, "  phy straps: tx delay %v, rx delay %v  [%s]\n", b.Straps.TXDelay, b.Straps.RXDelay, b.Straps.Source)
	fmt.Fprintf(&s, "  dwmac: clk81 %.3f MHz [%s]; RX watchdog reloaded by every DIC frame: %v [%s]\n",
		float64(b.DWMAC.CSRClockHz)/1e6, b.DWMAC.CSRClockSource, b.DWMAC.RIWTRestart, b.DWMAC.RIWTSource)
	for _, l := range []Link{b.TX, b.RX} {
		fmt.Fprintf(&s, "  %s:\n", l.Direction)
		for _, p := range l.Params() {
			mark := ""
			if p.Calibrated {
				mark = " (calibrated)"
			}
			fmt.Fprintf(&s, "    %-13s %+9.3f ps%s  [%s]\n", p.Name, p.Ps, mark, p.Source)
		}
	}
	if b.Notes != "" {
		fmt.Fprintf(&s, "  notes: %s\n", b.Notes)
	}
	return s.String()
}
