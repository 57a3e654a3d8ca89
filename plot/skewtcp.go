package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"mesonemu/scan"
)

// SkewTCP draws a scan's iperf3 sweep along the TX skew (scan --tcp with a
// skew sweep): throughput above, retransmits below, both against the skew,
// with the board's own skew and the TCP collapse edge (the skew nearest the
// full-rate side where throughput falls below half the best) marked.
func SkewTCP(w io.Writer, format string, r *scan.Result, size Size) error {
	if r == nil || len(r.Skew) < 2 || r.SkewSetting == nil {
		return errors.New("plot: no iperf3 sweep along the skew in this scan (scan --tcp with --skew-from/--skew-to/--skew-step)")
	}
	var tput, retr plotter.XYs
	best := 0.0
	for i, p := range r.Skew {
		if !finitePs(p.SkewPs) || math.IsNaN(p.ThroughputBps) || p.ThroughputBps < 0 || i > 0 && p.SkewPs <= r.Skew[i-1].SkewPs {
			return errors.New("plot: skew sweep points must be finite, ascending, with throughput >= 0")
		}
		tput = append(tput, plotter.XY{X: p.SkewPs, Y: p.ThroughputBps / 1e6})
		retr = append(retr, plotter.XY{X: p.SkewPs, Y: float64(p.Retransmits)})
		best = math.Max(best, p.ThroughputBps)
	}
	edge, hasEdge := collapseEdge(r.Skew, best)
	s := r.SkewSetting
	title := fmt.Sprintf("iperf3 along the TX skew: %s, %s driver, TXDLY %d (%d ns), PHY TX delay %s, %g s per point",
		r.Board, r.Driver, s.MACTxDelaySteps, 2*s.MACTxDelaySteps, onOff(s.PHYTxDelay), r.TCPSeconds)
	top := newPlot(title)
	top.Y.Label.Text = "throughput (Mbit/s)"
	top.Y.Min = 0
	bottom := newPlot("")
	bottom.Y.Label.Text = "retransmits"
	bottom.X.Label.Text = "board TX skew (ps)"
	bottom.Y.Min = 0
	for _, p := range []*gplot.Plot{top, bottom} {
		p.X.Min, p.X.Max = r.Skew[0].SkewPs, r.Skew[len(r.Skew)-1].SkewPs
	}
	for _, c := range []struct {
		p  *gplot.Plot
		xy plotter.XYs
		cl color.Color
	}{{top, tput, color.RGBA{B: 200, A: 255}}, {bottom, retr, color.RGBA{R: 200, A: 255}}} {
		l, pts, err := plotter.NewLinePoints(c.xy)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		l.Color, pts.Color = c.cl, c.cl
		c.p.Add(l, pts)
	}
	ymax := []float64{best / 1e6, 1}
	for _, p := range r.Skew {
		ymax[1] = math.Max(ymax[1], float64(p.Retransmits))
	}
	for i, p := range []*gplot.Plot{top, bottom} {
		mark(p, r.BoardSkewPs, ymax[i], color.RGBA{G: 140, A: 255}, "board's own skew", i == 0)
		if hasEdge {
			mark(p, edge, ymax[i], color.Gray{Y: 90}, "TCP collapse edge", i == 0)
		}
	}
	return render(w, format, size, func(c draw.Canvas) error {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(6), PadRight: vg.Points(10), PadY: vg.Points(8)}
		canvases := gplot.Align([][]*gplot.Plot{{top}, {bottom}}, tiles, c)
		top.Draw(canvases[0][0])
		bottom.Draw(canvases[1][0])
		return nil
	})
}

// collapseEdge is the skew where throughput, coming from the best point
// toward the lossy side, first falls below half the best.
func collapseEdge(pts []scan.SkewPoint, best float64) (float64, bool) {
	bi := 0
	for i, p := range pts {
		if p.ThroughputBps == best {
			bi = i
			break
		}
	}
	for _, dir := range []int{-1, 1} {
		for i := bi + dir; i >= 0 && i < len(pts); i += dir {
			if pts[i].ThroughputBps < best/2 {
				return pts[i].SkewPs, true
			}
		}
	}
	return 0, false
}

// mark draws a dashed vertical line at x (inside the plot's x range only).
func mark(p *gplot.Plot, x, ymax float64, c color.Color, name string, legend bool) {
	if x < p.X.Min || x > p.X.Max {
		return
	}
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: ymax}})
	if err != nil {
		return
	}
	l.Color = c
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	if legend {
		p.Legend.Add(name, l)
		p.Legend.Top = true
		p.Legend.Left = true
	}
}
