package soc

import (
	"math"
	"testing"
)

// Exact rates (computed with rational arithmetic): 2.55e9 x 16384 / (16384 n2 + sdm).
// Linux's integer ceil of these is 249,999,701 / 499,996,410 / 500,002,394.
const (
	mpll2PreFixHz  = 249999700.80841565 // n2 10, sdm 3277
	mpll2PostFixHz = 499996409.72247154 // n2 5, sdm 1639
	mpll2VendorHz  = 500002393.5469973  // n2 5, sdm 1638
)

func cntl9(n2, sdm uint32, sdmEn, en bool) uint32 {
	v := n2<<16 | sdm
	if sdmEn {
		v |= 1 << 15
	}
	if en {
		v |= 1 << 14
	}
	return v
}

func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want))*1e-3
}

func TestHHIResetRates(t *testing.T) {
	tests := []struct {
		kind                     Kind
		fixed, fclk, mpll2, prnt float64
		mpll2On                  bool
	}{
		{Meson8b, 2550e6, 1275e6, mpll2VendorHz, 2550e6, true},
		{Meson8m2, 2550e6, 1275e6, mpll2VendorHz, 2550e6, true},
		{GXBB, 2000e6, 1000e6, 0, 2000e6, false},
	}
	for _, tt := range tests {
		h, err := NewHHI(tt.kind, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.FixedPLLHz(); got != tt.fixed {
			t.Errorf("%v fixed PLL = %v, want %v", tt.kind, got, tt.fixed)
		}
		if got := h.FclkDiv2Hz(); got != tt.fclk {
			t.Errorf("%v fclk_div2 = %v, want %v", tt.kind, got, tt.fclk)
		}
		if got := h.MPLLParentHz(); got != tt.prnt {
			t.Errorf("%v MPLL parent = %v, want %v", tt.kind, got, tt.prnt)
		}
		if got := h.MPLL2Hz(); !near(got, tt.mpll2) {
			t.Errorf("%v MPLL2 = %.6f, want %.6f", tt.kind, got, tt.mpll2)
		}
		if h.MPLL2Enabled() != tt.mpll2On {
			t.Errorf("%v MPLL2 enabled = %v", tt.kind, h.MPLL2Enabled())
		}
	}
	// GXBB's gated MPLL2 still has a divider setting: 2 GHz / 8.
	h, _ := NewHHI(GXBB, nil)
	if got := h.MPLL2DivHz(); got != 250e6 {
		t.Errorf("GXBB MPLL2 divider = %v, want 250 MHz", got)
	}
}

func TestHHIRatesFromRegisters(t *testing.T) {
	tests := []struct {
		name                      string
		cntl, cntl2, cntl5, cntl6 uint32
		cntl9                     uint32
		fixed, fclk, mpll2        float64
	}{
		{"pre-fix MPLL2 10/3277", 106 | 1<<9, 1024, 0, 1 << 27, cntl9(10, 3277, true, true), 2550e6, 1275e6, mpll2PreFixHz},
		{"post-fix MPLL2 5/1639", 106 | 1<<9, 1024, 0, 1 << 27, cntl9(5, 1639, true, true), 2550e6, 1275e6, mpll2PostFixHz},
		{"vendor MPLL2 5/1638", 106 | 1<<9, 1024, 0, 1 << 27, cntl9(5, 1638, true, true), 2550e6, 1275e6, mpll2VendorHz},
		{"sdm_en off: integer divide", 106 | 1<<9, 1024, 0, 1 << 27, cntl9(10, 3277, false, true), 2550e6, 1275e6, 255e6},
		{"MPLL2 gated", 106 | 1<<9, 1024, 0, 1 << 27, cntl9(5, 1638, true, false), 2550e6, 1275e6, 0},
		{"n2 below 4: no output", 106 | 1<<9, 1024, 0, 1 << 27, cntl9(3, 0, true, true), 2550e6, 1275e6, 0},
		{"n2 4 sdm 0", 106 | 1<<9, 1024, 0, 1 << 27, cntl9(4, 0, true, true), 2550e6, 1275e6, 637.5e6},
		{"mpll_prediv /2", 106 | 1<<9, 1024, 1 << 12, 1 << 27, cntl9(5, 0, true, true), 2550e6, 1275e6, 255e6},
		{"fclk_div2 gated", 106 | 1<<9, 1024, 0, 0, cntl9(5, 0, true, true), 2550e6, 0, 510e6},
		{"od 1 halves the PLL", 106 | 1<<9 | 1<<16, 1024, 0, 1 << 27, cntl9(5, 0, true, true), 1275e6, 637.5e6, 255e6},
		{"n 0 stops the PLL", 106, 1024, 0, 1 << 27, cntl9(5, 0, true, true), 0, 0, 0},
		{"GXBB encoding", 250 | 3<<9, 0, 0, 1 << 27, cntl9(8, 0, true, true), 2000e6, 1000e6, 250e6},
	}
	for _, tt := range tests {
		h, _ := NewHHI(Meson8b, nil)
		h.WriteReg(HHIMPLLCntl, tt.cntl)
		h.WriteReg(HHIMPLLCntl2, tt.cntl2)
		h.WriteReg(HHIMPLLCntl5, tt.cntl5)
		h.WriteReg(HHIMPLLCntl6, tt.cntl6)
		h.WriteReg(HHIMPLLCntl9, tt.cntl9)
		if got := h.FixedPLLHz(); !near(got, tt.fixed) {
			t.Errorf("%s: fixed PLL = %.6f, want %.6f", tt.name, got, tt.fixed)
		}
		if got := h.FclkDiv2Hz(); !near(got, tt.fclk) {
			t.Errorf("%s: fclk_div2 = %.6f, want %.6f", tt.name, got, tt.fclk)
		}
		if got := h.MPLL2Hz(); !near(got, tt.mpll2) {
			t.Errorf("%s: MPLL2 = %.6f, want %.6f", tt.name, got, tt.mpll2)
		}
	}
}

func TestBlocksValidate(t *testing.T) {
	for _, k := range []Kind{Meson8b, Meson8m2, GXBB} {
		for _, b := range []interface{ Validate() error }{HHIBlock(k), GlueBlock(k)} {
			if err := b.Validate(); err != nil {
				t.Errorf("%v: %v", k, err)
			}
		}
	}
	if HHIBlock(Kind(7)) != nil || GlueBlock(Kind(-1)) != nil {
		t.Error("tables for an invalid kind")
	}
	if _, err := NewHHI(Kind(7), nil); err == nil {
		t.Error("NewHHI accepted an invalid kind")
	}
	if _, err := NewGlue(Kind(7), nil); err == nil {
		t.Error("NewGlue accepted an invalid kind")
	}
}

func TestHHIResetWords(t *testing.T) {
	tests := []struct {
		kind Kind
		off  uint32
		want uint32
	}{
		{Meson8b, HHIMPLLCntl, 0x8000026a},
		{Meson8b, HHIMPLLCntl2, 0x400},
		{Meson8b, HHIMPLLCntl5, 0},
		{Meson8b, HHIMPLLCntl6, 0x08000000},
		{Meson8b, HHIMPLLCntl9, 0x0005c666},
		{GXBB, HHIMPLLCntl, 0x800006fa},
		{GXBB, HHIMPLLCntl9, 0x00088000},
	}
	for _, tt := range tests {
		h, _ := NewHHI(tt.kind, nil)
		if got := h.ReadReg(tt.off); got != tt.want {
			t.Errorf("%v %s reset = %#x, want %#x", tt.kind, h.RegName(tt.off), got, tt.want)
		}
	}
}
