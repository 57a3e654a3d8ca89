package meson

import (
	"errors"
	"testing"

	"mesonemu/linux/clk"
	"mesonemu/linux/clk/clktest"
)

const bootCntl9 = 1638 | 1<<15 | 1<<14 | 5<<16 // vendor U-Boot: sdm 1638, sdm_en, en, n2 5

func bootRegs(soc SoC, cntl9 uint32) map[uint32]uint32 {
	base, _ := soc.HHIBase()
	regs := map[uint32]uint32{
		base + HHIMPLLCntl5: 0,
		base + HHIMPLLCntl6: 1 << 27,
		base + HHIMPLLCntl9: cntl9,
	}
	if soc == GXBB {
		regs[base+HHIMPLLCntl] = 250 | 3<<9
		regs[base+HHIMPLLCntl2] = 0
	} else {
		regs[base+HHIMPLLCntl] = 106 | 1<<9
		regs[base+HHIMPLLCntl2] = 1024
	}
	return regs
}

func TestProviderRates(t *testing.T) {
	tests := []struct {
		soc  SoC
		want map[string]uint32
	}{
		{Meson8b, map[string]uint32{NameXtal: 24000000, NameFixedPLLDCO: 2550000000, NameFixedPLL: 2550000000,
			NameFClkDiv2Div: 1275000000, NameFClkDiv2: 1275000000, NameMPLLPrediv: 2550000000,
			NameMPLL2Div: 500002394, NameMPLL2: 500002394}},
		{Meson8m2, map[string]uint32{NameFixedPLL: 2550000000, NameMPLL2: 500002394}},
		// GXBB: 2 GHz * 16384 / (5 * 16384 + 1638), rounded up
		{GXBB, map[string]uint32{NameXtal: 24000000, NameFixedPLL: 2000000000, NameFClkDiv2: 1000000000,
			NameMPLL2Div: 392158741, NameMPLL2: 392158741}},
	}
	for _, tt := range tests {
		bus := clktest.New(bootRegs(tt.soc, bootCntl9))
		fw := clk.New()
		if _, err := Register(fw, bus, tt.soc); err != nil {
			t.Fatalf("%v: %v", tt.soc, err)
		}
		got := map[string]clk.ClockInfo{}
		for _, c := range fw.List() {
			got[c.Name] = c
		}
		for name, rate := range tt.want {
			if got[name].RateHz != rate {
				t.Errorf("%v %s = %d Hz, want %d", tt.soc, name, got[name].RateHz, rate)
			}
		}
		// fclk_div2 is critical: enabled, with its whole chain, at registration.
		for _, n := range []string{NameXtal, NameFixedPLLDCO, NameFixedPLL, NameFClkDiv2Div, NameFClkDiv2} {
			if got[n].EnableCount != 1 || got[n].PrepareCount != 1 {
				t.Errorf("%v %s enable/prepare %d/%d, want 1/1", tt.soc, n, got[n].EnableCount, got[n].PrepareCount)
			}
		}
		if got[NameMPLL2].EnableCount != 0 {
			t.Errorf("%v mpll2 enabled by registration", tt.soc)
		}
	}
}

// The MPLL init hook sets sdm_en once, with regmap_update_bits: no write when the
// boot loader already set it.
func TestProviderSDMEnable(t *testing.T) {
	base := uint32(HHIBaseMeson8b)
	for _, tt := range []struct {
		cntl9      uint32
		wantWrites []uint32
	}{
		{bootCntl9, nil},
		{bootCntl9 &^ (1 << 15), []uint32{bootCntl9}},
	} {
		bus := clktest.New(bootRegs(Meson8b, tt.cntl9))
		if _, err := Register(clk.New(), bus, Meson8b); err != nil {
			t.Fatal(err)
		}
		if w := bus.Writes(base + HHIMPLLCntl9); len(w) != len(tt.wantWrites) || len(w) > 0 && w[0] != tt.wantWrites[0] {
			t.Errorf("CNTL9 %#x: writes %#x, want %#x", tt.cntl9, w, tt.wantWrites)
		}
	}
}

func TestProviderSetMPLL2(t *testing.T) {
	base := uint32(HHIBaseMeson8b)
	for _, tt := range []struct {
		req       uint32
		wantRate  uint32
		wantCntl9 uint32
	}{
		{250000000, 249999701, 0x000acccd},
		{500000000, 499996410, 0x0005c667},
		{1000000000, 637500000, 0x0004c000},
	} {
		bus := clktest.New(bootRegs(Meson8b, bootCntl9))
		fw := clk.New()
		cs, err := Register(fw, bus, Meson8b)
		if err != nil {
			t.Fatal(err)
		}
		// mpll2 (gate, CLK_SET_RATE_PARENT) passes the request to mpll2_div.
		if err := fw.SetRate(cs.MPLL2, tt.req); err != nil {
			t.Fatal(err)
		}
		if r := fw.GetRate(cs.MPLL2); r != tt.wantRate {
			t.Errorf("%d: mpll2 %d, want %d", tt.req, r, tt.wantRate)
		}
		if v := bus.Get(base + HHIMPLLCntl9); v != tt.wantCntl9 {
			t.Errorf("%d: CNTL9 %#x, want %#x", tt.req, v, tt.wantCntl9)
		}
		if r := fw.GetRate(cs.FixedPLL); r != 2550000000 {
			t.Errorf("fixed_pll moved to %d", r)
		}
	}
}

// docs/reference/meson8b-ethernet.md §9.2: what m250_div sees when fixed_div2 asks it for
// 250 MHz, candidate by candidate, and what each divider definition picks.
func TestCandidateEvaluation(t *testing.T) {
	bus := clktest.New(bootRegs(Meson8b, bootCntl9))
	fw := clk.New()
	cs, err := Register(fw, bus, Meson8b)
	if err != nil {
		t.Fatal(err)
	}
	candidates := []struct{ i, mpll2, now uint32 }{
		{1, 249999701, 249999701},
		{2, 499996410, 249998205},
		{3, 637500000, 212500000},
		{4, 637500000, 159375000},
		{7, 637500000, 91071429},
	}
	for _, c := range candidates {
		p, err := fw.RoundRate(cs.MPLL2, 250000000*c.i)
		if err != nil || p != c.mpll2 {
			t.Errorf("i=%d: MPLL2 rounds %d to %d %v, want %d", c.i, 250000000*c.i, p, err, c.mpll2)
		}
		if now := (p + c.i - 1) / c.i; now != c.now {
			t.Errorf("i=%d: now %d, want %d", c.i, now, c.now)
		}
	}

	regs := map[uint32]uint32{0x2000: 0}
	m250, err := clk.NewRegmap(clktest.New(regs), 0x2000, "prg")
	if err != nil {
		t.Fatal(err)
	}
	table := []clk.DivTable{{Val: 2, Div: 2}, {Val: 3, Div: 3}, {Val: 4, Div: 4}, {Val: 5, Div: 5}, {Val: 6, Div: 6}, {Val: 7, Div: 7}}
	for _, tt := range []struct {
		name  string
		flags clk.DividerFlags
		table []clk.DivTable
		want  uint32
	}{
		{"pre-fix picks i=1", clk.DividerOneBased | clk.DividerAllowZero | clk.DividerRoundClosest, nil, 249999701},
		{"fixed picks i=2", clk.DividerAllowZero | clk.DividerRoundClosest, table, 249998205},
	} {
		name := "div " + tt.name
		d, err := fw.Register(clk.Init{Name: name, ParentNames: []string{NameMPLL2}, Flags: clk.SetRateParent},
			&clk.Divider{Reg: clk.Reg{Map: m250, Off: 0}, Shift: 7, Width: 3, Flags: tt.flags, Table: tt.table})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := fw.RoundRate(d, 250000000); err != nil || got != tt.want {
			t.Errorf("%s: %d %v, want %d", tt.name, got, err, tt.want)
		}
	}
}

// clk_round_rate on the fixed PLL: its divider ops run the full divider search
// (meson8b sets no CLK_DIVIDER_READ_ONLY); 2.55 GHz as a 32-bit long is negative.
func TestFixedPLLRoundQuirks(t *testing.T) {
	fw := clk.New()
	cs, err := Register(fw, clktest.New(bootRegs(Meson8b, bootCntl9)), Meson8b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.RoundRate(cs.FixedPLL, 2550000000); !errors.Is(err, clk.ErrInvalid) {
		t.Errorf("round fixed_pll to 2.55 GHz: %v, want EINVAL (negative long)", err)
	}
	if got, err := fw.RoundRate(cs.FixedPLL, 1000000000); err != nil || got != 637500000 {
		t.Errorf("round fixed_pll to 1 GHz: %d %v, want 637500000 (2550/4, a rate it cannot set)", got, err)
	}
}

func TestParseSoC(t *testing.T) {
	for s, want := range map[string]SoC{"meson8b": Meson8b, "Meson8m2": Meson8m2, "gxbb": GXBB} {
		if got, err := ParseSoC(s); err != nil || got != want {
			t.Errorf("ParseSoC(%q) = %v %v", s, got, err)
		}
	}
	if _, err := ParseSoC("g12a"); err == nil {
		t.Error("g12a accepted")
	}
	if _, err := Register(clk.New(), clktest.New(nil), SoC(7)); err == nil {
		t.Error("unknown SoC registered")
	}
}
