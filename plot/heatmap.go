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

// lossPalette runs from green (no loss) through pale yellow to red (every frame
// lost): ColorBrewer's RdYlGn, reversed, interpolated to 64 colours. Lossy
// cells use only its part from lossyFrom on.
type lossPalette struct{}

func (lossPalette) Colors() []color.Color {
	stops := []struct {
		at      float64
		r, g, b float64
	}{{0, 65, 171, 93}, {0.35, 166, 217, 106}, {0.55, 254, 224, 139}, {0.8, 244, 109, 67}, {1, 165, 0, 38}}
	const n = 64
	out := make([]color.Color, n)
	for i := range out {
		x := float64(i) / (n - 1)
		k := 1
		for k < len(stops)-1 && x > stops[k].at {
			k++
		}
		a, b := stops[k-1], stops[k]
		f := (x - a.at) / (b.at - a.at)
		mix := func(p, q float64) uint8 { return uint8(math.Round(p + f*(q-p))) }
		out[i] = color.NRGBA{R: mix(a.r, b.r), G: mix(a.g, b.g), B: mix(a.b, b.b), A: 255}
	}
	return out
}

// grid holds a map's coordinates and values.
type grid struct {
	xs, ys []float64
	z      [][]float64 // z[col][row]
}

func (g grid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g grid) Z(c, r int) float64 { return g.z[c][r] }
func (g grid) X(c int) float64    { return g.xs[c] }
func (g grid) Y(r int) float64    { return g.ys[r] }
func (g grid) Min() float64       { return 0 } // set by the caller on the HeatMap
func (g grid) Max() float64       { return 0 }
func newGrid(cols, rows int) grid {
	return grid{xs: make([]float64, cols), ys: make([]float64, rows), z: make2(cols, rows)}
}
func make2(c, r int) [][]float64 {
	z := make([][]float64, c)
	for i := range z {
		z[i] = make([]float64, r)
	}
	return z
}

// lossScale is the colour scale: log10 of the measured loss from lo to 0, a cell
// with no lost frame at lo (at least half a decade below one lost frame).
func lossScale(frames int) (lo float64) {
	return math.Floor(math.Log10(1/float64(max(frames, 1))) - 0.5)
}

func cellValue(c *scan.Cell, lo float64) float64 {
	switch {
	case c.Error != "" || c.Sent == 0:
		return math.NaN()
	case c.Loss <= 0:
		return lo
	}
	return math.Max(math.Log10(c.Loss), lo)
}

// checkScan refuses results whose shape the map cannot draw.
func checkScan(r *scan.Result) error {
	if r == nil {
		return errors.New("plot: no scan result")
	}
	points := max(len(r.SkewsPs), 1)
	if len(r.SkewsPs) > scan.MaxSkewPoints || len(r.Cells) != points*2*scan.MACSteps {
		return fmt.Errorf("plot: scan result has %d cells for %d skews: want %d", len(r.Cells), points, points*2*scan.MACSteps)
	}
	for i, v := range r.SkewsPs {
		if !finitePs(v) || (i > 0 && v <= r.SkewsPs[i-1]) {
			return errors.New("plot: scan skews must be finite and ascending")
		}
	}
	return nil
}

// ScanMap draws a scan result as a heat map coloured by log10 of the measured
// loss, with passing cells outlined (or dotted, with a skew sweep) and the
// suggested cell marked. Without a skew sweep the map is TXDLY × PHY TX delay,
// each cell annotated with its numbers; with one it is (TXDLY, PHY) × skew.
func ScanMap(w io.Writer, format string, r *scan.Result, size Size) error {
	if err := checkScan(r); err != nil {
		return err
	}
	lo := lossScale(r.Frames)
	return render(w, format, size, func(c draw.Canvas) error {
		var p *gplot.Plot
		if r.SkewSwept() {
			p = skewMap(r, lo)
		} else {
			p = macMap(r, lo)
		}
		barW := vg.Points(95)
		// A little left margin: gonum sets long tick labels flush with the edge.
		mapC := draw.Crop(c, vg.Points(6), -barW, 0, 0)
		p.Draw(mapC)
		// The bar spans exactly the map's data area.
		data := p.DataCanvas(mapC)
		barC := c
		barC.Min = vg.Point{X: c.Max.X - barW, Y: data.Min.Y}
		barC.Max = vg.Point{X: c.Max.X - vg.Points(8), Y: data.Max.Y}
		colourBar(r.Frames, lo).Draw(barC)
		return nil
	})
}

func scanTitle(r *scan.Result) string {
	t := fmt.Sprintf("TX delay scan: %s, %s driver, mechanism %s; %d frames of %d bytes per cell, %s payload\n",
		r.Board, r.Driver, r.Mechanism, r.Frames, r.Size, r.Payload)
	if s := r.Suggested; s != nil {
		t += fmt.Sprintf("suggested: TXDLY %d (tx-delay-ns %d), PHY TX delay %s", s.MACTxDelaySteps, s.TxDelayNs, onOff(s.PHYTxDelay))
		if r.SkewSwept() {
			t += fmt.Sprintf(", centred at skew %.0f ps", s.TXSkewPs)
		}
	} else {
		t += "no passing cell"
	}
	return t + fmt.Sprintf("; pass = 0 lost and predicted < %.0e", scan.PassPredictedLoss)
}

func heat(g grid, lo float64) *cells {
	return &cells{g: g, lo: lo, hi: 0, pal: lossPalette{}.Colors(), nan: color.NRGBA{R: 160, G: 160, B: 160, A: 255}}
}

// cells draws a grid as coloured rectangles meeting half-way between
// neighbouring coordinates, as gonum's HeatMap does, but each one overlapping
// its neighbours by a hair: anti-aliased shared edges otherwise leave white
// seams, and gonum's rasterized mode blurs the cells together.
type cells struct {
	g      grid
	lo, hi float64
	pal    []color.Color
	nan    color.Color
}

// edges are the cell boundaries along one axis: midpoints, and half a step
// (or 0.5 for a single value) beyond the ends.
func edges(v []float64) []float64 {
	n := len(v)
	e := make([]float64, n+1)
	if n == 1 {
		e[0], e[1] = v[0]-0.5, v[0]+0.5
		return e
	}
	for i := 1; i < n; i++ {
		e[i] = (v[i-1] + v[i]) / 2
	}
	e[0] = v[0] - (v[1]-v[0])/2
	e[n] = v[n-1] + (v[n-1]-v[n-2])/2
	return e
}

// lossyFrom is where on the palette a cell with any lost frame starts: a
// lost frame fails the cell, so lossy cells take only the yellow-to-red part
// and even 8 of 2000 frames is orange, far from a clean cell's green.
const lossyFrom = 0.55

func (h *cells) colour(v float64) color.Color {
	if math.IsNaN(v) || !(h.hi > h.lo) {
		return h.nan
	}
	if v <= h.lo { // no frame lost
		return h.pal[0]
	}
	f := (math.Min(v, h.hi) - h.lo) / (h.hi - h.lo)
	f = lossyFrom + (1-lossyFrom)*f
	return h.pal[int(math.Round(f*float64(len(h.pal)-1)))]
}

func (h *cells) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	xe, ye := edges(h.g.xs), edges(h.g.ys)
	hair := vg.Points(0.4)
	for i := range h.g.xs {
		for j := range h.g.ys {
			x0, x1 := trX(xe[i])-hair, trX(xe[i+1])+hair
			y0, y1 := trY(ye[j])-hair, trY(ye[j+1])+hair
			pts := c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			c.FillPolygon(h.colour(h.g.z[i][j]), pts)
		}
	}
}

func (h *cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	xe, ye := edges(h.g.xs), edges(h.g.ys)
	return xe[0], xe[len(xe)-1], ye[0], ye[len(ye)-1]
}

var (
	passStyle    = lineStyle(color.NRGBA{A: 255}, 3)
	suggestStyle = lineStyle(color.NRGBA{R: 20, G: 40, B: 180, A: 255}, 3, vg.Points(6), vg.Points(3))
)

// macMap: TXDLY on x, PHY TX delay on y, numbers in every cell.
func macMap(r *scan.Result, lo float64) *gplot.Plot {
	g := newGrid(scan.MACSteps, 2)
	var ticks gplot.ConstantTicks
	var ns notes
	var marks []gplot.Plotter
	for mac := range scan.MACSteps {
		g.xs[mac] = float64(mac)
		off := r.Cell(mac, false, 0)
		ticks = append(ticks, gplot.Tick{Value: float64(mac),
			Label: fmt.Sprintf("TXDLY %d (tx-delay-ns %d)\nMAC delay %s", mac, 2*mac, ns3(off.MACDelayPs))})
		for row, phy := range []bool{false, true} {
			c := r.Cell(mac, phy, 0)
			g.ys[row] = float64(row)
			g.z[mac][row] = cellValue(c, lo)
			x, y := float64(mac), float64(row)
			ns = append(ns, note{x: x, y: y, text: cellText(c), size: 9.5, color: textOn(g.z[mac][row]),
				xalign: draw.XCenter, yalign: draw.YCenter})
			if c.Pass {
				marks = append(marks, outline(x-0.46, y-0.46, x+0.46, y+0.46, passStyle))
			}
			if s := r.Suggested; s != nil && s.MACTxDelaySteps == mac && s.PHYTxDelay == phy {
				marks = append(marks, outline(x-0.40, y-0.40, x+0.40, y+0.40, suggestStyle))
				ns = append(ns, note{x: x, y: y + 0.40, text: "SUGGESTED", size: 9.5, color: suggestStyle.Color,
					xalign: draw.XCenter, yalign: draw.YTop, dy: -vg.Points(3)})
			}
		}
	}
	p := newPlot(scanTitle(r))
	p.Add(heat(g, lo))
	p.Add(marks...)
	p.Add(ns)
	p.X.Label.Text = "MAC TX delay (PRG_ETH0 TXDLY, phy-mode rgmii) and the delay the silicon made"
	p.Y.Label.Text = "PHY TX delay"
	p.X.Tick.Marker = ticks
	p.Y.Tick.Marker = gplot.ConstantTicks{{Value: 0, Label: "off"}, {Value: 1, Label: "on\n(2 ns)"}}
	p.X.Min, p.X.Max = -0.5, scan.MACSteps-0.5
	p.Y.Min, p.Y.Max = -0.5, 1.5
	return p
}

// textOn picks black or white text for legibility on a cell's colour (the
// palette is dark above 10 % loss).
func textOn(v float64) color.Color {
	if v > -1 {
		return color.White
	}
	return colText
}

func ns3(ps float64) string { return fmt.Sprintf("%.3f ns", ps/1000) }

// cellText is what a cell of the MAC map says about itself.
func cellText(c *scan.Cell) string {
	if c.Error != "" {
		return "error"
	}
	verdict := "FAIL"
	if c.Pass {
		verdict = "PASS"
	}
	phase := "phase " + ns3(c.PhasePs)
	if c.WrongHalf {
		phase = "wrong half (nibble shift)"
	}
	text := fmt.Sprintf("%s\nlost %d / %d\npredicted %.1e\ntotal %s\n%s", verdict, c.Sent-c.Received, c.Sent, c.PredictedLoss, ns3(c.TotalDelayPs), phase)
	if t := c.TCPResult; t != nil && !t.LinkDead {
		text += fmt.Sprintf("\niperf3 %.0f Mbit/s, %d retr", t.ThroughputBps/1e6, t.Retransmits)
	}
	return text
}

// skewMap: skew on x, one row per (TXDLY, PHY), top row TXDLY 0 PHY off.
func skewMap(r *scan.Result, lo float64) *gplot.Plot {
	n := len(r.SkewsPs)
	const rows = 2 * scan.MACSteps
	g := newGrid(n, rows)
	copy(g.xs, r.SkewsPs)
	var yticks gplot.ConstantTicks
	var pass, best plotter.XYs
	for row := range rows {
		phy, mac := row >= scan.MACSteps, row%scan.MACSteps
		y := float64(rows - 1 - row)
		g.ys[rows-1-row] = y
		yticks = append(yticks, gplot.Tick{Value: y, Label: fmt.Sprintf("TXDLY %d, PHY %s", mac, onOff(phy))})
		for s := range n {
			c := r.Cell(mac, phy, s)
			g.z[s][rows-1-row] = cellValue(c, lo)
			if c.Pass {
				pass = append(pass, plotter.XY{X: r.SkewsPs[s], Y: y})
			}
			if sg := r.Suggested; sg != nil && sg.MACTxDelaySteps == mac && sg.PHYTxDelay == phy && sg.TXSkewPs == c.TXSkewPs {
				best = append(best, plotter.XY{X: r.SkewsPs[s], Y: y})
			}
		}
	}
	p := newPlot(scanTitle(r))
	h := heat(g, lo)
	p.Add(h)
	xmin, xmax, _, _ := h.DataRange()
	if len(pass) > 0 {
		sc, err := plotter.NewScatter(pass)
		if err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{A: 255}, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			p.Legend.Add("pass", sc)
		}
	}
	if len(best) > 0 {
		sc, err := plotter.NewScatter(best)
		if err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: suggestStyle.Color, Radius: vg.Points(5.5), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			p.Legend.Add("suggested", sc)
		}
	}
	if r.BoardSkewPs >= xmin && r.BoardSkewPs <= xmax {
		board := segment(r.BoardSkewPs, -0.5, r.BoardSkewPs, rows-0.5, lineStyle(color.NRGBA{R: 30, G: 60, B: 220, A: 255}, 1.5, vg.Points(5), vg.Points(3)))
		p.Add(board)
		p.Legend.Add(fmt.Sprintf("board's own skew %.0f ps", r.BoardSkewPs), board)
	}
	p.Legend.Top = true
	p.Legend.Left = false
	p.X.Label.Text = "board TX skew s0: clock path minus data path (ps)"
	p.Y.Tick.Marker = yticks
	p.X.Tick.Marker = niceTicks(xmin, xmax)
	p.X.Min, p.X.Max = xmin, xmax
	// Headroom above the top row holds the legend.
	p.Y.Min, p.Y.Max = -0.5, rows+0.3
	return p
}

// colourBar is the scale: one column of the palette from lo to 0 decades.
func colourBar(frames int, lo float64) *gplot.Plot {
	const steps = 64
	g := newGrid(1, steps)
	for i := range steps {
		v := lo + (0-lo)*float64(i)/(steps-1)
		g.ys[i] = v
		g.z[0][i] = v
	}
	p := newPlot("")
	p.Add(heat(g, lo))
	p.HideX()
	p.Y.Label.Text = "measured frame loss"
	var t gplot.ConstantTicks
	for e := math.Ceil(lo); e <= 0; e++ {
		label := fmt.Sprintf("1e%.0f", e)
		switch e {
		case 0:
			label = "1 (all)"
		case lo:
			label = fmt.Sprintf("0 of %d", frames)
		}
		t = append(t, gplot.Tick{Value: e, Label: label})
	}
	p.Y.Tick.Marker = t
	p.Y.Min, p.Y.Max = lo-0.5*(-lo)/(steps-1), 0.5*(-lo)/(steps-1)
	return p
}

// niceTicks labels lo..hi at a 1, 2 or 5 × 10^k step with at most 10 labels.
func niceTicks(lo, hi float64) gplot.ConstantTicks {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return nil
	}
	step := math.Pow(10, math.Floor(math.Log10(span/10)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(m*step) <= 10 {
			step *= m
			break
		}
	}
	var t gplot.ConstantTicks
	for v := math.Ceil(lo/step) * step; v <= hi && len(t) < 20; v += step {
		t = append(t, gplot.Tick{Value: v, Label: fmt.Sprintf("%g", math.Round(v*1e6)/1e6)})
	}
	return t
}
