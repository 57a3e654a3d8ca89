package board

import "fmt"

// Lines is the number of RGMII data lines per direction.
const Lines = 4

// Link is one RGMII direction's electrical parameters at the receiving flop, in
// picoseconds. Field names match rgmiiwire.Timing so the board assembly copies them
// across one by one; the MAC delay is not here because the silicon (package soc)
// derives it from registers.
type Link struct {
	// Direction is "TX (MAC->PHY)" or "RX (PHY->MAC)".
	Direction string
	// SetupPs and HoldPs are the receiver's aperture before and after its edge.
	SetupPs, HoldPs float64
	// JitterSigmaPs is the lumped Gaussian σ between clock and data edges.
	JitterSigmaPs float64
	// PHYDelayPs is the PHY's internal clock delay, applied when the PHY enables it
	// (TX: RTL8211F page 0xd08 reg 0x11 bit 8; RX: page 0xd08 reg 0x15 bit 3).
	PHYDelayPs float64
	// BoardSkewPs is s0: clock-path minus data-path delay on board and pads, common
	// to the four data lines; positive means the clock arrives late.
	BoardSkewPs float64
	// LineSkewPs is each data line's extra trace skew.
	LineSkewPs [Lines]float64
	// Source says where each value comes from.
	Source LinkSource
}

// LinkSource is the provenance of each Link value, as the CLI prints it.
type LinkSource struct {
	Setup, Hold, JitterSigma, PHYDelay, BoardSkew, LineSkew string
	// Calibrated names the one parameter fitted to a measurement ("" if none).
	Calibrated string
}

// Param is one named value with its provenance, for printing.
type Param struct {
	Name       string
	Ps         float64
	Source     string
	Calibrated bool
}

// Params lists the link's values in a fixed order with their sources.
func (l Link) Params() []Param {
	ps := []Param{
		{"setup", l.SetupPs, l.Source.Setup, false},
		{"hold", l.HoldPs, l.Source.Hold, false},
		{"jitter_sigma", l.JitterSigmaPs, l.Source.JitterSigma, false},
		{"phy_delay", l.PHYDelayPs, l.Source.PHYDelay, false},
		{"board_skew", l.BoardSkewPs, l.Source.BoardSkew, false},
	}
	for i, s := range l.LineSkewPs {
		ps = append(ps, Param{fmt.Sprintf("line_skew[%d]", i), s, l.Source.LineSkew, false})
	}
	for i := range ps {
		ps[i].Calibrated = l.Source.Calibrated != "" && ps[i].Name == l.Source.Calibrated
	}
	return ps
}
