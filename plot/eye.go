package plot

import (
	"errors"
	"fmt"
	"io"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"mesonemu/rgmiiwire"
)

// EyeRampPs is the drawn 0-100 % transition time (cosmetic: the wire model's
// edges are instantaneous; RGMII allows tr/tf up to 0.75 ns at 20-80 %).
const EyeRampPs = 300.0

// MaxEyeTraces bounds the unit intervals an eye overlays (drawing time and SVG
// size grow with it; 1,000 already shows the jitter's spread).
const MaxEyeTraces = 4000

// maxPs bounds time inputs, as rgmiiwire does.
const maxPs = 1e6

func finitePs(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(v) <= maxPs }

// Eye draws the eye diagram of one data line over two unit intervals centred on
// the sampling clock edge: every unit interval of eye (up to MaxEyeTraces)
// overlaid with its jittered transitions, the sampling edge at 0, the setup/hold
// aperture shaded, and the neighbouring samplers (the other clock edge, DDR) at
// ±UI. b is the budget the eye came from (for the title and the wrong-half
// warning).
func Eye(w io.Writer, format string, s Setting, b rgmiiwire.Budget, eye rgmiiwire.Eye, size Size) error {
	if err := checkEye(eye); err != nil {
		return err
	}
	traces := eyeTraces(eye, MaxEyeTraces)
	if len(traces) == 0 {
		return errors.New("plot: eye has no data transitions to draw (ask rgmiiwire for more unit intervals)")
	}
	return render(w, format, size, func(c draw.Canvas) error {
		p := eyePlot(s, b, eye, traces)
		p.Draw(c)
		return nil
	})
}

func checkEye(e rgmiiwire.Eye) error {
	ui := e.UnitIntervalPs
	if !finitePs(ui) || ui <= 0 {
		return fmt.Errorf("plot: eye unit interval %g ps: want a finite time > 0", ui)
	}
	for _, v := range []float64{e.SamplePhasePs, e.SetupPs, e.HoldPs} {
		if !finitePs(v) || v < 0 || v > ui {
			return fmt.Errorf("plot: eye phase/setup/hold %g ps: want 0..%g ps", v, ui)
		}
	}
	return nil
}

// eyeTraces rebuilds the line's bit sequence from the edges (an edge at unit
// interval k means bit k differs from bit k-1 and is Rising) and returns, for
// each unit interval i, the waveform around its sampler from -1.5 to +1.5 UI.
// Edges out of order or with bad times are skipped; at most max traces.
func eyeTraces(e rgmiiwire.Eye, max int) []plotter.XYs {
	ui := e.UnitIntervalPs
	var edges []rgmiiwire.EyeEdge
	for _, ed := range e.Edges {
		if ed.UI < 1 || ed.UI > rgmiiwire.MaxEyeUIs || !finitePs(ed.TimePs) {
			continue
		}
		if len(edges) > 0 && ed.UI <= edges[len(edges)-1].UI {
			continue
		}
		edges = append(edges, ed)
	}
	if len(edges) == 0 {
		return nil
	}
	n := edges[len(edges)-1].UI + 2 // bits 0..n-1; the last edge's bit and one more
	bits := make([]bool, n)
	times := make([]float64, n)
	cur := !edges[0].Rising
	next := 0
	for k := range bits {
		if next < len(edges) && edges[next].UI == k {
			cur = edges[next].Rising
			times[k] = edges[next].TimePs
			next++
		}
		bits[k] = cur
	}
	level := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	const ps2ns = 1e-3
	var out []plotter.XYs
	for i := 2; i+2 < n && len(out) < max; i++ {
		tr := plotter.XYs{{X: -1.5 * ui * ps2ns, Y: level(bits[i-2])}}
		for k := i - 1; k <= i+2; k++ {
			if bits[k] == bits[k-1] {
				continue
			}
			t := float64(k-i)*ui + times[k]
			tr = append(tr,
				plotter.XY{X: (t - EyeRampPs/2) * ps2ns, Y: level(bits[k-1])},
				plotter.XY{X: (t + EyeRampPs/2) * ps2ns, Y: level(bits[k])})
		}
		tr = append(tr, plotter.XY{X: 1.5 * ui * ps2ns, Y: level(bits[i+2])})
		out = append(out, tr)
	}
	return out
}

func eyePlot(s Setting, b rgmiiwire.Budget, e rgmiiwire.Eye, traces []plotter.XYs) *gplot.Plot {
	ui := e.UnitIntervalPs / 1000 // ns from here on
	ts, th, phase := e.SetupPs/1000, e.HoldPs/1000, e.SamplePhasePs/1000
	sigma := b.Timing.JitterSigmaPs
	setupM, holdM := e.SamplePhasePs-e.SetupPs, e.UnitIntervalPs-e.SamplePhasePs-e.HoldPs
	vs, vh := e.Violations()
	dir := b.Timing.Direction
	if dir == "" {
		dir = "data"
	}

	p := newPlot(fmt.Sprintf("%s eye: %s\n%s\n%d UIs overlaid, σ = %.0f ps; edges inside the aperture: %d setup, %d hold of %d",
		dir, s, delayLine(b), len(traces), sigma, vs, vh, len(e.Edges)))
	p.X.Label.Text = "time relative to the sampling clock edge at the receiver (ns)"
	p.Y.Label.Text = "data line level"
	p.Y.Tick.Marker = gplot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 1, Label: "1"}}
	p.X.Tick.Marker = nsTicks(-ui, ui)

	// Apertures first, under the traces: this sampler's and its neighbours'.
	aperture := box(-ts, -0.1, th, 1.1, colAperture)
	p.Add(aperture)
	for _, at := range []float64{-ui, ui} {
		p.Add(box(at-ts, -0.1, at+th, 1.1, colAperture))
	}
	data := polylines{lines: traces, style: lineStyle(colData, 0.8), key: lineStyle(colDataKey, 1.5)}
	p.Add(data)
	clock := segment(0, -0.2, 0, 1.25, lineStyle(colClock, 2))
	p.Add(clock)
	neighbour := lineStyle(colNeighbor, 1, vg.Points(4), vg.Points(3))
	p.Add(segment(-ui, -0.2, -ui, 1.25, neighbour), segment(ui, -0.2, ui, 1.25, neighbour))

	// Margins: from the nominal transition to the aperture, on each side.
	const my = -0.32
	mStyle := lineStyle(colMargin, 1.5)
	tick := func(x float64) *plotter.Line { return segment(x, my-0.05, x, my+0.05, mStyle) }
	p.Add(segment(-phase, my, -ts, my, mStyle), tick(-phase), tick(-ts))
	p.Add(segment(th, my, ui-phase, my, mStyle), tick(th), tick(ui-phase))
	ns := notes{
		{x: (-phase - ts) / 2, y: my, text: fmt.Sprintf("setup margin %.0f ps = %.2f σ", setupM, setupM/sigma),
			size: 9, color: colMargin, xalign: draw.XCenter, yalign: draw.YTop, dy: -vg.Points(5)},
		{x: (th + ui - phase) / 2, y: my, text: fmt.Sprintf("hold margin %.0f ps = %.2f σ", holdM, holdM/sigma),
			size: 9, color: colMargin, xalign: draw.XCenter, yalign: draw.YTop, dy: -vg.Points(5)},
		{x: 0, y: 1.25, text: "sampling edge", size: 9, color: colClock, xalign: draw.XCenter, yalign: draw.YBottom, dy: vg.Points(2)},
		{x: -ui, y: 1.25, text: "previous sampler (other clock edge)", size: 8.5, color: colNeighbor, xalign: draw.XLeft, yalign: draw.YBottom, dx: vg.Points(3), dy: vg.Points(2)},
		{x: ui, y: 1.25, text: "next sampler", size: 8.5, color: colNeighbor, xalign: draw.XRight, yalign: draw.YBottom, dx: -vg.Points(3), dy: vg.Points(2)},
	}
	if sigma <= 0 {
		ns[0].text = fmt.Sprintf("setup margin %.0f ps", setupM)
		ns[1].text = fmt.Sprintf("hold margin %.0f ps", holdM)
	}
	if b.WrongHalf {
		// Left-aligned at the top left: the legend holds the top right.
		ns = append(ns, note{x: -ui, y: 1.5, text: "WRONG HALF of the clock cycle: the receiver takes the neighbouring nibble, every frame is lost",
			size: 10.5, color: colWarn, xalign: draw.XLeft, yalign: draw.YCenter, dx: vg.Points(4)})
	}
	p.Add(ns)

	p.Legend.Add("data, random payload", data)
	p.Legend.Add("sampling clock edge", clock)
	p.Legend.Add(fmt.Sprintf("setup/hold aperture %.0f/%.0f ps", e.SetupPs, e.HoldPs), aperture)
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.YOffs = -vg.Points(2)
	p.Legend.XOffs = -vg.Points(8)
	// Ranges last: Add widens them to the data (the traces run to ±1.5 UI).
	p.X.Min, p.X.Max = -ui, ui
	p.Y.Min, p.Y.Max = -0.55, 1.6
	return p
}

// nsTicks labels every ns between lo and hi.
func nsTicks(lo, hi float64) gplot.ConstantTicks {
	var t gplot.ConstantTicks
	for v := math.Ceil(lo); v <= hi+1e-9 && len(t) < 64; v++ {
		t = append(t, gplot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
	}
	return t
}
