package realtek

import "strings"

// LinkModes is the subset of Linux's ethtool link-mode bits a 10/100/1000BASE-T
// PHY uses: the advertising and lp_advertising masks.
type LinkModes uint16

// Link-mode bits.
const (
	Link10Half LinkModes = 1 << iota
	Link10Full
	Link100Half
	Link100Full
	Link1000Half
	Link1000Full
	LinkPause
	LinkAsymPause
	// LinkAutoneg in lp_advertising: the partner acknowledged our page (LPA_LPACK).
	LinkAutoneg
)

// GbitFeatures is PHY_GBIT_FEATURES, what the RTL8211F driver declares
// statically (docs/reference/rtl8211f.md §1).
const GbitFeatures = Link10Half | Link10Full | Link100Half | Link100Full | Link1000Half | Link1000Full

// DefaultAdvertising is what v5.5 advertises on the Odroid-C1: the PHY's
// features, which stmmac's phylink validate leaves whole for a single-queue
// GMAC, plus Pause and Asym_Pause (phy_probe marks both supported unless the
// driver says otherwise). Assumption: the stmmac mask is from memory of v5.5's
// stmmac_validate, not checked line by line.
const DefaultAdvertising = GbitFeatures | LinkPause | LinkAsymPause

// settings is phy-core.c's settings[] order restricted to twisted pair:
// phy_resolve_aneg_linkmode takes the first common entry.
var settings = []struct {
	mode  LinkModes
	speed int
	full  bool
}{
	{Link1000Full, 1000, true},
	{Link1000Half, 1000, false},
	{Link100Full, 100, true},
	{Link100Half, 100, false},
	{Link10Full, 10, true},
	{Link10Half, 10, false},
}

var modeNames = []struct {
	mode LinkModes
	name string
}{
	{Link10Half, "10baseT/Half"}, {Link10Full, "10baseT/Full"},
	{Link100Half, "100baseT/Half"}, {Link100Full, "100baseT/Full"},
	{Link1000Half, "1000baseT/Half"}, {Link1000Full, "1000baseT/Full"},
	{LinkPause, "Pause"}, {LinkAsymPause, "Asym_Pause"}, {LinkAutoneg, "Autoneg"},
}

// String lists the modes in ethtool's spelling.
func (m LinkModes) String() string {
	var parts []string
	for _, n := range modeNames {
		if m&n.mode != 0 {
			parts = append(parts, n.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// modeBit pairs a link mode with its bit in an MII register.
type modeBit struct {
	mode LinkModes
	bit  uint16
}

// The link modes of ANAR (the partner's ANLPAR has the same layout, plus the
// acknowledge bit), of GBCR and of GBSR.
var (
	anarModes = []modeBit{
		{Link10Half, advertise10Half}, {Link10Full, advertise10Full},
		{Link100Half, advertise100Half}, {Link100Full, advertise100Full},
		{LinkPause, advertisePauseCap}, {LinkAsymPause, advertisePauseAsm},
	}
	anlparModes = append(anarModes[:len(anarModes):len(anarModes)], modeBit{LinkAutoneg, lpaLPAck})
	gbcrModes   = []modeBit{{Link1000Half, advertise1000Half}, {Link1000Full, advertise1000Full}}
	gbsrModes   = []modeBit{{Link1000Half, lpa1000Half}, {Link1000Full, lpa1000Full}}
)

// modesToBits sets the bit of every mode of m that table has.
func modesToBits(m LinkModes, table []modeBit) uint16 {
	var v uint16
	for _, b := range table {
		if m&b.mode != 0 {
			v |= b.bit
		}
	}
	return v
}

// bitsToModes is the set of modes whose bit v has.
func bitsToModes(v uint16, table []modeBit) LinkModes {
	var m LinkModes
	for _, b := range table {
		if v&b.bit != 0 {
			m |= b.mode
		}
	}
	return m
}

// advToMII is linkmode_adv_to_mii_adv_t: the ANAR bits.
func advToMII(m LinkModes) uint16 { return modesToBits(m, anarModes) }

// advToCtrl1000 is linkmode_adv_to_mii_ctrl1000_t: the GBCR bits.
func advToCtrl1000(m LinkModes) uint16 { return modesToBits(m, gbcrModes) }

// lpaToModes is mii_lpa_mod_linkmode_lpa_t's result for ANLPAR.
func lpaToModes(lpa uint16) LinkModes { return bitsToModes(lpa, anlparModes) }

// stat1000ToModes is mii_stat1000_mod_linkmode_lpa_t's result for GBSR.
func stat1000ToModes(v uint16) LinkModes { return bitsToModes(v, gbsrModes) }
