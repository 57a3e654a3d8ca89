package sim

import (
	"fmt"
	"io"

	"mesonemu/farend"
	"mesonemu/linux/stmmac"
	"mesonemu/platform"
)

// Counter is one named counter of a run's link report (ethtool -S style),
// grouped by the stage that counts it; the main job and `wire` list theirs as
// these.
type Counter struct {
	Where string `json:"where"`
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// WriteCounters prints counters under a heading, one group per stage.
func WriteCounters(w io.Writer, cs []Counter) {
	fmt.Fprintf(w, "\nLink counters (ethtool -S style):\n")
	last := ""
	for _, c := range cs {
		if c.Where != last {
			fmt.Fprintf(w, "  %s:\n", c.Where)
			last = c.Where
		}
		fmt.Fprintf(w, "    %-28s %d\n", c.Name, c.Value)
	}
}

// LinkCounters lists the emulated link's own counters in the order a frame
// meets them: the board's MAC statistics (those not zero, and the ones always
// listed), the RGMII wire both ways, the PC's NIC. The main job and wire list
// them so; each adds the stages around them that it has.
func LinkCounters(mac []stmmac.Stat, path platform.PathCounters, pcNIC farend.Stats) []Counter {
	var out []Counter
	for _, c := range mac {
		if c.Value != 0 || stmmac.AlwaysListed(c.Name) {
			out = append(out, Counter{Where: "board eth0 (stmmac)", Name: c.Name, Value: c.Value})
		}
	}
	for _, c := range []struct {
		name string
		v    uint64
	}{
		{"tx_frames", path.TxFromMAC}, {"tx_damaged", path.TxWireDamaged}, {"tx_no_clock", path.TxNoClock},
		{"tx_no_link", path.TxNoLink}, {"tx_bad_timing", path.TxBadTiming}, {"tx_at_far_end", path.TxAtFarEnd},
		{"rx_frames", path.RxFromFarEnd}, {"rx_no_link", path.RxNoLink}, {"rx_bad_timing", path.RxBadTiming},
		{"rx_damaged", path.RxWireDamaged}, {"rx_sfd_lost", path.RxSFDLost}, {"rx_at_mac", path.RxAtMAC},
	} {
		out = append(out, Counter{Where: "rgmii wire", Name: c.name, Value: c.v})
	}
	for _, c := range pcNIC.Counters() {
		out = append(out, Counter{Where: "pc nic", Name: c.Name, Value: c.Value})
	}
	return out
}
