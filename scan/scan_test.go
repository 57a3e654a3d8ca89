package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"mesonemu/perfrun"
	"mesonemu/sim"
)

type key struct {
	mac int
	phy bool
}

func passing(r *Result, skew int) map[key]bool {
	got := map[key]bool{}
	for mac := range MACSteps {
		for _, phy := range []bool{false, true} {
			if r.Cell(mac, phy, skew).Pass {
				got[key{mac, phy}] = true
			}
		}
	}
	return got
}

// TestDrivers is the required outcome on the Odroid-C1 (mechanism A):
// the fixed driver passes MAC 2 ns (PHY off) and PHY on with MAC 0 and nothing
// else; the pre-fix driver's 4 ns steps put TXDLY 1 and 3 in the wrong half.
func TestDrivers(t *testing.T) {
	cases := []struct {
		driver   string
		pass     []key
		macPs    [MACSteps]float64 // effective MAC delay per TXDLY step, rounded to ps
		suggest  key
		suggestW Window
	}{
		{"fixed", []key{{1, false}, {0, true}}, [MACSteps]float64{0, 2000, 4000, 6000}, key{1, false},
			Window{Axis: "mac", MACFrom: 1, MACTo: 1, SkewFromPs: 591, SkewToPs: 591, Cells: 1}},
		{"pre-fix", []key{{0, true}, {2, true}}, [MACSteps]float64{0, 4000, 8000, 12000}, key{0, true},
			Window{Axis: "mac", PHYTxDelay: true, MACFrom: 0, MACTo: 0, SkewFromPs: 591, SkewToPs: 591, Cells: 1}},
	}
	for _, c := range cases {
		t.Run(c.driver, func(t *testing.T) {
			r, err := Run(context.Background(), Options{Sim: sim.Options{Driver: c.driver, Seed: 1}})
			if err != nil {
				t.Fatal(err)
			}
			want := map[key]bool{}
			for _, k := range c.pass {
				want[k] = true
			}
			got := passing(r, 0)
			for mac := range MACSteps {
				for _, phy := range []bool{false, true} {
					k := key{mac, phy}
					cell := r.Cell(mac, phy, 0)
					if got[k] != want[k] {
						t.Errorf("TXDLY %d PHY %v: pass %v, want %v (%+v)", mac, phy, got[k], want[k], *cell)
					}
					if cell.Sent != DefaultFrames || cell.TxDelayNs != uint32(2*mac) || cell.TXSkewPs != 591 {
						t.Errorf("TXDLY %d PHY %v: sent %d, tx-delay-ns %d, skew %g", mac, phy, cell.Sent, cell.TxDelayNs, cell.TXSkewPs)
					}
					if math.Round(cell.MACDelayPs) != c.macPs[mac] {
						t.Errorf("TXDLY %d: MAC delay %.3f ps, want %g", mac, cell.MACDelayPs, c.macPs[mac])
					}
					wantPHY := 0.0
					if phy {
						wantPHY = 2000
					}
					if cell.PHYDelayPs != wantPHY || math.Abs(cell.TotalDelayPs-(cell.MACDelayPs+wantPHY+591)) > 1e-6 {
						t.Errorf("TXDLY %d PHY %v: PHY %g ps, total %g ps", mac, phy, cell.PHYDelayPs, cell.TotalDelayPs)
					}
				}
			}
			// No fully clean cell at MAC 1 or 3 steps pre-fix: a wrong nibble every frame.
			if c.driver == "pre-fix" {
				for _, mac := range []int{1, 3} {
					for _, phy := range []bool{false, true} {
						if cell := r.Cell(mac, phy, 0); cell.Pass || !cell.WrongHalf || cell.Received != 0 {
							t.Errorf("pre-fix TXDLY %d PHY %v: %+v", mac, phy, *cell)
						}
					}
				}
			}
			s := r.Suggested
			if s == nil || (key{s.MACTxDelaySteps, s.PHYTxDelay}) != c.suggest || s.Window != c.suggestW {
				t.Fatalf("suggested %+v, want %+v in %+v", s, c.suggest, c.suggestW)
			}
		})
	}
}

// TestLossyCellsMatchPrediction: at phase 591 ps (fixed TXDLY 0, PHY off) the
// model predicts 0.376 % of 1514-byte frames lost; 2,000 frames must show
// 7.5 ± 3 σ of them, and the cell fails.
func TestLossyCellsMatchPrediction(t *testing.T) {
	r, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Cell(0, false, 0)
	if math.Abs(c.PredictedLoss-0.003761) > 2e-5 || c.Pass {
		t.Fatalf("predicted %.6f pass %v", c.PredictedLoss, c.Pass)
	}
	lost := float64(c.Sent - c.Received)
	mean := c.PredictedLoss * float64(c.Sent)
	if math.Abs(lost-mean) > 3*math.Sqrt(mean) || lost == 0 {
		t.Fatalf("lost %g frames, predicted %.1f", lost, mean)
	}
	if c.Symbol() != SymLossy || r.Cell(2, false, 0).Symbol() != SymDead || r.Cell(1, false, 0).Symbol() != SymPass {
		t.Fatalf("symbols %c %c %c", c.Symbol(), r.Cell(2, false, 0).Symbol(), r.Cell(1, false, 0).Symbol())
	}
}

// TestWorkersDoNotChangeResults: every cell has its own machine and seed, so the
// pool size cannot change a number.
func TestWorkersDoNotChangeResults(t *testing.T) {
	var out [2][]Cell
	for i, w := range []int{1, 8} {
		r, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "pre-fix", Seed: 7}, Frames: 1000, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r.Cells
	}
	for i := range out[0] {
		a, b := out[0][i], out[1][i]
		if a.Sent != b.Sent || a.Received != b.Received || a.PredictedLoss != b.PredictedLoss {
			t.Errorf("cell %d: %d/%d vs %d/%d", i, a.Received, a.Sent, b.Received, b.Sent)
		}
	}
}

// TestSkewSweep: fixed driver, skew -1000..3000 ps in 500 ps steps, 200 frames
// per cell. TXDLY 1 (2 ns) passes while its phase 2000 + s stays at least
// 300 + 7.38σ ≈ 743 ps from both edges of the 4 ns unit interval: s = -1000 ..
// 1000. TXDLY 0 passes for s = 1000 .. 3000. Both windows are 5 points wide; TXDLY 1
// covers the board's own 591 ps, so it is suggested, at the middle, 0 ps.
func TestSkewSweep(t *testing.T) {
	r, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", Seed: 1}, Frames: 200,
		Skew: &SkewRange{FromPs: -1000, ToPs: 3000, StepPs: 500}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.SkewsPs) != 9 || len(r.Cells) != 72 {
		t.Fatalf("%d skews, %d cells", len(r.SkewsPs), len(r.Cells))
	}
	find := func(mac int, phy bool) *Window {
		for _, w := range r.Windows {
			if w.Axis == "skew" && w.MACFrom == mac && w.PHYTxDelay == phy {
				return &w
			}
		}
		return nil
	}
	cases := []struct {
		mac      int
		phy      bool
		from, to float64
	}{
		{1, false, -1000, 1000},
		{0, false, 1000, 3000},
		{0, true, -1000, 1000},
		{3, true, 1000, 3000}, // 6 + 2 ns + s ≡ s - 0 mod 8 ns
	}
	for _, c := range cases {
		w := find(c.mac, c.phy)
		if w == nil || w.SkewFromPs != c.from || w.SkewToPs != c.to || w.Cells != 5 || !w.Open {
			t.Errorf("TXDLY %d PHY %v: window %+v, want %g..%g", c.mac, c.phy, w, c.from, c.to)
		}
	}
	s := r.Suggested
	if s == nil || s.MACTxDelaySteps != 1 || s.PHYTxDelay || s.TXSkewPs != 0 || s.Window.Axis != "skew" ||
		s.MACWindow == nil || s.MACWindow.MACFrom != 1 || s.MACWindow.MACTo != 1 {
		t.Fatalf("suggested %+v", s)
	}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"TXDLY 1 (2 ns) PHY off OOOOOxXXX",
		"TXDLY 0 (0 ns) PHY off XXXxOOOOO",
		"centred at TX skew 0.000 ps",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestTableAndJSON(t *testing.T) {
	r, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", Seed: 1}, Frames: 500})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  0   (0 ns)           x     O         0.000 ns",
		"  1   (2 ns)           O     X         2.000 ns",
		"  2   (4 ns)           X     X         4.000 ns",
		"Find suitable TXDLY = 1 (amlogic,tx-delay-ns = <2>), PHY TX delay off",
		`device tree: phy-mode = "rgmii"; amlogic,tx-delay-ns = <2>;`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cells     []map[string]any `json:"cells"`
		Suggested map[string]any   `json:"suggested"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cells) != 8 {
		t.Fatalf("%d cells", len(doc.Cells))
	}
	for _, k := range []string{"mac_tx_delay_steps", "phy_tx_delay", "loss", "pass", "predicted_loss", "mac_delay_ps", "total_delay_ps", "phase_ps"} {
		if _, ok := doc.Cells[0][k]; !ok {
			t.Errorf("cell lacks %q: %v", k, doc.Cells[0])
		}
	}
	c := doc.Cells[1] // TXDLY 1, PHY off
	if c["mac_tx_delay_steps"] != 1.0 || c["phy_tx_delay"] != false || c["pass"] != true || c["loss"] != 0.0 {
		t.Errorf("cell 1: %v", c)
	}
	if doc.Suggested["mac_tx_delay_steps"] != 1.0 || doc.Suggested["phy_tx_delay"] != false {
		t.Errorf("suggested %v", doc.Suggested)
	}
}

// TestSuggestRules checks windows and tie-breaks on hand-made pass maps.
func TestSuggestRules(t *testing.T) {
	cases := []struct {
		name    string
		off, on string // pass map per TXDLY step, 'O' = pass
		want    key
		wantLen int
	}{
		{"widest wins", "O.OO", "OOO.", key{1, true}, 3},
		{"even length: lower middle", "OOOO", "....", key{1, false}, 4},
		{"tie: PHY off first", "..O.", "O...", key{2, false}, 1},
		{"tie: lower step", "O.O.", "....", key{0, false}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{BoardSkewPs: 591, Cells: make([]Cell, 2*MACSteps)}
			for mac := range MACSteps {
				*r.Cell(mac, false, 0) = Cell{MACTxDelaySteps: mac, TxDelayNs: uint32(2 * mac), TXSkewPs: 591, Pass: c.off[mac] == 'O'}
				*r.Cell(mac, true, 0) = Cell{MACTxDelaySteps: mac, TxDelayNs: uint32(2 * mac), PHYTxDelay: true, TXSkewPs: 591, Pass: c.on[mac] == 'O'}
			}
			r.Windows = windows(r)
			s := suggest(r)
			if s == nil || (key{s.MACTxDelaySteps, s.PHYTxDelay}) != c.want || s.Window.Cells != c.wantLen {
				t.Fatalf("suggested %+v, want %+v (window %d)", s, c.want, c.wantLen)
			}
		})
	}
	r := &Result{Cells: make([]Cell, 2*MACSteps)}
	r.Windows = windows(r)
	if s := suggest(r); s != nil || len(r.Windows) != 0 {
		t.Fatalf("no pass: suggested %+v, windows %v", s, r.Windows)
	}
}

func TestSkewPoints(t *testing.T) {
	cases := []struct {
		r    SkewRange
		n    int
		last float64
		bad  bool
	}{
		{SkewRange{-1000, 1000, 100}, 21, 1000, false},
		{SkewRange{0, 1, 0.1}, 11, 1, false}, // float steps keep their last point
		{SkewRange{0, 250, 100}, 3, 200, false},
		{SkewRange{5, 5, 1}, 1, 5, false},
		{SkewRange{0, 1000, 0}, 0, 0, true},
		{SkewRange{0, 1000, -1}, 0, 0, true},
		{SkewRange{1000, 0, 1}, 0, 0, true},
		{SkewRange{0, 10000, 1}, 0, 0, true}, // 10,001 points
		{SkewRange{math.NaN(), 0, 1}, 0, 0, true},
		{SkewRange{0, math.Inf(1), 1}, 0, 0, true},
		{SkewRange{-2e5, 0, 1000}, 0, 0, true},
	}
	for _, c := range cases {
		pts, err := c.r.Points()
		if (err != nil) != c.bad {
			t.Errorf("%+v: err %v", c.r, err)
			continue
		}
		if !c.bad && (len(pts) != c.n || pts[len(pts)-1] != c.last) {
			t.Errorf("%+v: %d points ending %g, want %d ending %g", c.r, len(pts), pts[len(pts)-1], c.n, c.last)
		}
	}
}

func TestBadOptions(t *testing.T) {
	cases := []Options{
		{Frames: -1},
		{Size: 10},
		{Payload: "ones"},
		{Workers: -1},
		{Workers: MaxWorkers + 1},
		{Sim: sim.Options{Driver: "v4.19"}},
		{Sim: sim.Options{Board: "raspberry-pi"}},
		{Skew: &SkewRange{0, 1, 0}},
	}
	for _, o := range cases {
		if r, err := Run(context.Background(), o); err == nil || r != nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

func TestCellOptions(t *testing.T) {
	skew := 100.0
	so := Options{Sim: sim.Options{Board: "odroid-c2", Seed: 3}}.CellOptions(3, true, &skew)
	if so.Board != "odroid-c2" || so.Driver != "fixed" || so.Seed != 3 || so.PhyMode != "rgmii" ||
		*so.TxDelayNs != 6 || !*so.PHYTXDelay || *so.TXSkewPs != 100 {
		t.Fatalf("%+v", so)
	}
}

// TestTCPCells: with TCP every live cell runs iperf3. Fixed driver: the two
// settings that give 2 ns (MAC 2 ns with the PHY off, MAC 0 with the PHY on)
// carry at least 700 Mbit/s without a retransmit, MAC 4 and 6 ns are dead.
// Pre-fix: no cell at TXDLY 1 or 3 carries TCP without retransmits. The JSON
// gains the iperf3 fields only with TCP.
func TestTCPCells(t *testing.T) {
	if testing.Short() {
		t.Skip("iperf3 runs per cell")
	}
	run := func(driver string) *Result {
		t.Helper()
		r, err := Run(context.Background(), Options{Sim: sim.Options{Driver: driver, Seed: 1}, TCP: true, TCPTime: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fixed := run("fixed")
	for _, c := range []struct {
		mac int
		phy bool
	}{{1, false}, {0, true}} {
		cell := fixed.Cell(c.mac, c.phy, 0)
		if cell.TCPResult == nil || cell.LinkDead || cell.ThroughputBps < 700e6 || cell.Retransmits != 0 {
			t.Errorf("fixed, TXDLY %d, PHY %v: %+v; want >= 700 Mbit/s, 0 retransmits", c.mac, c.phy, cell.TCPResult)
		}
	}
	for _, mac := range []int{2, 3} {
		if cell := fixed.Cell(mac, false, 0); cell.TCPResult == nil || !cell.LinkDead || cell.ThroughputBps != 0 {
			t.Errorf("fixed, TXDLY %d (%d ns), PHY off: %+v; want a dead link", mac, 2*mac, cell.TCPResult)
		}
	}
	pre := run("pre-fix")
	for _, mac := range []int{1, 3} {
		for _, phy := range []bool{false, true} {
			if cell := pre.Cell(mac, phy, 0); cell.TCPResult == nil || !cell.LinkDead && cell.Retransmits == 0 {
				t.Errorf("pre-fix, TXDLY %d, PHY %v: %+v; want retransmits or a dead link", mac, phy, cell.TCPResult)
			}
		}
	}
	var buf bytes.Buffer
	if err := fixed.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"throughput_bps": 7`) || !strings.Contains(buf.String(), `"tcp_seconds": 1`) {
		t.Errorf("JSON without the cells' iperf3 fields:\n%.2000s", buf.String())
	}
	plain, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := plain.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "throughput_bps") {
		t.Error("a scan without TCP has iperf3 fields in its JSON")
	}
}

// TestTCPAlongTheSkew: along a skew sweep at the pre-fix 4 ns setting, iperf3
// runs at that setting only, and its throughput falls as the predicted frame
// loss rises (while no test frame is lost the link carries full rate).
func TestTCPAlongTheSkew(t *testing.T) {
	if testing.Short() {
		t.Skip("iperf3 runs per skew")
	}
	r, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "pre-fix", Seed: 1}, TCP: true, TCPTime: time.Second,
		Skew: &SkewRange{FromPs: 550, ToPs: 850, StepPs: 100}, Setting: Setting{MACTxDelaySteps: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skew) != 4 || r.SkewSetting == nil || r.SkewSetting.MACTxDelaySteps != 2 {
		t.Fatalf("skew points %+v at %+v; want 4 at TXDLY 2", r.Skew, r.SkewSetting)
	}
	for _, c := range r.Cells {
		if ran := c.TCPResult != nil; ran != (c.MACTxDelaySteps == 2 && !c.PHYTxDelay) {
			t.Errorf("TXDLY %d PHY %v skew %g: iperf3 ran %v", c.MACTxDelaySteps, c.PHYTxDelay, c.TXSkewPs, ran)
		}
	}
	for i := 1; i < len(r.Skew); i++ {
		a, b := r.Skew[i-1], r.Skew[i]
		if !(b.PredictedFrameLoss < a.PredictedFrameLoss) || b.ThroughputBps < a.ThroughputBps {
			t.Errorf("from %g to %g ps: predicted loss %.2e -> %.2e, throughput %.1f -> %.1f Mbit/s; want loss down and throughput not down",
				a.SkewPs, b.SkewPs, a.PredictedFrameLoss, b.PredictedFrameLoss, a.ThroughputBps/1e6, b.ThroughputBps/1e6)
		}
	}
	if first, last := r.Skew[0], r.Skew[len(r.Skew)-1]; first.Retransmits == 0 || last.Retransmits != 0 || last.ThroughputBps < 700e6 {
		t.Errorf("ends of the sweep: %+v and %+v; want retransmits at 550 ps and a clean 700+ Mbit/s at 850 ps", first, last)
	}
}

// TestTCPInterrupted: Ctrl-C during the iperf3 tests returns the map with the
// finished test, no cell marked failed, and the unfinished ones counted.
func TestTCPInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	calls := 0
	fake := func(ctx context.Context, o perfrun.Options) (*perfrun.Report, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls > 1 {
			return nil, ctx.Err()
		}
		cancel()
		return &perfrun.Report{ThroughputBps: 778e6}, nil
	}
	r, err := Run(ctx, Options{Sim: sim.Options{Driver: "fixed", Seed: 1}, Frames: 500, Workers: 1, TCP: true, TCPTime: time.Second, RunTCP: fake})
	if !errors.Is(err, context.Canceled) || r == nil {
		t.Fatalf("err %v, result %v; want context.Canceled and the map so far", err, r)
	}
	ran, live := 0, 0
	for _, c := range r.Cells {
		if c.Error != "" {
			t.Errorf("cell TXDLY %d PHY %v marked failed: %s", c.MACTxDelaySteps, c.PHYTxDelay, c.Error)
		}
		if c.Received > 0 {
			live++
		}
		if c.TCPResult != nil && !c.LinkDead {
			ran++
		}
	}
	if ran != 1 || r.Unfinished != live-1 || live < 2 {
		t.Fatalf("%d cells with an iperf3 result, %d unfinished, %d live; want 1 and live-1", ran, r.Unfinished, live)
	}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil || !strings.Contains(buf.String(), fmt.Sprintf("(interrupted: %d iperf3 tests unfinished", live-1)) {
		t.Errorf("table (%v) without the interruption note:\n%s", err, buf.String())
	}
}
