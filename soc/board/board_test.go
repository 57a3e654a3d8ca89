package board

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"mesonemu/soc"
)

func TestNamesAndLookup(t *testing.T) {
	if got, want := Names(), []string{"mxiii-plus", "odroid-c1", "odroid-c2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	tests := []struct {
		name    string
		kind    soc.Kind
		phyMode string
		txNS    uint32
		mac     string
	}{
		{"odroid-c1", soc.Meson8b, "rgmii", 2, "02:ad:c1:00:00:01"},
		{"mxiii-plus", soc.Meson8m2, "rgmii", 2, "02:ad:82:00:00:01"},
		{"odroid-c2", soc.GXBB, "rgmii", 2, "02:ad:c2:00:00:01"},
	}
	for _, tt := range tests {
		b, err := Lookup(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if b.Name != tt.name || b.SoC != tt.kind || b.DT.PhyMode != tt.phyMode || b.DT.TXDelayNS == nil ||
			*b.DT.TXDelayNS != tt.txNS || b.DT.RXDelayNS != nil || b.DT.PHYAddr != 0 || b.PHYID != 0x001cc916 {
			t.Errorf("%s: %+v", tt.name, b)
		}
		if b.MACAddr().String() != tt.mac || b.MAC[0]&0x03 != 0x02 {
			t.Errorf("%s: MAC %v, want %s (locally administered unicast)", tt.name, b.MACAddr(), tt.mac)
		}
		if b.Straps.TXDelay || b.Straps.RXDelay {
			t.Errorf("%s: straps %+v, want both off", tt.name, b.Straps)
		}
	}
	_, err := Lookup("odroid-c3")
	if err == nil || !strings.Contains(err.Error(), "mxiii-plus, odroid-c1, odroid-c2") {
		t.Errorf("Lookup(odroid-c3) error = %v, want one listing the valid names", err)
	}
	if _, err := Lookup(Default); err != nil {
		t.Errorf("default board: %v", err)
	}
}

// Lookup hands out copies: changing one board's DT does not change the table.
func TestLookupReturnsCopies(t *testing.T) {
	a, _ := Lookup("odroid-c1")
	*a.DT.TXDelayNS = 4
	a.TX.BoardSkewPs = 0
	b, _ := Lookup("odroid-c1")
	if *b.DT.TXDelayNS != 2 || b.TX.BoardSkewPs != 591 {
		t.Errorf("table modified through a copy: tx-delay %d, s0 %v", *b.DT.TXDelayNS, b.TX.BoardSkewPs)
	}
}

func TestLinkValues(t *testing.T) {
	for _, name := range Names() {
		b, _ := Lookup(name)
		tests := []struct {
			l                             Link
			setup, hold, sigma, phy, skew float64
			calibrated                    string
		}{
			{b.TX, 300, 300, 60, 2000, 591, "board_skew"},
			{b.RX, 300, 300, 60, 2000, 500, ""},
			{b.TXMechanismB, 300, 300, 60, 2200, -591, "board_skew"},
		}
		for _, tt := range tests {
			l := tt.l
			if l.SetupPs != tt.setup || l.HoldPs != tt.hold || l.JitterSigmaPs != tt.sigma ||
				l.PHYDelayPs != tt.phy || l.BoardSkewPs != tt.skew || l.LineSkewPs != [Lines]float64{} ||
				l.Source.Calibrated != tt.calibrated {
				t.Errorf("%s %s: %+v", name, l.Direction, l)
			}
			for _, p := range l.Params() {
				if p.Source == "" {
					t.Errorf("%s %s %s: no provenance", name, l.Direction, p.Name)
				}
				if p.Calibrated != (p.Name == tt.calibrated) {
					t.Errorf("%s %s %s: calibrated = %v", name, l.Direction, p.Name, p.Calibrated)
				}
			}
		}
	}
}

// frameLoss is docs/reference/rgmii-timing.md §2 steps 3-5 for a phase inside the right half-cycle:
// P = 1 - (1 - eps)^(8 (L + 12)), eps = a (Q(Ms/σ) + Q(Mh/σ)), UI 4000 ps.
func frameLoss(phasePs float64, l Link, frameLen int) float64 {
	q := func(m float64) float64 { return 0.5 * math.Erfc(m/l.JitterSigmaPs/math.Sqrt2) }
	eps := 0.5 * (q(phasePs-l.SetupPs) + q(4000-phasePs-l.HoldPs))
	return -math.Expm1(float64(8*(frameLen+12)) * math.Log1p(-eps))
}

// The calibration: at the pre-fix point (MAC delay = one whole 8 ns cycle, PHY off)
// the phase is s0 itself; s0 = 591 ps must sit within 1 ps of the fit to the measured
// 0.388 %, i.e. the target lies between the losses at 590 and 592 ps.
func TestTXSkewCalibration(t *testing.T) {
	if math.Abs(PreFixFrameLoss-0.003885) > 1e-6 {
		t.Errorf("measured ratio = %v, want 0.003885 (514 / 132,310)", PreFixFrameLoss)
	}
	b, _ := Lookup("odroid-c1")
	l := b.TX
	lo, hi := frameLoss(l.BoardSkewPs+1, l, 1514), frameLoss(l.BoardSkewPs-1, l, 1514)
	if !(lo < PreFixFrameLoss && PreFixFrameLoss < hi) {
		t.Errorf("target %.5f not between %.5f (s0+1) and %.5f (s0-1)", PreFixFrameLoss, lo, hi)
	}
	if got := frameLoss(l.BoardSkewPs, l, 1514); math.Abs(got-0.003761) > 2e-6 {
		t.Errorf("loss at s0 = %.6f, want 0.003761", got)
	}
}

// The RX skew's purpose (docs/reference/rgmii-timing.md §7): MAC 2 ns clean, nothing heavy loss,
// MAC 2 + PHY 2 past the half-cycle.
func TestRXSkewInference(t *testing.T) {
	b, _ := Lookup("odroid-c1")
	l := b.RX
	if p := frameLoss(2000+l.BoardSkewPs, l, 1514); p > 1e-12 {
		t.Errorf("2 ns RX delay loses %g", p)
	}
	if p := frameLoss(l.BoardSkewPs, l, 1514); p < 0.5 {
		t.Errorf("no RX delay loses only %g, want heavy loss", p)
	}
	if d := 2000 + l.PHYDelayPs + l.BoardSkewPs; d < 4000 || d >= 8000 {
		t.Errorf("MAC + PHY RX delay %v ps should land in the wrong half-cycle [4000, 8000)", d)
	}
}

func TestDescribe(t *testing.T) {
	b, _ := Lookup("odroid-c1")
	out := b.Describe()
	for _, want := range []string{
		"odroid-c1: Hardkernel ODROID-C1, SoC meson8b, PHY rtl8211f (0x001cc916) at MDIO 0, MAC 02:ad:c1:00:00:01",
		`phy-mode = "rgmii", amlogic,tx-delay-ns = <2>, amlogic,rx-delay-ns = absent`,
		"board_skew     +591.000 ps (calibrated)  [CALIBRATED",
		"514 retransmits in 131,796",
		"board_skew     +500.000 ps  [INFERENCE",
		"TX (MAC->PHY):", "RX (PHY->MAC):",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Describe lacks %q:\n%s", want, out)
		}
	}
}

// TestDWMACClock: every board's MAC runs on clk81 = 159.375 MHz, so v5.5's RIWT
// 0xa0 is 160 * 256 cycles = 257.0 us, and says where both facts come from.
func TestDWMACClock(t *testing.T) {
	for _, name := range Names() {
		b, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		d := b.DWMAC
		riwtNs := 0xa0 * 256 * 1e9 / float64(d.CSRClockHz)
		if d.CSRClockHz != 159_375_000 || riwtNs < 256_999 || riwtNs > 257_004 {
			t.Errorf("%s: clk81 %d Hz, RIWT 0xa0 = %.0f ns", name, d.CSRClockHz, riwtNs)
		}
		if d.CSRClockSource == "" || d.RIWTSource == "" {
			t.Errorf("%s: a DWMAC fact without its source", name)
		}
	}
}

// TestWithRXWatchdog: the other reading swaps in the CPU fitted under it and
// back again; a board without that fit refuses it rather than run a CPU that
// costs nothing.
func TestWithRXWatchdog(t *testing.T) {
	b, err := Lookup("odroid-c1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.WithRXWatchdog(true)
	if err != nil || !r.DWMAC.RIWTRestart || r.CPU.PerPacketNs != odroidC1CPURIWTReload.PerPacketNs {
		t.Fatalf("reload: %v, restart %v, CPU %+v", err, r.DWMAC.RIWTRestart, r.CPU)
	}
	if back, err := r.WithRXWatchdog(false); err != nil || back.DWMAC.RIWTRestart || back.CPU.PerPacketNs != odroidC1CPU.PerPacketNs {
		t.Fatalf("back to first-frame: %v, restart %v, CPU %+v", err, back.DWMAC.RIWTRestart, back.CPU)
	}
	b.CPUOtherReading = CPU{}
	if _, err := b.WithRXWatchdog(true); err == nil {
		t.Error("a board without a CPU fit under the reload reading took it")
	}
}
