package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"

	"mesonemu/rgmiiwire"
	"mesonemu/scan"
	"mesonemu/sim"
)

// budget is the Odroid-C1 TX budget at a MAC delay (docs/reference/rgmii-timing.md §5.2).
func budget(t *testing.T, macPs float64) rgmiiwire.Budget {
	t.Helper()
	b, err := rgmiiwire.NewBudget(rgmiiwire.Timing{Direction: "TX", SpeedMbps: 1000, ClockPeriodPs: 8000,
		MACDelayPs: macPs, BoardSkewPs: 591, SetupPs: 300, HoldPs: 300, JitterSigmaPs: 60})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var setting = Setting{Board: "odroid-c1", Driver: "pre-fix", PhyMode: "rgmii", TxDelayNs: 4}

// scanResult is a hand-made fixed-driver scan: TXDLY 1 with PHY off and TXDLY 0
// with PHY on pass, the wrong half loses everything, phase 591 ps loses 0.4 %.
func scanResult(skews []float64) *scan.Result {
	r := &scan.Result{Board: "odroid-c1", Driver: "fixed", Mechanism: "A", Frames: 2000, Size: 1514,
		Payload: "random", BoardSkewPs: 591, SkewsPs: skews}
	points := max(len(skews), 1)
	for s := range points {
		skew := 591.0
		if len(skews) > 0 {
			skew = skews[s]
		}
		for _, phy := range []bool{false, true} {
			for mac := range scan.MACSteps {
				c := scan.Cell{MACTxDelaySteps: mac, TxDelayNs: uint32(2 * mac), PHYTxDelay: phy, TXSkewPs: skew,
					Sent: 2000, MACDelayPs: 2000 * float64(mac)}
				if phy {
					c.PHYDelayPs = 2000
				}
				c.TotalDelayPs = c.MACDelayPs + c.PHYDelayPs + skew
				c.PhasePs = math.Mod(c.TotalDelayPs, 8000)
				switch {
				case c.PhasePs >= 4000:
					c.WrongHalf, c.Loss, c.PredictedLoss = true, 1, 1
				case c.PhasePs < 743 || c.PhasePs > 3257:
					c.Received, c.Loss, c.PredictedLoss = 1992, 0.004, 0.0038
				default:
					c.Received, c.PredictedLoss, c.Pass = 2000, 1e-72, true
				}
				if c.Received == 0 && !c.WrongHalf {
					c.Received = 2000
				}
				r.Cells = append(r.Cells, c)
			}
		}
	}
	r.Suggested = &scan.Suggestion{MACTxDelaySteps: 1, TxDelayNs: 2, TXSkewPs: 591}
	return r
}

// checkPNG decodes a PNG, checks its size and that it is not blank: the
// luminance of its pixels varies, and it has more than a handful of colours.
func checkPNG(t *testing.T, data []byte, w, h int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("png: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("png is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	if v, n := variance(img); v < 100 || n < 20 {
		t.Fatalf("png looks blank: luminance variance %.1f, %d colours", v, n)
	}
}

func variance(img image.Image) (float64, int) {
	var sum, sum2, n float64
	colours := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			l := (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 257
			sum += l
			sum2 += l * l
			n++
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	m := sum / n
	return sum2/n - m*m, len(colours)
}

// checkSVG parses an SVG as XML and checks the root element.
func checkSVG(t *testing.T, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root, elements := "", 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("svg: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			elements++
		}
	}
	if root != "svg" || elements < 50 {
		t.Fatalf("svg root %q with %d elements", root, elements)
	}
}

type renderer func(w io.Writer, format string, size Size) error

func renderers(t *testing.T) map[string]renderer {
	pre := budget(t, 8000)
	fixed := budget(t, 2000)
	eye := pre.Eye(rand.New(rand.NewPCG(1, 2)), 0, 500)
	return map[string]renderer{
		"eye pre-fix": func(w io.Writer, f string, s Size) error { return Eye(w, f, setting, pre, eye, s) },
		"eye wrong half": func(w io.Writer, f string, s Size) error {
			b := budget(t, 4000)
			return Eye(w, f, setting, b, b.Eye(rand.New(rand.NewPCG(1, 2)), 0, 200), s)
		},
		"bathtub pre-fix": func(w io.Writer, f string, s Size) error { return Bathtub(w, f, setting, pre, pre.Bathtub(0, 401), s) },
		"bathtub fixed": func(w io.Writer, f string, s Size) error {
			return Bathtub(w, f, setting, fixed, fixed.Bathtub(0, 401), s)
		},
		"scan map": func(w io.Writer, f string, s Size) error { return ScanMap(w, f, scanResult(nil), s) },
		"scan map skew": func(w io.Writer, f string, s Size) error {
			return ScanMap(w, f, scanResult([]float64{-1000, -500, 0, 500, 1000, 1500, 2000}), s)
		},
		"iperf3 along the skew": func(w io.Writer, f string, s Size) error {
			return SkewTCP(w, f, skewTCPResult(), s)
		},
	}
}

func TestRenderPNGAndSVG(t *testing.T) {
	for name, r := range renderers(t) {
		t.Run(name, func(t *testing.T) {
			for _, size := range []struct {
				in   Size
				w, h int
			}{{Size{}, DefaultSize.Width, DefaultSize.Height}, {Size{Width: 640, Height: 400}, 640, 400}} {
				var buf bytes.Buffer
				if err := r(&buf, PNG, size.in); err != nil {
					t.Fatal(err)
				}
				checkPNG(t, buf.Bytes(), size.w, size.h)
				if buf.Len() > 200_000 {
					t.Errorf("png %d bytes", buf.Len())
				}
			}
			var buf bytes.Buffer
			if err := r(&buf, SVG, Size{}); err != nil {
				t.Fatal(err)
			}
			checkSVG(t, buf.Bytes())
		})
	}
}

// TestTitles: the SVG text carries the board, driver and delays.
func TestTitles(t *testing.T) {
	var buf bytes.Buffer
	b := budget(t, 8000)
	if err := Bathtub(&buf, SVG, setting, b, b.Bathtub(0, 101), Size{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"odroid-c1", "pre-fix driver", "tx-delay-ns 4", "MAC 8.000 ns", "board skew 0.591 ns", "phase 0.591 ns", "BER 3.1e-07"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("bathtub svg lacks %q", want)
		}
	}
}

func TestBadInput(t *testing.T) {
	b := budget(t, 8000)
	eye := b.Eye(rand.New(rand.NewPCG(1, 2)), 0, 100)
	tub := b.Bathtub(0, 101)
	badEye := eye
	badEye.UnitIntervalPs = math.NaN()
	shortTub := tub
	shortTub.Points = tub.Points[:1]
	wrongCells := scanResult(nil)
	wrongCells.Cells = wrongCells.Cells[:5]
	unsorted := scanResult([]float64{0, 500})
	unsorted.SkewsPs = []float64{500, 0}
	cases := map[string]func() error{
		"format":            func() error { return Eye(io.Discard, "gif", setting, b, eye, Size{}) },
		"too small":         func() error { return Eye(io.Discard, PNG, setting, b, eye, Size{Width: 10, Height: 10}) },
		"too large":         func() error { return Eye(io.Discard, PNG, setting, b, eye, Size{Width: 100000, Height: 600}) },
		"eye UI NaN":        func() error { return Eye(io.Discard, PNG, setting, b, badEye, Size{}) },
		"eye without edges": func() error { return Eye(io.Discard, PNG, setting, b, b.Eye(nil, 0, 100), Size{}) },
		"bathtub 1 point":   func() error { return Bathtub(io.Discard, PNG, setting, b, shortTub, Size{}) },
		"nil scan":          func() error { return ScanMap(io.Discard, PNG, nil, Size{}) },
		"scan cells":        func() error { return ScanMap(io.Discard, PNG, wrongCells, Size{}) },
		"scan skews":        func() error { return ScanMap(io.Discard, PNG, unsorted, Size{}) },
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestRenderRecoversPanics: a panic inside gonum becomes an error.
func TestRenderRecoversPanics(t *testing.T) {
	err := render(io.Discard, PNG, Size{}, func(draw.Canvas) error { panic("Values must be greater than 0 for a log scale.") })
	if err == nil || !strings.Contains(err.Error(), "log scale") {
		t.Fatalf("err %v", err)
	}
}

func TestFormatOf(t *testing.T) {
	cases := map[string]string{"a/eye.png": PNG, "EYE.SVG": SVG, "x.Png": PNG, "x.pdf": "", "noext": ""}
	for path, want := range cases {
		got, err := FormatOf(path)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("FormatOf(%q) = %q, %v", path, got, err)
		}
	}
}

// TestEyeTraces rebuilds a known bit sequence: bits 0 0 1 1 0 1 1 1 (edges at
// UIs 2 rising, 4 falling, 5 rising), UI 4 ps, sampler 1 ps after each edge.
func TestEyeTraces(t *testing.T) {
	e := rgmiiwire.Eye{UnitIntervalPs: 4000, SamplePhasePs: 1000, Edges: []rgmiiwire.EyeEdge{
		{UI: 2, Rising: true, TimePs: -1000}, {UI: 4, Rising: false, TimePs: -1100}, {UI: 5, Rising: true, TimePs: -900},
		{UI: 5, Rising: false, TimePs: 0},         // out of order: skipped
		{UI: 9, Rising: true, TimePs: math.NaN()}, // bad time: skipped
	}}
	tr := eyeTraces(e, 100)
	// bits 0..6 = 0 0 1 1 0 1 1; traces for UIs 2..4.
	if len(tr) != 3 {
		t.Fatalf("%d traces", len(tr))
	}
	// UI 4's trace: bit 2 (1) before boundary 3 (no edge), falls at UI 4 (-1.1 ns),
	// rises at UI 5 (4 - 0.9 = 3.1 ns), stays 1 through boundary 6.
	got := tr[2]
	want := []struct{ x, y float64 }{{-6, 1}, {-1.25, 1}, {-0.95, 0}, {2.95, 0}, {3.25, 1}, {6, 1}}
	if len(got) != len(want) {
		t.Fatalf("trace %v", got)
	}
	for i, w := range want {
		if math.Abs(got[i].X-w.x) > 1e-9 || got[i].Y != w.y {
			t.Errorf("point %d = %v, want %v", i, got[i], w)
		}
	}
	if n := len(eyeTraces(rgmiiwire.Eye{UnitIntervalPs: 4000}, 100)); n != 0 {
		t.Errorf("no edges: %d traces", n)
	}
}

func TestScales(t *testing.T) {
	for _, c := range []struct {
		frames int
		lo     float64
	}{{2000, -4}, {1000, -4}, {10, -2}, {200_000, -6}} {
		if got := lossScale(c.frames); got != c.lo {
			t.Errorf("lossScale(%d) = %g, want %g", c.frames, got, c.lo)
		}
	}
	// 8 · (1514 + 12) line-samples per frame: 1e-9 / 12,208 per sample.
	if got := passLineBER(); math.Abs(got-8.1913e-14)/8.1913e-14 > 1e-4 {
		t.Errorf("pass line BER %g", got)
	}
	labels := func(lo float64) (n int, first, last string) {
		for _, tk := range decadeTicks(lo, 1) {
			if tk.Label != "" {
				if first == "" {
					first = tk.Label
				}
				last = tk.Label
				n++
			}
		}
		return
	}
	for _, c := range []struct {
		lo          float64
		n           int
		first, last string
	}{{1e-16, 9, "1", "1e-16"}, {1e-79, 8, "1", "1e-70"}, {1e-300, 7, "1", "1e-300"}} {
		n, first, last := labels(c.lo)
		if n != c.n || first != c.first || last != c.last {
			t.Errorf("decadeTicks(%g): %d labels %s..%s, want %d %s..%s", c.lo, n, first, last, c.n, c.first, c.last)
		}
	}
	// The analytic log BER agrees with rgmiiwire's bathtub where float64 holds it.
	tub := budget(t, 8000).Bathtub(0, 41)
	for _, p := range tub.Points {
		if p.BER > 1e-300 {
			if got := log10BER(tub, p.OffsetPs); math.Abs(got-math.Log10(p.BER)) > 1e-9 {
				t.Errorf("log10 BER at %g ps: %g, want %g", p.OffsetPs, got, math.Log10(p.BER))
			}
		}
	}
	if got, want := formatLog10(math.Log10(3.19e-7)), "3.2e-07"; got != want {
		t.Errorf("formatLog10 = %q, want %q", got, want)
	}
	if got, want := formatLog10(-400.5), "3.2e-401"; got != want {
		t.Errorf("formatLog10 = %q, want %q", got, want)
	}
}

func TestSettingOf(t *testing.T) {
	d := uint32(4)
	on := true
	s, err := sim.New(sim.Options{Driver: "pre-fix", TxDelayNs: &d, PHYTXDelay: &on, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := SettingOf(s).String()
	if want := "odroid-c1, pre-fix driver, rgmii, tx-delay-ns 4, PHY TX delay on (phytool)"; got != want {
		t.Fatalf("SettingOf = %q, want %q", got, want)
	}
}

// skewTCPResult is a scan --tcp sweep shaped like the pre-fix one: dead, then
// collapsing, then full rate.
func skewTCPResult() *scan.Result {
	r := &scan.Result{Board: "odroid-c1", Driver: "pre-fix", BoardSkewPs: 591, TCPSeconds: 3, SkewSetting: &scan.Setting{MACTxDelaySteps: 2}}
	for i, mbps := range []float64{0, 0, 1.4, 553, 777, 778, 778} {
		r.Skew = append(r.Skew, scan.SkewPoint{SkewPs: 450 + 50*float64(i),
			TCPResult: scan.TCPResult{ThroughputBps: mbps * 1e6, Retransmits: uint64(300 / (1 + i*i)), LinkDead: i < 2}})
	}
	return r
}

// TestSkewTCPEdgeAndBadInput: the collapse edge is where throughput first
// falls below half the best, coming from the full-rate side; a scan without
// a sweep, or with skews out of order, is refused with an error.
func TestSkewTCPEdgeAndBadInput(t *testing.T) {
	r := skewTCPResult()
	if edge, ok := collapseEdge(r.Skew, 778e6); !ok || edge != 550 {
		t.Errorf("collapse edge %g (%v), want 550 ps", edge, ok)
	}
	var buf bytes.Buffer
	if err := SkewTCP(&buf, PNG, &scan.Result{}, Size{}); err == nil {
		t.Error("a scan without an iperf3 sweep rendered")
	}
	r.Skew[3].SkewPs = 400
	if err := SkewTCP(&buf, PNG, r, Size{}); err == nil {
		t.Error("skews out of order rendered")
	}
}

// TestCellTextCarriesIperf3: a cell with an iperf3 result shows its Mbit/s and
// retransmits on the map; a dead one and one without TCP do not.
func TestCellTextCarriesIperf3(t *testing.T) {
	live := &scan.Cell{Sent: 2000, Received: 2000, Pass: true, TCPResult: &scan.TCPResult{ThroughputBps: 778.3e6}}
	dead := &scan.Cell{Sent: 2000, TCPResult: &scan.TCPResult{LinkDead: true}}
	if got := cellText(live); !strings.Contains(got, "iperf3 778 Mbit/s, 0 retr") {
		t.Errorf("live cell text %q lacks its iperf3 result", got)
	}
	for _, c := range []*scan.Cell{dead, {Sent: 2000, Received: 2000}} {
		if got := cellText(c); strings.Contains(got, "iperf3") {
			t.Errorf("cell text %q mentions iperf3", got)
		}
	}
}

// TestAnyLossIsFarFromClean: on a 2000-frame scan the colour of a cell that
// lost even one frame, or 8 (a FAIL), is far from the colour of a clean cell
// (a PASS): at least 120 apart in RGB, not a paler green.
func TestAnyLossIsFarFromClean(t *testing.T) {
	lo := lossScale(2000)
	h := heat(newGrid(1, 1), lo)
	rgb := func(v float64) [3]float64 {
		r, g, b, _ := h.colour(v).RGBA()
		return [3]float64{float64(r >> 8), float64(g >> 8), float64(b >> 8)}
	}
	clean := rgb(lo)
	for _, lost := range []int{1, 8, 200, 2000} {
		c := rgb(math.Log10(float64(lost) / 2000))
		d := math.Sqrt((c[0]-clean[0])*(c[0]-clean[0]) + (c[1]-clean[1])*(c[1]-clean[1]) + (c[2]-clean[2])*(c[2]-clean[2]))
		if d < 120 {
			t.Errorf("%d of 2000 lost: colour %v is %.0f from the clean cell's %v, want >= 120", lost, c, d, clean)
		}
		if c[0] <= c[1]-20 {
			t.Errorf("%d of 2000 lost: colour %v is still green", lost, c)
		}
	}
}
