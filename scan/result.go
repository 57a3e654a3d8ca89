package scan

import "mesonemu/rgmiiwire"

// Cell is one point of the sweep: one quick TX link test.
type Cell struct {
	// MACTxDelaySteps is the PRG_ETH0 TXDLY value (0..3).
	MACTxDelaySteps int `json:"mac_tx_delay_steps"`
	// TxDelayNs is the amlogic,tx-delay-ns that asked for it (2 × steps).
	TxDelayNs uint32 `json:"tx_delay_ns"`
	// PHYTxDelay is the RTL8211F's internal TX delay bit.
	PHYTxDelay bool `json:"phy_tx_delay"`
	// TXSkewPs is the board's TX skew s0 in force (the calibrated value when the
	// skew is not swept).
	TXSkewPs float64 `json:"tx_skew_ps"`
	Sent     uint64  `json:"sent"`
	Received uint64  `json:"received"`
	// Loss is the measured frame loss, (sent - received) / sent.
	Loss float64 `json:"loss"`
	// PredictedLoss is the analytic frame loss at this frame size.
	PredictedLoss float64 `json:"predicted_loss"`
	// Pass: Loss == 0 and PredictedLoss < PassPredictedLoss.
	Pass bool `json:"pass"`
	// MACDelayPs is the MAC delay the silicon produced for TXDLY (mechanism and
	// clock decide: 4 ns per step pre-fix, 2 ns fixed under mechanism A).
	MACDelayPs float64 `json:"mac_delay_ps"`
	// PHYDelayPs is the PHY's TX delay in force (0 when off).
	PHYDelayPs float64 `json:"phy_delay_ps"`
	// TotalDelayPs is MAC + PHY + skew; PhasePs the same modulo the TX clock period.
	TotalDelayPs float64 `json:"total_delay_ps"`
	PhasePs      float64 `json:"phase_ps"`
	// WrongHalf: the PHY samples the wrong nibble; every frame is lost.
	WrongHalf bool `json:"wrong_half"`
	// SetupMarginPs and HoldMarginPs are the limiting line's margins.
	SetupMarginPs float64 `json:"setup_margin_ps"`
	HoldMarginPs  float64 `json:"hold_margin_ps"`
	// Error is why the cell could not be run (it then does not pass).
	Error string `json:"error,omitempty"`
	// Budget is the TX timing budget in force, for plots.
	Budget rgmiiwire.Budget `json:"-"`
	// TCPResult is the cell's iperf3 test (Options.TCP); nil without one. Its
	// fields join the cell's in JSON.
	*TCPResult
}

// TCPResult is one cell's iperf3 test. A cell whose link is dead (no test
// frame got through) gets no test: 0 bit/s, and the frame test's loss.
type TCPResult struct {
	ThroughputBps float64 `json:"throughput_bps"`
	Retransmits   uint64  `json:"retransmits"`
	// MeasuredFrameLoss is the share of the board's data frames the wire broke
	// (with Reverse the board sends only ACKs, so 0).
	MeasuredFrameLoss float64 `json:"measured_frame_loss"`
	PathRTTMicros     float64 `json:"path_rtt_us"`
	LinkDead          bool    `json:"link_dead,omitempty"`
}

// Window is a maximal run of adjacent passing cells along one axis.
type Window struct {
	// Axis is "mac" (along the TXDLY steps, at one skew) or "skew" (along the
	// swept skews, at one TXDLY step).
	Axis       string `json:"axis"`
	PHYTxDelay bool   `json:"phy_tx_delay"`
	// MACFrom..MACTo are the TXDLY steps (equal for a skew window).
	MACFrom int `json:"mac_from"`
	MACTo   int `json:"mac_to"`
	// SkewFromPs..SkewToPs are the skews (equal for a MAC window).
	SkewFromPs float64 `json:"skew_from_ps"`
	SkewToPs   float64 `json:"skew_to_ps"`
	// Cells is the window's length in cells.
	Cells int `json:"cells"`
	// Open marks a skew window that touches an end of the swept range: the
	// passing region may extend beyond it, so its middle is only the middle of
	// what was swept.
	Open bool `json:"open,omitempty"`
}

// Suggestion is the middle of the widest window.
type Suggestion struct {
	MACTxDelaySteps int     `json:"mac_tx_delay_steps"`
	TxDelayNs       uint32  `json:"tx_delay_ns"`
	PHYTxDelay      bool    `json:"phy_tx_delay"`
	TXSkewPs        float64 `json:"tx_skew_ps"`
	// Window is the window the suggestion is the middle of; with a skew sweep it
	// is a skew window and MACWindow is the MAC window through the same cell.
	Window    Window  `json:"window"`
	MACWindow *Window `json:"mac_window,omitempty"`
	// DeviceTree says how a v5.5 device tree asks for the setting.
	DeviceTree string `json:"device_tree"`
}

// Result is a whole scan.
type Result struct {
	Board     string `json:"board"`
	Driver    string `json:"driver"`
	Mechanism string `json:"mechanism"`
	Frames    int    `json:"frames"`
	Size      int    `json:"size"`
	Payload   string `json:"payload"`
	Seed      uint64 `json:"seed"`
	// BoardSkewPs is the board's own (calibrated) TX skew.
	BoardSkewPs float64 `json:"board_skew_ps"`
	// SkewsPs is the swept skew axis, ascending; empty without a sweep.
	SkewsPs []float64 `json:"skews_ps,omitempty"`
	// Cells are ordered by skew, then PHY off before on, then TXDLY step.
	Cells   []Cell   `json:"cells"`
	Windows []Window `json:"windows"`
	// Suggested is nil when no cell passes.
	Suggested *Suggestion `json:"suggested"`
	// TCPSeconds is each cell's iperf3 test length (0: no TCP tests); Reverse
	// says the PC sent.
	TCPSeconds float64 `json:"tcp_seconds,omitempty"`
	// Unfinished counts the cells whose iperf3 test Ctrl-C stopped: they have
	// no TCPResult.
	Unfinished int  `json:"unfinished,omitempty"`
	Reverse    bool `json:"reverse,omitempty"`
	// Interrupted says ctx ended the iperf3 tests (Ctrl-C).
	Interrupted bool `json:"interrupted,omitempty"`
	// Skew is the iperf3 result along the swept skew at Options.Setting (TCP
	// with a skew sweep), ascending skew.
	Skew        []SkewPoint `json:"skew,omitempty"`
	SkewSetting *Setting    `json:"skew_setting,omitempty"`
}

// SkewPoint is one skew of the sweep at the chosen setting: the cell's
// iperf3 result with its skew and predicted loss (the fields join in JSON).
type SkewPoint struct {
	SkewPs             float64 `json:"skew_ps"`
	PredictedFrameLoss float64 `json:"predicted_frame_loss"`
	TCPResult
}

// SkewSwept reports whether the skew axis was swept.
func (r *Result) SkewSwept() bool { return len(r.SkewsPs) > 0 }

// skewPoints is the number of points on the skew axis (1 without a sweep).
func (r *Result) skewPoints() int { return max(len(r.SkewsPs), 1) }

// cellIndex is where a cell lives in Cells.
func cellIndex(mac int, phy bool, skew int) int {
	i := skew*2*MACSteps + mac
	if phy {
		i += MACSteps
	}
	return i
}

// Cell returns the cell at TXDLY step mac, PHY setting phy and skew index skew
// (0 without a sweep); nil when out of range.
func (r *Result) Cell(mac int, phy bool, skew int) *Cell {
	if mac < 0 || mac >= MACSteps || skew < 0 || skew >= r.skewPoints() {
		return nil
	}
	i := cellIndex(mac, phy, skew)
	if i >= len(r.Cells) {
		return nil
	}
	return &r.Cells[i]
}
