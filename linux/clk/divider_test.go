package clk

import (
	"strings"
	"testing"
)

// Each divider flag on its own, width 3, parent fixed at 100 MHz, no
// CLK_SET_RATE_PARENT: round, then set, then read the field and rate back.
func TestDividerFlags(t *testing.T) {
	table := []DivTable{{Val: 0, Div: 2}, {Val: 1, Div: 5}, {Val: 2, Div: 10}}
	tests := []struct {
		name      string
		flags     DividerFlags
		table     []DivTable
		req       uint32
		wantRound uint32
		wantField uint32
	}{
		{"plain val+1", 0, nil, 30000000, 25000000, 3},
		{"one-based", DividerOneBased, nil, 30000000, 25000000, 4},
		{"one-based clamps to 7", DividerOneBased, nil, 1000000, 14285715, 7},
		{"power-of-two exact", DividerPowerOfTwo, nil, 30000000, 25000000, 2},
		{"power-of-two rounds 5 up to 8", DividerPowerOfTwo, nil, 20000000, 12500000, 3},
		{"round-closest picks 3 (33.3 MHz) over 4 (25 MHz)", DividerRoundClosest, nil, 30000000, 33333334, 2},
		{"table rounds 4 up to 5", 0, table, 30000000, 20000000, 1},
		{"table closest keeps 5 (20 MHz) over 2 (50 MHz)", DividerRoundClosest, table, 30000000, 20000000, 1},
		{"table closest goes above the request", DividerRoundClosest, table, 45000000, 50000000, 0},
		{"max-at-zero: divisor 8 is value 0", DividerMaxAtZero, nil, 1000000, 12500000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bus, m := newTestRegs(t, 0x7<<4) // field [6:4] starts at 7, other bits set
			fw := New()
			mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 100000000})
			d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"osc"}},
				&Divider{Reg: Reg{m, 0}, Shift: 4, Width: 3, Flags: tt.flags, Table: tt.table})
			got, err := fw.RoundRate(d, tt.req)
			if err != nil || got != tt.wantRound {
				t.Fatalf("RoundRate(%d) = %d, %v; want %d", tt.req, got, err, tt.wantRound)
			}
			if err := fw.SetRate(d, tt.req); err != nil {
				t.Fatalf("SetRate: %v", err)
			}
			if f := bus.Get(testBase) >> 4 & 7; f != tt.wantField {
				t.Errorf("field = %d, want %d", f, tt.wantField)
			}
			if r := fw.GetRate(d); r != tt.wantRound {
				t.Errorf("rate after set = %d, want %d", r, tt.wantRound)
			}
		})
	}
}

func TestDividerAllowZero(t *testing.T) {
	for _, tt := range []struct {
		flags    DividerFlags
		wantWarn bool
	}{
		{DividerOneBased | DividerAllowZero, false},
		{DividerOneBased, true},
	} {
		_, m := newTestRegs(t, 0)
		fw := New()
		mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 100000000})
		d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"osc"}},
			&Divider{Reg: Reg{m, 0}, Shift: 7, Width: 3, Flags: tt.flags})
		if r := fw.GetRate(d); r != 100000000 {
			t.Errorf("flags %#x: zero divisor gives %d Hz, want the parent's 100000000", tt.flags, r)
		}
		warned := false
		for _, w := range fw.Warnings() {
			warned = warned || strings.Contains(w, "Zero divisor")
		}
		if warned != tt.wantWarn {
			t.Errorf("flags %#x: warned %v, want %v (%q)", tt.flags, warned, tt.wantWarn, fw.Warnings())
		}
	}
}

func TestDividerReadOnly(t *testing.T) {
	bus, m := newTestRegs(t, 3<<4)
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 100000000})
	d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"osc"}},
		&Divider{Reg: Reg{m, 0}, Shift: 4, Width: 3, Flags: DividerReadOnly})
	if _, ok := d.ops.(RateSetter); ok {
		t.Fatal("a read-only divider got set_rate")
	}
	for _, req := range []uint32{1000000, 25000000, 100000000} {
		if got, err := fw.RoundRate(d, req); err != nil || got != 25000000 {
			t.Errorf("RoundRate(%d) = %d, %v; want the current 25000000", req, got, err)
		}
	}
	bus.ClearLog()
	if err := fw.SetRate(d, 50000000); err != nil {
		t.Fatalf("SetRate: %v", err)
	}
	if w := bus.Writes(testBase); len(w) != 0 {
		t.Errorf("read-only divider wrote %#x", w)
	}
}

// With CLK_SET_RATE_PARENT the divider asks its parent for rate*i for every
// divisor i and keeps the best answer; ROUND_CLOSEST compares |rate - now|.
func TestDividerBestDivWalk(t *testing.T) {
	// A parent that can only make multiples of 7 MHz at or below the request.
	floor7 := func(r uint32) uint32 { return r / 7000000 * 7000000 }
	tests := []struct {
		name      string
		flags     DividerFlags
		table     []DivTable
		wantAsked []uint32
		wantRound uint32
		wantField uint32
	}{
		// 10 MHz: i=1 -> 7 MHz; i=2 -> 14/2 = 7; i=3 -> 28/3 = 9.33; i=4..7 -> 35/4=8.75, 49/5=9.8, 56/6=9.33, 70/7=10 (exact).
		{"round down", DividerOneBased, nil,
			[]uint32{10e6, 20e6, 30e6, 40e6, 50e6, 60e6, 70e6}, 10000000, 7},
		{"closest, table {2,3}", DividerRoundClosest, []DivTable{{Val: 1, Div: 2}, {Val: 2, Div: 3}},
			[]uint32{20e6, 30e6}, 9333334, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bus, m := newTestRegs(t, 0)
			fw := New()
			spy := &spyOps{hwRate: 1000000, round: floor7}
			mustRegister(t, fw, Init{Name: "pll"}, spy)
			d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"pll"}, Flags: SetRateParent},
				&Divider{Reg: Reg{m, 0}, Shift: 0, Width: 3, Flags: tt.flags, Table: tt.table})
			got, err := fw.RoundRate(d, 10000000)
			if err != nil || got != tt.wantRound {
				t.Fatalf("RoundRate = %d, %v; want %d", got, err, tt.wantRound)
			}
			if !equalRates(spy.rounds, tt.wantAsked) {
				t.Errorf("parent asked %v, want %v", spy.rounds, tt.wantAsked)
			}
			if err := fw.SetRate(d, 10000000); err != nil {
				t.Fatal(err)
			}
			if f := bus.Get(testBase) & 7; f != tt.wantField {
				t.Errorf("field %d, want %d", f, tt.wantField)
			}
		})
	}
}

// The exact-match shortcut: when rate*i equals the parent's current rate the
// walk stops at i and the parent is left alone, even if an earlier i was exact too.
func TestDividerExactMatchShortcut(t *testing.T) {
	bus, m := newTestRegs(t, 1)
	fw := New()
	spy := &spyOps{hwRate: 1000000000, round: func(r uint32) uint32 { return r }} // can make anything
	mustRegister(t, fw, Init{Name: "pll"}, spy)
	d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"pll"}, Flags: SetRateParent},
		&Divider{Reg: Reg{m, 0}, Shift: 0, Width: 3, Flags: DividerOneBased | DividerRoundClosest})
	if err := fw.SetRate(d, 250000000); err != nil {
		t.Fatal(err)
	}
	if f := bus.Get(testBase) & 7; f != 4 {
		t.Errorf("divisor %d, want 4 (1 GHz / 4)", f)
	}
	if len(spy.sets) != 0 {
		t.Errorf("parent reprogrammed: %v", spy.sets)
	}
	for _, r := range spy.rounds {
		if r >= 1000000000 {
			t.Errorf("parent asked for %d: the walk went past the shortcut", r)
		}
	}
}

// 32-bit unsigned long: maxdiv is bounded by ULONG_MAX / rate so rate*i never wraps.
func TestDividerMaxdivBound(t *testing.T) {
	_, m := newTestRegs(t, 0)
	fw := New()
	spy := &spyOps{hwRate: 1, round: func(r uint32) uint32 { return r }}
	mustRegister(t, fw, Init{Name: "pll"}, spy)
	d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"pll"}, Flags: SetRateParent},
		&Divider{Reg: Reg{m, 0}, Shift: 0, Width: 8, Flags: DividerOneBased})
	if _, err := fw.RoundRate(d, 1500000000); err != nil {
		t.Fatal(err)
	}
	// 2^32-1 / 1.5e9 = 2: only i = 1, 2 are tried.
	if want := []uint32{1500000000, 3000000000}; !equalRates(spy.rounds, want) {
		t.Errorf("asked %v, want %v", spy.rounds, want)
	}
}

func equalRates(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDividerValidate(t *testing.T) {
	_, m := newTestRegs(t, 0)
	fw := New()
	for _, d := range []*Divider{
		{Reg: Reg{m, 0}, Shift: 0, Width: 0},
		{Reg: Reg{m, 0}, Shift: 30, Width: 3},
		{Reg: Reg{m, 0}, Shift: 10, Width: 8, Flags: DividerHiwordMask},
		{Reg: Reg{nil, 0}, Shift: 0, Width: 3},
	} {
		if _, err := fw.Register(Init{Name: "bad"}, d); err == nil {
			t.Errorf("divider %+v registered", *d)
		}
	}
}

// TestDividerOfTwoToThe31: a POWER_OF_TWO divider of width 5 can hold 2^31,
// which Linux keeps in an int (INT_MIN), so DIV_ROUND_UP_ULL(prate, div) sign-
// extends it: the rate is 0 for a parent above 2^31 Hz and a negative long (an
// error) at or below it, not prate/2^31 rounded up. Divisors below 2^31 are
// unaffected.
func TestDividerOfTwoToThe31(t *testing.T) {
	for _, tt := range []struct {
		name     string
		readOnly bool // the field holds 31 (2^31)
		parent   uint32
		req      uint32
		want     uint32
		wantErr  bool
	}{
		{"parent above 2^31: 0 Hz", false, 1<<31 + 6, 2, 0, false},
		{"parent at 2^31: an error", false, 1 << 31, 1, 0, true},
		{"2^30 divides as usual", false, 1 << 31, 2, 2, false},
		{"read-only 2^31, parent above: 0 Hz", true, 1<<31 + 6, 2, 0, false},
		{"read-only 2^31, parent at 2^31: an error", true, 1 << 31, 2, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flags, field := DividerPowerOfTwo, uint32(0)
			if tt.readOnly {
				flags, field = flags|DividerReadOnly, 31
			}
			_, m := newTestRegs(t, field)
			fw := New()
			mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: tt.parent})
			d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"osc"}},
				&Divider{Reg: Reg{m, 0}, Width: 5, Flags: flags})
			got, err := fw.RoundRate(d, tt.req)
			if (err != nil) != tt.wantErr || !tt.wantErr && got != tt.want {
				t.Errorf("RoundRate(%d) with a %d Hz parent = %d, %v; want %d (error %v)", tt.req, tt.parent, got, err, tt.want, tt.wantErr)
			}
		})
	}
}
