package soc

import (
	"testing"

	"mesonemu/emu"
)

func TestGlueResetDecode(t *testing.T) {
	tests := []struct {
		kind  Kind
		reset uint32
		want  map[string]uint32
	}{
		{Meson8b, 0x7d21, map[string]uint32{
			"rgmii_mode": 1, "data_endian": 0, "desc_endian": 0, "rx_clk_inv": 0, "m250_sel": 0, "txdly": 1,
			"m250_div": 2, "rgmii_tx_clk_en": 1, "inverted_rmii_clk": 1, "tx_and_phy_ref_clk": 1,
			"adj_enable": 1, "adj_setup": 1, "adj_delay": 0, "adj_skew": 0, "cali_start": 0, "cali_rise": 0,
			"cali_sel": 0, "rx_reuse": 0, "urgent": 0}},
		{GXBB, 0x7621, map[string]uint32{
			"rgmii_mode": 1, "m250_sel": 0, "txdly": 1, "m250_div": 4, "rgmii_tx_clk_en": 1,
			"inverted_rmii_clk": 0, "tx_and_phy_ref_clk": 1, "adj_enable": 1, "adj_setup": 1}},
	}
	for _, tt := range tests {
		g, err := NewGlue(tt.kind, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.ReadReg(PRGEth0Off); got != tt.reset {
			t.Errorf("%v PRG_ETH0 reset = %#x, want %#x", tt.kind, got, tt.reset)
		}
		for name, want := range tt.want {
			if got := g.Regs().GetField(PRGEth0Off, name); got != want {
				t.Errorf("%v PRG_ETH0.%s = %d, want %d", tt.kind, name, got, want)
			}
		}
	}
}

// Every bit of PRG_ETH0 belongs to a named field (docs/reference/meson8b-ethernet.md §3 covers all 32).
func TestGlueEveryBitNamed(t *testing.T) {
	r := GlueBlock(Meson8b).Register("PRG_ETH0")
	var mask uint32
	for _, f := range r.Fields {
		mask |= f.Mask()
	}
	if mask != 0xffffffff || len(r.Fields) != 19 {
		t.Errorf("PRG_ETH0 fields cover %#x with %d fields, want 0xffffffff with 19", mask, len(r.Fields))
	}
	for _, name := range []string{"rgmii_mode", "data_endian", "desc_endian", "rx_clk_inv", "m250_sel", "txdly",
		"m250_div", "rgmii_tx_clk_en", "inverted_rmii_clk", "tx_and_phy_ref_clk", "adj_enable", "adj_setup",
		"adj_delay", "adj_skew", "cali_start", "cali_rise", "cali_sel", "rx_reuse", "urgent"} {
		if r.Field(name) == nil {
			t.Errorf("PRG_ETH0 has no field %q", name)
		}
	}
}

// TestGuestWrites: guest stores follow the tables' access kinds; holes and
// undeclared registers ignore them and read 0.
func TestGuestWrites(t *testing.T) {
	g, _ := NewGlue(Meson8b, nil)
	h, _ := NewHHI(Meson8b, nil)
	tests := []struct {
		name             string
		dev              emu.Device
		off, write, want uint32
	}{
		{"PRG_ETH0 is all RW", g, PRGEth0Off, 0xffffffff, 0xffffffff},
		{"PRG_ETH1: calibration read-back RO, cfg_rxclk_dly stores", g, PRGEth1Off, 0xffffffff, 0x000f0000},
		{"glue hole", g, 0x8, 0xffffffff, 0},
		{"HHI_MPLL_CNTL: the lock bit is RO", h, HHIMPLLCntl, 0, 1 << 31},
		{"HHI_MPLL_CNTL9: reserved bits stay 0", h, HHIMPLLCntl9, 0xffffffff, 0x01ffffff},
		{"undeclared HHI register", h, 0x2a4, 0xffffffff, 0},
	}
	for _, tt := range tests {
		tt.dev.WriteReg(tt.off, tt.write)
		if got := tt.dev.ReadReg(tt.off); got != tt.want {
			t.Errorf("%s: read %#x after writing %#x, want %#x", tt.name, got, tt.write, tt.want)
		}
	}
}
