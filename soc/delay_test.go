package soc

import (
	"math"
	"testing"
)

// prg builds a PRG_ETH0 word with the TX-clock-relevant fields.
func prg(sel, txdly, div uint32, gate, gen bool) uint32 {
	v := uint32(1) | sel<<4 | txdly<<5 | div<<7
	if gate {
		v |= 1 << 10
	}
	if gen {
		v |= 1 << 12
	}
	return v
}

// chip returns HHI and glue of kind with MPLL2 and PRG_ETH0 programmed.
func chip(t *testing.T, kind Kind, mpll2 uint32, eth0 uint32) (*HHI, *Glue) {
	t.Helper()
	h, err := NewHHI(kind, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGlue(kind, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.WriteReg(HHIMPLLCntl9, mpll2)
	g.WriteReg(PRGEth0Off, eth0)
	return h, g
}

var (
	preFixMPLL2  = cntl9(10, 3277, true, true)
	postFixMPLL2 = cntl9(5, 1639, true, true)
	gxbbMPLL2Off = cntl9(8, 0, true, false)
)

func TestTXClock(t *testing.T) {
	tests := []struct {
		name        string
		kind        Kind
		mpll2, eth0 uint32
		parent      string
		sel         float64
		div         int
		rate, tx    float64
		enabled     bool
	}{
		{"pre-fix", Meson8b, preFixMPLL2, prg(0, 2, 1, true, true), ParentMPLL2, mpll2PreFixHz, 1, mpll2PreFixHz / 2, mpll2PreFixHz / 2, true},
		{"post-fix", Meson8b, postFixMPLL2, prg(0, 1, 2, true, true), ParentMPLL2, mpll2PostFixHz, 2, mpll2PostFixHz / 4, mpll2PostFixHz / 4, true},
		{"meson8m2 post-fix", Meson8m2, postFixMPLL2, prg(0, 1, 2, true, true), ParentMPLL2, mpll2PostFixHz, 2, mpll2PostFixHz / 4, mpll2PostFixHz / 4, true},
		{"m250_div 0 bypasses", Meson8b, preFixMPLL2, prg(0, 2, 0, true, true), ParentMPLL2, mpll2PreFixHz, 1, mpll2PreFixHz / 2, mpll2PreFixHz / 2, true},
		{"meson8b bit 4 set: fclk_div2", Meson8b, postFixMPLL2, prg(1, 1, 5, true, true), ParentFclkDiv2, 1275e6, 5, 127.5e6, 127.5e6, true},
		{"TX gate off", Meson8b, postFixMPLL2, prg(0, 1, 2, false, true), ParentMPLL2, mpll2PostFixHz, 2, mpll2PostFixHz / 4, 0, false},
		{"generator off", Meson8b, postFixMPLL2, prg(0, 1, 2, true, false), ParentMPLL2, mpll2PostFixHz, 2, mpll2PostFixHz / 4, 0, false},
		{"MPLL2 gated", Meson8b, cntl9(5, 1639, true, false), prg(0, 1, 2, true, true), ParentMPLL2, 0, 2, 0, 0, false},
		{"gxbb fclk_div2 div 4", GXBB, gxbbMPLL2Off, prg(0, 1, 4, true, true), ParentFclkDiv2, 1e9, 4, 125e6, 125e6, true},
		{"gxbb bit 4 set: gated MPLL2", GXBB, gxbbMPLL2Off, prg(1, 1, 4, true, true), ParentMPLL2, 0, 4, 0, 0, false},
		{"gxbb bit 4 set: MPLL2 500 MHz", GXBB, cntl9(4, 0, true, true), prg(1, 1, 2, true, true), ParentMPLL2, 500e6, 2, 125e6, 125e6, true},
	}
	for _, tt := range tests {
		h, g := chip(t, tt.kind, tt.mpll2, tt.eth0)
		c := ComputeTXClock(h, g)
		if c.Parent != tt.parent || !near(c.SelHz, tt.sel) || c.Div != tt.div || !near(c.RateHz, tt.rate) ||
			!near(c.TXHz, tt.tx) || c.Enabled != tt.enabled || !near(c.DivOutHz, tt.sel/float64(tt.div)) || !c.RGMII {
			t.Errorf("%s: got %+v, want parent %s sel %.3f div %d rate %.3f tx %.3f enabled %v",
				tt.name, c, tt.parent, tt.sel, tt.div, tt.rate, tt.tx, tt.enabled)
		}
	}
}

func TestMACTXDelayA(t *testing.T) {
	tests := []struct {
		name        string
		kind        Kind
		mpll2, eth0 uint32
		wantPs      int64
		exactPs     float64
	}{
		{"pre-fix TXDLY 2 (DT 4 ns)", Meson8b, preFixMPLL2, prg(0, 2, 1, true, true), 8000, 2e12 / mpll2PreFixHz},
		{"pre-fix TXDLY 1 (DT 2 ns)", Meson8b, preFixMPLL2, prg(0, 1, 1, true, true), 4000, 1e12 / mpll2PreFixHz},
		{"pre-fix TXDLY 3", Meson8b, preFixMPLL2, prg(0, 3, 1, true, true), 12000, 3e12 / mpll2PreFixHz},
		{"post-fix TXDLY 1", Meson8b, postFixMPLL2, prg(0, 1, 2, true, true), 2000, 1e12 / mpll2PostFixHz},
		{"post-fix TXDLY 2", Meson8b, postFixMPLL2, prg(0, 2, 2, true, true), 4000, 2e12 / mpll2PostFixHz},
		{"gxbb fclk_div2 div 4 TXDLY 1", GXBB, gxbbMPLL2Off, prg(0, 1, 4, true, true), 2000, 2000},
		{"gxbb TXDLY 3", GXBB, gxbbMPLL2Off, prg(0, 3, 4, true, true), 6000, 6000},
		{"odd div 3: TX/4 = 1.5 periods", Meson8b, postFixMPLL2, prg(0, 1, 3, true, true), 3000, 1.5e12 / mpll2PostFixHz},
		{"TXDLY 0", Meson8b, preFixMPLL2, prg(0, 0, 1, true, true), 0, 0},
		{"input stopped", Meson8b, cntl9(5, 1639, true, false), prg(0, 1, 2, true, true), 0, 0},
	}
	for _, tt := range tests {
		h, g := chip(t, tt.kind, tt.mpll2, tt.eth0)
		d := MACTXDelayA(ComputeTXClock(h, g), g.TXDLY())
		if d.RoundedPs() != tt.wantPs || math.Abs(d.Ps-tt.exactPs) > 1e-6 {
			t.Errorf("%s: %v ps (%s), want %d ps (exact %.6f)", tt.name, d.Ps, d.Why, tt.wantPs, tt.exactPs)
		}
	}
}

func TestMACTXDelayAExplanation(t *testing.T) {
	tests := []struct {
		mpll2, eth0 uint32
		kind        Kind
		want        string
	}{
		{preFixMPLL2, prg(0, 2, 1, true, true), Meson8b,
			"TXDLY 2 x step 4000 ps (m250_sel 249.9997 MHz period 4000 ps > TX/4 2000 ps) = 8000 ps"},
		{postFixMPLL2, prg(0, 1, 2, true, true), Meson8b,
			"TXDLY 1 x step 2000 ps (m250_sel 499.9964 MHz period 2000 ps = TX/4 2000 ps) = 2000 ps"},
		{gxbbMPLL2Off, prg(0, 1, 4, true, true), GXBB,
			"TXDLY 1 x step 2000 ps (m250_sel 1000.0000 MHz period 1000 ps < TX/4 2000 ps) = 2000 ps"},
	}
	for _, tt := range tests {
		h, g := chip(t, tt.kind, tt.mpll2, tt.eth0)
		if got := MACTXDelayA(ComputeTXClock(h, g), g.TXDLY()).Why; got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

// Mechanism B values of docs/reference/rgmii-timing.md §6.1 (raw MPLL2 pulse = one 2.55 GHz period).
func TestMACTXDelayB(t *testing.T) {
	pulse := 1e12 / 2550e6
	tests := []struct {
		name        string
		kind        Kind
		mpll2, eth0 uint32
		wantPs      float64
	}{
		{"pre-fix TXDLY 1", Meson8b, preFixMPLL2, prg(0, 1, 1, true, true), pulse},
		{"pre-fix TXDLY 2", Meson8b, preFixMPLL2, prg(0, 2, 1, true, true), 1e12 / mpll2PreFixHz},
		{"pre-fix TXDLY 3", Meson8b, preFixMPLL2, prg(0, 3, 1, true, true), 1e12/mpll2PreFixHz + pulse},
		{"post-fix TXDLY 1", Meson8b, postFixMPLL2, prg(0, 1, 2, true, true), 1e12 / mpll2PostFixHz},
		{"post-fix TXDLY 2", Meson8b, postFixMPLL2, prg(0, 2, 2, true, true), 2e12 / mpll2PostFixHz},
		{"gxbb TXDLY 1", GXBB, gxbbMPLL2Off, prg(0, 1, 4, true, true), 2000},
		{"fclk_div2 div 1: 50 % duty", Meson8b, postFixMPLL2, prg(1, 1, 1, true, true), 1e12 / 1275e6 / 2},
		{"odd div 3: 1 input period", Meson8b, postFixMPLL2, prg(0, 1, 3, true, true), 1e12 / mpll2PostFixHz},
		{"TXDLY 0", Meson8b, postFixMPLL2, prg(0, 0, 2, true, true), 0},
	}
	for _, tt := range tests {
		h, g := chip(t, tt.kind, tt.mpll2, tt.eth0)
		d := MACTXDelayB(ComputeTXClock(h, g), g.TXDLY())
		if math.Abs(d.Ps-tt.wantPs) > 1e-6 {
			t.Errorf("%s: %.6f ps (%s), want %.6f", tt.name, d.Ps, d.Why, tt.wantPs)
		}
	}
	if got := MACTXDelayB(TXClock{}, 1).Ps; got != 0 {
		t.Errorf("stopped clock: %v ps", got)
	}
}

func TestMACRXDelay(t *testing.T) {
	tests := []struct {
		eth0 uint32
		want float64
	}{
		{0x7d21, 2000},           // boot loader: adj_enable + adj_setup
		{0x7d21 &^ (1 << 13), 0}, // adj_setup alone
		{0x7d21 &^ (1 << 14), 0}, // adj_enable alone
		{0x1521, 0},
	}
	for _, tt := range tests {
		g, _ := NewGlue(Meson8b, nil)
		g.WriteReg(PRGEth0Off, tt.eth0)
		if got := MACRXDelay(g.RXAdjust()); got.Ps != tt.want {
			t.Errorf("PRG_ETH0 %#x: RX delay %v (%s), want %v", tt.eth0, got.Ps, got.Why, tt.want)
		}
	}
}

// TXDLY is a 2-bit field: the free function masks larger values as the register would.
func TestMACTXDelayMasksTXDLY(t *testing.T) {
	c := TXClock{Parent: ParentFclkDiv2, SelHz: 1e9, Div: 4}
	if got := MACTXDelayA(c, 5).Ps; got != 2000 {
		t.Errorf("txdly 5 (masked to 1) = %v ps, want 2000", got)
	}
}
