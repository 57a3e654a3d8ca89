package scan

import (
	"fmt"
	"math"
	"sort"
)

// windows finds every MAC window and, with a skew sweep, every skew window.
func windows(r *Result) []Window {
	var out []Window
	for s := range r.skewPoints() {
		for _, phy := range []bool{false, true} {
			start := -1
			for mac := 0; mac <= MACSteps; mac++ {
				pass := mac < MACSteps && r.Cell(mac, phy, s).Pass
				switch {
				case pass && start < 0:
					start = mac
				case !pass && start >= 0:
					skew := r.Cell(start, phy, s).TXSkewPs
					out = append(out, Window{Axis: "mac", PHYTxDelay: phy, MACFrom: start, MACTo: mac - 1,
						SkewFromPs: skew, SkewToPs: skew, Cells: mac - start})
					start = -1
				}
			}
		}
	}
	if !r.SkewSwept() {
		return out
	}
	n := len(r.SkewsPs)
	for _, phy := range []bool{false, true} {
		for mac := range MACSteps {
			start := -1
			for s := 0; s <= n; s++ {
				pass := s < n && r.Cell(mac, phy, s).Pass
				switch {
				case pass && start < 0:
					start = s
				case !pass && start >= 0:
					out = append(out, Window{Axis: "skew", PHYTxDelay: phy, MACFrom: mac, MACTo: mac,
						SkewFromPs: r.SkewsPs[start], SkewToPs: r.SkewsPs[s-1], Cells: s - start,
						Open: start == 0 || s == n})
					start = -1
				}
			}
		}
	}
	return out
}

// skewIndex finds a swept skew's index (0 without a sweep).
func (r *Result) skewIndex(ps float64) int {
	for i, v := range r.SkewsPs {
		if v == ps {
			return i
		}
	}
	return 0
}

// candidate is a window with its middle cell and tie-break keys.
type candidate struct {
	w         Window
	mac, skew int // middle cell
	other     *Window
}

// holdsBoardSkew: the window covers the board's own skew (always true of a MAC
// window without a sweep).
func (c candidate) holdsBoardSkew(r *Result) bool {
	return c.w.SkewFromPs <= r.BoardSkewPs && r.BoardSkewPs <= c.w.SkewToPs
}

// suggest picks the middle of the widest window (package doc for the rules).
func suggest(r *Result) *Suggestion {
	axis := "mac"
	if r.SkewSwept() {
		axis = "skew"
	}
	var cands []candidate
	for _, w := range r.Windows {
		if w.Axis != axis {
			continue
		}
		c := candidate{w: w}
		if axis == "mac" {
			// Rockchip's integer (first + last) / 2: the lower middle.
			c.mac = (w.MACFrom + w.MACTo) / 2
			c.skew = r.skewIndex(w.SkewFromPs)
		} else {
			c.mac = w.MACFrom
			c.skew = (r.skewIndex(w.SkewFromPs) + r.skewIndex(w.SkewToPs)) / 2
			c.other = macWindowThrough(r, c.mac, w.PHYTxDelay, c.skew)
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return nil
	}
	otherLen := func(c candidate) int {
		if c.other == nil {
			return 0
		}
		return c.other.Cells
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.w.Cells != b.w.Cells {
			return a.w.Cells > b.w.Cells
		}
		if ha, hb := a.holdsBoardSkew(r), b.holdsBoardSkew(r); ha != hb {
			return ha
		}
		if otherLen(a) != otherLen(b) {
			return otherLen(a) > otherLen(b)
		}
		if a.w.PHYTxDelay != b.w.PHYTxDelay {
			return !a.w.PHYTxDelay
		}
		if a.mac != b.mac {
			return a.mac < b.mac
		}
		da := math.Abs(r.Cell(a.mac, a.w.PHYTxDelay, a.skew).TXSkewPs - r.BoardSkewPs)
		db := math.Abs(r.Cell(b.mac, b.w.PHYTxDelay, b.skew).TXSkewPs - r.BoardSkewPs)
		return da < db
	})
	best := cands[0]
	cell := r.Cell(best.mac, best.w.PHYTxDelay, best.skew)
	return &Suggestion{
		MACTxDelaySteps: cell.MACTxDelaySteps, TxDelayNs: cell.TxDelayNs, PHYTxDelay: cell.PHYTxDelay,
		TXSkewPs: cell.TXSkewPs, Window: best.w, MACWindow: best.other,
		DeviceTree: deviceTree(cell.MACTxDelaySteps, cell.PHYTxDelay),
	}
}

// macWindowThrough is the MAC window containing a cell, if any.
func macWindowThrough(r *Result, mac int, phy bool, skew int) *Window {
	ps := r.Cell(mac, phy, skew).TXSkewPs
	for _, w := range r.Windows {
		if w.Axis == "mac" && w.PHYTxDelay == phy && w.SkewFromPs == ps && w.MACFrom <= mac && mac <= w.MACTo {
			return &w
		}
	}
	return nil
}

// deviceTree says how Linux v5.5 asks for a setting: the glue programs TXDLY
// only for "rgmii" and "rgmii-rxid" and zero for "rgmii-txid" / "rgmii-id", for
// which the Realtek driver turns the PHY's TX delay on.
func deviceTree(mac int, phy bool) string {
	switch {
	case !phy:
		return fmt.Sprintf("phy-mode = \"rgmii\"; amlogic,tx-delay-ns = <%d>;", 2*mac)
	case mac == 0:
		return "phy-mode = \"rgmii-txid\"; amlogic,tx-delay-ns = <0>; (the PHY adds the TX delay)"
	}
	return fmt.Sprintf("no v5.5 device tree: phy-mode = \"rgmii\"; amlogic,tx-delay-ns = <%d>; "+
		"then set the RTL8211F TX delay by hand (page 0xd08 reg 0x11 bit 8)", 2*mac)
}
