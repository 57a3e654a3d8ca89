package meson

import (
	"testing"
)

const fixedPLL = 2550000000 // what the Meson8b boot-loader registers give (computed in pll_test)

// docs/reference/meson8b-ethernet.md §7.2.
func TestMPLLParamsTable(t *testing.T) {
	tests := []struct {
		req, parent uint32
		flags       MPLLFlags
		sdm, n2     uint32
		rate        uint32
	}{
		{250000000, fixedPLL, 0, 3277, 10, 249999701},
		{500000000, fixedPLL, 0, 1639, 5, 499996410},
		{249999701, fixedPLL, 0, 3277, 10, 249999701}, // re-round is stable
		{499996410, fixedPLL, 0, 1639, 5, 499996410},
		{637500000, fixedPLL, 0, 0, 4, 637500000},
		{750000000, fixedPLL, 0, 0, 4, 637500000}, // above parent/4: n2 clamps to 4, below the request
		{1000000000, fixedPLL, 0, 0, 4, 637500000},
		{4000000, fixedPLL, 0, 16383, 511, 4980470}, // q = 637 > 511: clamps to the slowest setting
		{500000000, fixedPLL, MPLLRoundClosest, 1638, 5, 500002394},
		{250000000, 2000000000, 0, 0, 8, 250000000}, // GXBB: exact
		{500000000, 2000000000, 0, 0, 4, 500000000},
		{1000000000, 2000000000, 0, 0, 4, 500000000},
		// 2550e6 = 10 * 231818182 + 231818180: the remainder's sdm rounds up to
		// 16384 and carries into n2
		{231818182, fixedPLL, 0, 0, 11, 231818182},
	}
	for _, tt := range tests {
		sdm, n2, err := MPLLParams(tt.req, tt.parent, tt.flags)
		if err != nil || sdm != tt.sdm || n2 != tt.n2 {
			t.Errorf("params(%d from %d, %#x) = sdm %d n2 %d %v; want %d %d", tt.req, tt.parent, tt.flags, sdm, n2, err, tt.sdm, tt.n2)
			continue
		}
		if rate, err := MPLLRate(tt.parent, sdm, n2); err != nil || rate != tt.rate {
			t.Errorf("rate(%d, sdm %d, n2 %d) = %d %v; want %d", tt.parent, sdm, n2, rate, err, tt.rate)
		}
	}
}

func TestMPLLVendorSetting(t *testing.T) {
	if r, err := MPLLRate(fixedPLL, 1638, 5); err != nil || r != 500002394 {
		t.Errorf("vendor U-Boot MPLL2 = %d %v, want 500002394", r, err)
	}
	if _, err := MPLLRate(fixedPLL, 0, 3); err == nil {
		t.Error("n2 3 accepted")
	}
	if _, _, err := MPLLParams(0, fixedPLL, 0); err == nil {
		t.Error("0 Hz accepted")
	}
}

// With sdm rounded up the MPLL never overshoots a request it can reach
// (4 <= parent/req <= 511).
func TestMPLLRoundsDown(t *testing.T) {
	for req := uint32(5000000); req <= 637500000; req += 1234567 {
		sdm, n2, err := MPLLParams(req, fixedPLL, 0)
		if err != nil {
			t.Fatal(err)
		}
		rate, _ := MPLLRate(fixedPLL, sdm, n2)
		if rate > req {
			t.Fatalf("request %d gave %d (n2 %d sdm %d): above the request", req, rate, n2, sdm)
		}
	}
}

func TestPLLRate(t *testing.T) {
	tests := []struct {
		m, n, frac uint32
		want       uint32
	}{
		{106, 1, 1024, 2550000000}, // Meson8b: 24 MHz * 106 + 24 MHz * 1024/4096
		{250, 3, 0, 2000000000},    // GXBB
		{106, 0, 1024, 0},          // n 0: no rate, no division by zero
		{100, 3, 1, 800001954},     // (2.4e9 + ceil(24e6/4096) = 5860) / 3, rounded up
	}
	for _, tt := range tests {
		if got := PLLRate(XtalHz, tt.m, tt.n, tt.frac, 12); got != tt.want {
			t.Errorf("m %d n %d frac %d: %d, want %d", tt.m, tt.n, tt.frac, got, tt.want)
		}
	}
}
