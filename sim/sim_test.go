package sim

import (
	"os"
	"testing"

	"mesonemu/emu"
)

func u32(v uint32) *uint32 { return &v }

// TestBootProgramsTheClockTreeAndLinksUp boots the board with both glue variants
// and checks what the hardware ends up producing: the rates and PRG_ETH0 come out
// of the guest's clock framework and are read back from the silicon model.
func TestBootProgramsTheClockTreeAndLinksUp(t *testing.T) {
	cases := []struct {
		board, driver string
		delay         uint32
		prg           uint32
		txHz          float64 // hardware TX clock, rounded to 1 Hz
		macDelayPs    float64
	}{
		{"odroid-c1", "pre-fix", 4, 0x74c1, 124999850, 8000},
		{"odroid-c1", "pre-fix", 2, 0x74a1, 124999850, 4000},
		{"odroid-c1", "fixed", 2, 0x7521, 124999102, 2000},
		{"odroid-c1", "fixed", 4, 0x7541, 124999102, 4000},
		{"odroid-c2", "fixed", 2, 0, 125000000, 2000},
	}
	for _, c := range cases {
		s, err := New(Options{Board: c.board, Driver: c.driver, TxDelayNs: u32(c.delay), Seed: 1})
		if err != nil {
			t.Fatalf("%s %s %d ns: %v", c.board, c.driver, c.delay, err)
		}
		st := s.Hardware().State()
		prg, clk, d, link := st.PRGEth0.Value, st.TXClock, st.MACTXDelay, st.Link
		if c.prg != 0 && prg != c.prg {
			t.Errorf("%s %s %d ns: PRG_ETH0 %#x, want %#x", c.board, c.driver, c.delay, prg, c.prg)
		}
		if got := float64(int64(clk.TXHz + 0.5)); got != c.txHz {
			t.Errorf("%s %s: TX clock %.3f Hz, want %.0f", c.board, c.driver, clk.TXHz, c.txHz)
		}
		if d.RoundedPs() != int64(c.macDelayPs) {
			t.Errorf("%s %s %d ns: MAC TX delay %.1f ps, want %.0f", c.board, c.driver, c.delay, d.Ps, c.macDelayPs)
		}
		if !link.Up || link.Speed != 1000 || !link.FullDuplex {
			t.Errorf("%s: link %+v", c.board, link)
		}
		if s.LinkTime < 2*emu.Second || s.LinkTime > 4*emu.Second {
			t.Errorf("%s: link after %v of virtual time", c.board, s.LinkTime.Duration())
		}
	}
}

// TestRXWatchdogReading: the option reads the MAC's RX watchdog one way or the
// other and takes the board CPU fitted under that reading; the board's own
// reading is the first-frame one.
func TestRXWatchdogReading(t *testing.T) {
	for _, c := range []struct {
		opt    string
		reload bool
		cpuNs  float64
	}{{"", false, 8650}, {RXWatchdogFirst, false, 8650}, {RXWatchdogReload, true, 6000}} {
		b, err := Options{RXWatchdog: c.opt}.Validate()
		if err != nil {
			t.Fatalf("%q: %v", c.opt, err)
		}
		if b.DWMAC.RIWTRestart != c.reload || b.CPU.PerPacketNs != c.cpuNs {
			t.Errorf("%q: reload %v, CPU %.0f ns per packet; want %v, %.0f", c.opt, b.DWMAC.RIWTRestart, b.CPU.PerPacketNs, c.reload, c.cpuNs)
		}
	}
	if _, err := (Options{RXWatchdog: "both"}).Validate(); err == nil {
		t.Error("rx-watchdog \"both\" accepted")
	}
}

// A device tree picks the board and its DT as Linux reads it: the v5.5 Odroid-C1
// tree (4 ns) boots the pre-fix glue into the commit's configuration.
func TestNewFromDeviceTree(t *testing.T) {
	blob, err := os.ReadFile("../soc/board/testdata/odroidc1-4ns.dtb")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{DeviceTree: blob, Driver: "pre-fix", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Board.Name != "odroid-c1" || s.DT.TxDelayNs == nil || *s.DT.TxDelayNs != 4 || s.DT.PhyMode != "rgmii" {
		t.Errorf("board %s, DT tx-delay %v phy-mode %q; want odroid-c1, 4 ns, rgmii", s.Board.Name, s.DT.TxDelayNs, s.DT.PhyMode)
	}
	if _, err := (Options{DeviceTree: blob, Board: "odroid-c2"}).Validate(); err == nil {
		t.Error("a board name beside a device tree accepted")
	}
}
