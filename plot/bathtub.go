package plot

import (
	"fmt"
	"io"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"mesonemu/rgmiiwire"
	"mesonemu/scan"
)

// Bathtub axis limits.
const (
	bathtubTopBER   = 1.0
	bathtubFloorBER = 1e-16  // default bottom of the BER axis
	bathtubMinBER   = 1e-300 // the lowest bottom, near float64's limit
	thresholdLen    = 1514   // frame length of the pass threshold line
)

// passLineBER is the per-line-sample error rate at which four equal lines lose
// scan.PassPredictedLoss of thresholdLen-byte frames (docs/reference/rgmii-timing.md §2 step 5).
func passLineBER() float64 {
	samples := 2.0 * (thresholdLen + 12) * rgmiiwire.Lines
	return -math.Log1p(-scan.PassPredictedLoss) / samples
}

// log10BER is log10 of a·(Q(zs) + Q(zh)) at sampling offset x, finite where the
// BER itself underflows.
func log10BER(t rgmiiwire.Bathtub, x float64) float64 {
	if t.JitterSigmaPs <= 0 {
		if x > t.SetupPs && t.UnitIntervalPs-x > t.HoldPs {
			return math.Inf(-1)
		}
		return math.Log10(rgmiiwire.RandomPayloadDensity)
	}
	ls := rgmiiwire.LogQ((x - t.SetupPs) / t.JitterSigmaPs)
	lh := rgmiiwire.LogQ((t.UnitIntervalPs - x - t.HoldPs) / t.JitterSigmaPs)
	hi, lo := math.Max(ls, lh), math.Min(ls, lh)
	if math.IsInf(hi, -1) {
		return math.Inf(-1)
	}
	return (math.Log(rgmiiwire.RandomPayloadDensity) + hi + math.Log1p(math.Exp(lo-hi))) / math.Ln10
}

// formatLog10 prints 10^l as "3.2e-07" while float64 can hold it, else "1e-400".
func formatLog10(l float64) string {
	switch {
	case math.IsInf(l, -1):
		return "0"
	case l > -300:
		return fmt.Sprintf("%.2g", math.Pow(10, l))
	}
	e := math.Floor(l)
	return fmt.Sprintf("%.1fe%.0f", math.Pow(10, l-e), e)
}

// Bathtub draws BER (log scale) against the sampling offset after the data
// transition over one unit interval, with the setup/hold aperture shaded, the
// operating point marked and the BER at which a 1514-byte frame's loss reaches
// scan.PassPredictedLoss drawn as the pass line.
func Bathtub(w io.Writer, format string, s Setting, b rgmiiwire.Budget, tub rgmiiwire.Bathtub, size Size) error {
	ui := tub.UnitIntervalPs
	if !finitePs(ui) || ui <= 0 {
		return fmt.Errorf("plot: bathtub unit interval %g ps: want a finite time > 0", ui)
	}
	for _, v := range []float64{tub.SetupPs, tub.HoldPs, tub.OperatingPs, tub.JitterSigmaPs} {
		if !finitePs(v) || v < 0 {
			return fmt.Errorf("plot: bathtub setup/hold/operating point/σ %g ps: want a finite time ≥ 0", v)
		}
	}
	if len(tub.Points) < rgmiiwire.MinBathtubPoints || len(tub.Points) > rgmiiwire.MaxBathtubPoints {
		return fmt.Errorf("plot: bathtub has %d points: want %d..%d", len(tub.Points), rgmiiwire.MinBathtubPoints, rgmiiwire.MaxBathtubPoints)
	}
	opLog := log10BER(tub, tub.OperatingPs)
	floor := bathtubFloorBER
	if l := math.Floor(opLog) - 2; l < math.Log10(floor) {
		floor = math.Pow(10, math.Max(l, math.Log10(bathtubMinBER)))
	}
	// Values below the floor are drawn just under it (clipped): a log axis cannot
	// take 0, and gonum panics on it.
	under := floor / 10
	curve := make(plotter.XYs, 0, len(tub.Points))
	for _, pt := range tub.Points {
		if !finitePs(pt.OffsetPs) || math.IsNaN(pt.BER) {
			continue
		}
		curve = append(curve, plotter.XY{X: pt.OffsetPs / 1000, Y: math.Max(math.Min(pt.BER, bathtubTopBER), under)})
	}
	return render(w, format, size, func(c draw.Canvas) error {
		p := bathtubPlot(s, b, tub, curve, floor, opLog)
		p.Draw(c)
		return nil
	})
}

func bathtubPlot(s Setting, b rgmiiwire.Budget, tub rgmiiwire.Bathtub, curve plotter.XYs, floor, opLog float64) *gplot.Plot {
	ui := tub.UnitIntervalPs / 1000
	dir := b.Timing.Direction
	if dir == "" {
		dir = "data"
	}
	loss := b.PredictedLoss(thresholdLen)
	p := newPlot(fmt.Sprintf("%s bathtub: %s\n%s\noperating point %.0f ps after the data edge: BER %s per line-sample → %s of %d-byte frames lost",
		dir, s, delayLine(b), tub.OperatingPs, formatLog10(opLog), formatLoss(loss, b.WrongHalf), thresholdLen))
	p.X.Label.Text = "sampling instant after the data transition (ns)"
	// Short on purpose: gonum centres a vertical label at the arithmetic mean of
	// the range, which on a log axis is near the top, and pads the plot by half
	// the label's length there.
	p.Y.Label.Text = "BER"
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = decadeTicks(floor, bathtubTopBER)
	p.X.Tick.Marker = halfNsTicks(ui)

	ts, th := tub.SetupPs/1000, tub.HoldPs/1000
	aperture := box(0, floor, ts, bathtubTopBER, colAperture)
	p.Add(aperture, box(ui-th, floor, ui, bathtubTopBER, colAperture))

	line := &plotter.Line{XYs: curve, LineStyle: lineStyle(colDataKey, 2)}
	p.Add(line)
	passBER := passLineBER()
	pass := segment(0, passBER, ui, passBER, lineStyle(colMargin, 1.2, vg.Points(6), vg.Points(3)))
	p.Add(pass)

	opY := math.Max(math.Pow(10, opLog), floor)
	op, err := plotter.NewScatter(plotter.XYs{{X: tub.OperatingPs / 1000, Y: opY}})
	if err == nil {
		op.GlyphStyle = draw.GlyphStyle{Color: colClock, Radius: vg.Points(5), Shape: draw.CircleGlyph{}}
		p.Add(op)
		p.Legend.Add("operating point", op)
	}
	p.Add(segment(tub.OperatingPs/1000, floor, tub.OperatingPs/1000, bathtubTopBER, lineStyle(colClock, 1, vg.Points(2), vg.Points(3))))
	label := fmt.Sprintf("BER %s", formatLog10(opLog))
	align := draw.XLeft
	dx := vg.Points(8)
	if tub.OperatingPs/1000 > ui*0.6 {
		align, dx = draw.XRight, -vg.Points(8)
	}
	ns := notes{
		{x: tub.OperatingPs / 1000, y: opY, text: label, size: 10, color: colClock, xalign: align, yalign: draw.YBottom, dx: dx, dy: vg.Points(4)},
		{x: ui / 2, y: passBER, text: fmt.Sprintf("pass line: %.0e of %d-byte frames lost", scan.PassPredictedLoss, thresholdLen),
			size: 9, color: colMargin, xalign: draw.XCenter, yalign: draw.YBottom, dy: vg.Points(3)},
	}
	if b.WrongHalf {
		ns = append(ns, note{x: ui / 2, y: math.Sqrt(floor), text: "WRONG HALF: the operating point samples the neighbouring nibble; every frame is lost",
			size: 10.5, color: colWarn, xalign: draw.XCenter, yalign: draw.YCenter})
	}
	p.Add(ns)

	p.Legend.Add(fmt.Sprintf("BER per line-sample, random data, σ = %.0f ps", tub.JitterSigmaPs), line)
	p.Legend.Add(fmt.Sprintf("setup/hold aperture %.0f/%.0f ps", tub.SetupPs, tub.HoldPs), aperture)
	p.Legend.Add("pass line", pass)
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(40)
	// Ranges last: Add widens them to the data (the clipped curve included).
	p.X.Min, p.X.Max = 0, ui
	// Headroom above BER 1 (a fifth of the decades shown) holds the legend.
	p.Y.Min, p.Y.Max = floor, math.Pow(10, -0.2*math.Log10(floor))
	return p
}

func formatLoss(loss float64, wrongHalf bool) string {
	if wrongHalf {
		return "all (wrong half)"
	}
	if loss == 0 {
		return "0"
	}
	return fmt.Sprintf("%.2g", loss)
}

// decadeTicks labels decades between lo and hi at a round step (1, 2, 5, 10,
// 20, 50, ... decades) so that at most 12 carry a label; the other decades get
// unlabelled minor ticks while there are at most 100 of them.
func decadeTicks(lo, hi float64) gplot.ConstantTicks {
	a, z := int(math.Ceil(math.Log10(lo)-1e-9)), int(math.Floor(math.Log10(hi)+1e-9))
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200} {
		step = s
		if (z-a)/s+1 <= 12 {
			break
		}
	}
	var t gplot.ConstantTicks
	for e := z; e >= a; e-- {
		tk := gplot.Tick{Value: math.Pow(10, float64(e))}
		if e%step == 0 {
			tk.Label = fmt.Sprintf("1e%d", e)
			if e == 0 {
				tk.Label = "1"
			}
		} else if z-a > 100 {
			continue
		}
		t = append(t, tk)
	}
	return t
}

// halfNsTicks labels every 0.5 ns from 0 to ui.
func halfNsTicks(ui float64) gplot.ConstantTicks {
	var t gplot.ConstantTicks
	step := 0.5
	if ui > 10 {
		step = math.Ceil(ui / 10)
	}
	for v := 0.0; v <= ui+1e-9 && len(t) < 64; v += step {
		t = append(t, gplot.Tick{Value: v, Label: fmt.Sprintf("%g", v)})
	}
	return t
}
