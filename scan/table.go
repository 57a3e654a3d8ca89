package scan

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Map symbols, one per cell.
const (
	SymPass     = 'O' // measured 0 and predicted < PassPredictedLoss
	SymMarginal = '-' // no frame lost in the quick test, but the model predicts loss ≥ 1e-9
	SymLossy    = 'x' // some frames lost
	SymDead     = 'X' // every frame lost
	SymError    = 'E' // the cell could not be run
)

// Symbol is the map character of a cell.
func (c Cell) Symbol() rune {
	switch {
	case c.Error != "":
		return SymError
	case c.Pass:
		return SymPass
	case c.Sent > 0 && c.Received == 0:
		return SymDead
	case c.Received < c.Sent:
		return SymLossy
	}
	return SymMarginal
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// WriteTable prints the scan as Rockchip's tool does: a pass/fail map, then the
// suggestion. Without a skew sweep it adds one line of numbers per cell; with
// one, the per-cell numbers are in the JSON.
func (r *Result) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "RGMII TX delay scan: board %s, driver %s, TX delay mechanism %s\n", r.Board, r.Driver, r.Mechanism)
	fmt.Fprintf(bw, "each cell: %d frames of %d bytes, %s payload, TX only, seed %d; phy-mode %q, TXDLY = tx-delay-ns / 2\n",
		r.Frames, r.Size, r.Payload, r.Seed, PhyMode)
	if r.SkewSwept() {
		r.writeSkewMap(bw)
	} else {
		fmt.Fprintf(bw, "board TX skew %.3f ps (the board's own)\n\n", r.BoardSkewPs)
		r.writeMACMap(bw)
	}
	fmt.Fprintf(bw, "\n%c pass (0 lost, predicted < %.0e)   %c 0 lost but predicted >= %.0e   %c some lost   %c all lost   %c error\n",
		SymPass, PassPredictedLoss, SymMarginal, PassPredictedLoss, SymLossy, SymDead, SymError)
	if !r.SkewSwept() {
		fmt.Fprintln(bw)
		r.writeCells(bw)
	}
	if len(r.Skew) > 0 {
		fmt.Fprintln(bw)
		r.writeSkewTCP(bw)
	}
	if r.Unfinished > 0 {
		fmt.Fprintf(bw, "(interrupted: %d iperf3 tests unfinished, their columns left empty)\n", r.Unfinished)
	}
	fmt.Fprintln(bw)
	r.writeSuggestion(bw)
	return bw.Flush()
}

func (r *Result) writeMACMap(w io.Writer) {
	fmt.Fprintf(w, "                     PHY TX delay\n")
	fmt.Fprintf(w, "TXDLY (tx-delay-ns)   off    on      MAC delay the silicon made\n")
	for mac := range MACSteps {
		off, on := r.Cell(mac, false, 0), r.Cell(mac, true, 0)
		fmt.Fprintf(w, "  %d   (%d ns)           %c     %c      %8.3f ns\n", mac, 2*mac, off.Symbol(), on.Symbol(), off.MACDelayPs/1000)
	}
}

// writeSkewMap prints one row per (TXDLY, PHY) and one column per skew, with a
// '|' ruler every ten columns.
func (r *Result) writeSkewMap(w io.Writer) {
	n := len(r.SkewsPs)
	fmt.Fprintf(w, "TX skew swept: %.3f .. %.3f ps, %d points (board's own %.3f ps)\n", r.SkewsPs[0], r.SkewsPs[n-1], n, r.BoardSkewPs)
	var ruler, labels strings.Builder
	for i := range n {
		if i%10 == 0 {
			ruler.WriteByte('|')
			labels.WriteString(fmt.Sprintf("  col %d = %.3f ps", i, r.SkewsPs[i]))
		} else {
			ruler.WriteByte(' ')
		}
	}
	fmt.Fprintf(w, "rulers:%s\n\n", labels.String())
	fmt.Fprintf(w, "%-22s%s\n", "", ruler.String())
	for _, phy := range []bool{false, true} {
		for mac := range MACSteps {
			var row strings.Builder
			for s := range n {
				row.WriteRune(r.Cell(mac, phy, s).Symbol())
			}
			fmt.Fprintf(w, "TXDLY %d (%d ns) PHY %-3s %s\n", mac, 2*mac, onOff(phy), row.String())
		}
	}
}

func (r *Result) writeCells(w io.Writer) {
	tcpHead := ""
	if r.TCPSeconds > 0 {
		tcpHead = "   iperf3 throughput  retr  data lost  path RTT"
	}
	fmt.Fprintf(w, "TXDLY  PHY   MAC ps     total ps   phase ps   setup / hold margin ps   lost / sent      loss     predicted  pass%s\n", tcpHead)
	for _, c := range r.Cells {
		if c.Error != "" {
			fmt.Fprintf(w, "  %d    %-3s   error: %s\n", c.MACTxDelaySteps, onOff(c.PHYTxDelay), c.Error)
			continue
		}
		phase := fmt.Sprintf("%8.1f", c.PhasePs)
		if c.WrongHalf {
			phase = "wrong half"
		}
		pass := "no"
		if c.Pass {
			pass = "yes"
		}
		if c.TCPResult != nil {
			pass = fmt.Sprintf("%-3s", pass) // the iperf3 columns follow
		}
		fmt.Fprintf(w, "  %d    %-3s %8.1f   %9.1f  %10s  %8.1f / %8.1f     %6d / %-6d  %8.2e  %9.2e   %s%s\n",
			c.MACTxDelaySteps, onOff(c.PHYTxDelay), c.MACDelayPs, c.TotalDelayPs, phase,
			c.SetupMarginPs, c.HoldMarginPs, c.Sent-c.Received, c.Sent, c.Loss, c.PredictedLoss, pass, c.tcpColumns())
	}
}

// writeSkewTCP prints iperf3 along the swept skew: the bathtub in Mbit/s.
func (r *Result) writeSkewTCP(w io.Writer) {
	c := r.SkewSetting
	fmt.Fprintf(w, "iperf3 along the TX skew at TXDLY %d (%d ns), PHY TX delay %s, %g s per point:\n",
		c.MACTxDelaySteps, 2*c.MACTxDelaySteps, onOff(c.PHYTxDelay), r.TCPSeconds)
	fmt.Fprintf(w, "  skew ps   predicted    throughput    retr  data lost\n")
	for _, p := range r.Skew {
		if p.LinkDead {
			fmt.Fprintf(w, "  %7.1f   %9.2e     link dead\n", p.SkewPs, p.PredictedFrameLoss)
			continue
		}
		fmt.Fprintf(w, "  %7.1f   %9.2e  %7.1f Mbit/s  %6d  %8.3f%%\n", p.SkewPs, p.PredictedFrameLoss, p.ThroughputBps/1e6, p.Retransmits, 100*p.MeasuredFrameLoss)
	}
}

// tcpColumns are a cell's iperf3 numbers in the per-cell table ("" without).
func (c Cell) tcpColumns() string {
	t := c.TCPResult
	switch {
	case t == nil:
		return ""
	case t.LinkDead:
		return "     link dead"
	}
	return fmt.Sprintf("  %8.1f Mbit/s  %6d  %8.3f%%  %6.0f us", t.ThroughputBps/1e6, t.Retransmits, 100*t.MeasuredFrameLoss, t.PathRTTMicros)
}

func (r *Result) writeSuggestion(w io.Writer) {
	s := r.Suggested
	if s == nil {
		fmt.Fprintln(w, "No passing cell: no suitable TX delay setting found.")
		return
	}
	fmt.Fprintf(w, "Find suitable TXDLY = %d (amlogic,tx-delay-ns = <%d>), PHY TX delay %s", s.MACTxDelaySteps, s.TxDelayNs, onOff(s.PHYTxDelay))
	if r.SkewSwept() {
		fmt.Fprintf(w, ", centred at TX skew %.3f ps\n", s.TXSkewPs)
		fmt.Fprintf(w, "  middle of the widest skew window: %.3f .. %.3f ps (%d points)", s.Window.SkewFromPs, s.Window.SkewToPs, s.Window.Cells)
		if s.Window.Open {
			fmt.Fprint(w, " (open: it reaches an end of the sweep)")
		}
		if s.MACWindow != nil {
			fmt.Fprintf(w, "; MAC window there: TXDLY %d..%d", s.MACWindow.MACFrom, s.MACWindow.MACTo)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "\n  middle of the widest MAC window: TXDLY %d..%d with PHY TX delay %s (%d of %d steps)\n",
			s.Window.MACFrom, s.Window.MACTo, onOff(s.Window.PHYTxDelay), s.Window.Cells, MACSteps)
	}
	fmt.Fprintf(w, "  device tree: %s\n", s.DeviceTree)
}

// WriteJSON writes the result as one indented JSON object {"cells": [...],
// "suggested": ..., ...}.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("scan: json: %w", err)
	}
	return nil
}
