package clk

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// clk_set_rate returns early, without touching hardware, when the rounded rate
// is the cached rate.
func TestSetRateEarlyReturn(t *testing.T) {
	bus, m := newTestRegs(t, 3)
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 100000000})
	d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"osc"}}, &Divider{Reg: Reg{m, 0}, Width: 3})
	bus.ClearLog()
	if err := fw.SetRate(d, 26000000); err != nil { // rounds (100/26 -> /4) to 25 MHz, the current rate
		t.Fatal(err)
	}
	if w := bus.Writes(testBase); len(w) != 0 {
		t.Errorf("wrote %#x", w)
	}
}

// calc_new_rates is run with the original request, not the rounded rate, and
// set_rate receives the new rate with the parent's rate.
func TestSetRateUsesOriginalRequest(t *testing.T) {
	fw := New()
	spy := &spyOps{hwRate: 10, round: func(r uint32) uint32 { return r / 10 * 9 },
		setTo: func(r, _ uint32) uint32 { return r }}
	c := mustRegister(t, fw, Init{Name: "pll"}, spy)
	if err := fw.SetRate(c, 100); err != nil {
		t.Fatal(err)
	}
	if want := []uint32{100, 100}; !equalRates(spy.rounds, want) {
		t.Errorf("round_rate saw %v, want %v (walk, then calc_new_rates with the request)", spy.rounds, want)
	}
	if len(spy.sets) != 1 || spy.sets[0] != [2]uint32{90, 0} {
		t.Errorf("set_rate got %v, want [[90 0]]", spy.sets)
	}
	if r := fw.GetRate(c); r != 90 {
		t.Errorf("rate %d, want 90", r)
	}
}

// change_rate goes top-down and hands each set_rate the parent's recomputed,
// actual rate, not the rounding walk's guess.
func TestChangeRateGivesActualParentRate(t *testing.T) {
	fw := New()
	// The parent's rounding promises the request; the hardware ends 1 Hz lower.
	parent := &spyOps{hwRate: 100, round: func(r uint32) uint32 { return r },
		setTo: func(r, _ uint32) uint32 { return r - 1 }}
	mustRegister(t, fw, Init{Name: "pll"}, parent)
	child := &passOps{}
	c := mustRegister(t, fw, Init{Name: "leaf", ParentNames: []string{"pll"}, Flags: SetRateParent}, child)
	if err := fw.SetRate(c, 200); err != nil {
		t.Fatal(err)
	}
	if len(parent.sets) != 1 || parent.sets[0][0] != 200 {
		t.Fatalf("parent set_rate %v, want 200 first", parent.sets)
	}
	if len(child.sets) != 1 || child.sets[0] != [2]uint32{200, 199} {
		t.Errorf("child set_rate %v, want [[200 199]]", child.sets)
	}
	if r := fw.GetRate(c); r != 199 {
		t.Errorf("child rate %d, want 199", r)
	}
}

func TestPrepareEnableChain(t *testing.T) {
	bus, m := newTestRegs(t, 0, 0)
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 1})
	mustRegister(t, fw, Init{Name: "g1", ParentNames: []string{"osc"}}, &Gate{Reg: Reg{m, 0}, Bit: 1})
	g2 := mustRegister(t, fw, Init{Name: "g2", ParentNames: []string{"g1"}}, &Gate{Reg: Reg{m, 4}, Bit: 2})

	if err := fw.Enable(g2); !errors.Is(err, ErrShutdown) {
		t.Errorf("enable before prepare: %v, want ESHUTDOWN", err)
	}
	if err := fw.PrepareEnable(g2); err != nil {
		t.Fatal(err)
	}
	if bus.Get(testBase) != 2 || bus.Get(testBase+4) != 4 {
		t.Errorf("gates %#x %#x, want both on", bus.Get(testBase), bus.Get(testBase+4))
	}
	// the parent's enable comes first
	log := bus.Log()
	var writes []uint32
	for _, a := range log {
		if a.Write {
			writes = append(writes, a.Addr)
		}
	}
	if !equalRates(writes, []uint32{testBase, testBase + 4}) {
		t.Errorf("write order %#x, want parent first", writes)
	}
	if err := fw.DisableUnprepare(g2); err != nil {
		t.Fatal(err)
	}
	if bus.Get(testBase) != 0 || bus.Get(testBase+4) != 0 {
		t.Errorf("gates %#x %#x, want both off", bus.Get(testBase), bus.Get(testBase+4))
	}
}

func TestCriticalClock(t *testing.T) {
	bus, m := newTestRegs(t, 0)
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 1})
	g := mustRegister(t, fw, Init{Name: "crit", ParentNames: []string{"osc"}, Flags: IsCritical}, &Gate{Reg: Reg{m, 0}, Bit: 27})
	if bus.Get(testBase) != 1<<27 {
		t.Fatalf("critical clock not enabled at registration: %#x", bus.Get(testBase))
	}
	_ = fw.DisableUnprepare(g)
	if bus.Get(testBase) != 1<<27 {
		t.Errorf("critical clock disabled")
	}
	if w := fw.Warnings(); len(w) == 0 || !strings.Contains(strings.Join(w, "\n"), "Disabling critical crit") {
		t.Errorf("warnings %q", w)
	}
}

// A clock registered before its parent is an orphan (rate 0) until the parent
// appears; then it is reparented and its rate recalculated.
func TestOrphanAdoptedLater(t *testing.T) {
	fw := New()
	half := mustRegister(t, fw, Init{Name: "half", ParentNames: []string{"osc"}}, &FixedFactor{Mult: 1, Div: 2})
	if p := fw.GetParent(half); p != nil || fw.GetRate(half) != 0 {
		t.Fatalf("before the parent: parent %v rate %d", p, fw.GetRate(half))
	}
	s, _ := fw.Summary(SummaryV54)
	if !strings.Contains(s, " half ") {
		t.Errorf("orphan missing from the summary:\n%s", s)
	}
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 100})
	if p := fw.GetParent(half); p == nil || p.Name() != "osc" || fw.GetRate(half) != 50 {
		t.Errorf("after the parent: parent %v rate %d, want osc 50", p, fw.GetRate(half))
	}
}

func TestRegisterRefusals(t *testing.T) {
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 1})
	for name, tc := range map[string]struct {
		in  Init
		ops Ops
	}{
		"duplicate":              {Init{Name: "osc"}, &FixedRate{}},
		"no name":                {Init{}, &FixedRate{}},
		"unknown flag":           {Init{Name: "x", Flags: 1 << 20}, &FixedRate{}},
		"mux without parents":    {Init{Name: "x", ParentNames: []string{"osc", "y"}}, &passOps{}},
		"set_rate without round": {Init{Name: "x"}, setOnly{}},
		"nil ops":                {Init{Name: "x"}, nil},
	} {
		if _, err := fw.Register(tc.in, tc.ops); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
}

// A mux that lists its own child as a possible parent would make Linux recurse
// forever; here the candidate is refused.
func TestParentLoopRefused(t *testing.T) {
	_, m := newTestRegs(t, 0)
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 100})
	mustRegister(t, fw, Init{Name: "mux", ParentNames: []string{"osc", "leaf"}, Flags: SetRateParent},
		&Mux{Reg: Reg{m, 0}, Mask: 1})
	leaf := mustRegister(t, fw, Init{Name: "leaf", ParentNames: []string{"mux"}, Flags: SetRateParent}, &FixedFactor{Mult: 1, Div: 1})
	if got, err := fw.RoundRate(leaf, 100); err != nil || got != 100 {
		t.Errorf("RoundRate = %d, %v; want 100", got, err)
	}
	if err := fw.SetParent(fw.Lookup("mux"), leaf); err == nil {
		t.Error("mux reparented under its own child")
	}
}

// A .round_rate result of 2^31 or more is a negative long on 32-bit ARM: the
// framework takes it as an error (rounding a 2.55 GHz fixed PLL fails).
func TestRoundRateNegativeLong(t *testing.T) {
	_, m := newTestRegs(t, 0)
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 2550000000})
	d := mustRegister(t, fw, Init{Name: "div", ParentNames: []string{"osc"}},
		&Divider{Reg: Reg{m, 0}, Width: 2, Flags: DividerPowerOfTwo | DividerReadOnly})
	if got, err := fw.RoundRate(d, 2550000000); !errors.Is(err, ErrInvalid) {
		t.Errorf("RoundRate(2.55 GHz) = %d, %v; want EINVAL", got, err)
	}
	if hw := hwOf(d).RoundRate(1); hw != 0 {
		t.Errorf("clk_hw_round_rate = %d, want 0", hw)
	}
	if r := fw.GetRate(d); r != 2550000000 {
		t.Errorf("GetRate = %d: unsigned long rates above 2^31 are fine", r)
	}
}

func TestSignedLongComparisons(t *testing.T) {
	tests := []struct {
		name            string
		rate, now, best uint32
		want            bool
	}{
		{"closer wins", 250000000, 249999701, 249998205, true},
		{"equal is not better", 100, 90, 110, false},
		// 3 GHz requested: 100 MHz is truly closer than 0 Hz, but 3e9-1e8 reads
		// as -1,394,967,296 and 3e9-0 as -1,294,967,296: |..| says no.
		{"32-bit: 100 MHz loses to nothing for a 3 GHz request", 3000000000, 100000000, 0, false},
		{"32-bit: 2.9 GHz beats nothing for a 3 GHz request", 3000000000, 2900000000, 0, true},
	}
	for _, tt := range tests {
		if got := isBestDiv(tt.rate, tt.now, tt.best, DividerRoundClosest); got != tt.want {
			t.Errorf("divider %s: %v, want %v", tt.name, got, tt.want)
		}
		if got := muxIsBetter(tt.rate, tt.now, tt.best, true); got != tt.want {
			t.Errorf("mux %s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if absLong(0x80000000) != math.MinInt32 {
		t.Error("abs(LONG_MIN) must stay LONG_MIN")
	}
}

// The same 32-bit effect through a ROUND_CLOSEST mux: a 3 GHz request with only
// a 100 MHz parent fails.
func TestMuxClosestSignedLong(t *testing.T) {
	fw, mux := muxTree(t, []uint32{100000000}, 0, SetRateParent, MuxRoundClosest)
	if _, err := fw.RoundRate(mux, 3000000000); !errors.Is(err, ErrInvalid) {
		t.Errorf("RoundRate(3 GHz) err %v, want EINVAL", err)
	}
	if got, err := fw.RoundRate(mux, 150000000); err != nil || got != 100000000 {
		t.Errorf("RoundRate(150 MHz) = %d, %v", got, err)
	}
}

func TestUnregister(t *testing.T) {
	fw := New()
	osc := mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 100})
	half := mustRegister(t, fw, Init{Name: "half", ParentNames: []string{"osc"}}, &FixedFactor{Mult: 1, Div: 2})
	if err := fw.Unregister(osc); err != nil {
		t.Fatal(err)
	}
	if fw.GetParent(half) != nil || fw.GetRate(half) != 0 {
		t.Error("child of an unregistered clock kept its parent")
	}
	if err := fw.SetRate(osc, 1); !errors.Is(err, ErrNoDevice) {
		t.Errorf("SetRate on an unregistered clock: %v", err)
	}
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 300})
	if fw.GetRate(half) != 150 {
		t.Errorf("re-registered parent not adopted: %d", fw.GetRate(half))
	}
}

func TestBusErrorReachesCaller(t *testing.T) {
	_, m := newTestRegs(t, 0)
	fw := New()
	mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 1})
	g := mustRegister(t, fw, Init{Name: "gate", ParentNames: []string{"osc"}}, &Gate{Reg: Reg{m, 0x40}, Bit: 0})
	if err := fw.PrepareEnable(g); err == nil || isAccessErr(err) == false {
		t.Errorf("enable through an unmapped register: %v", err)
	}
}

// setOnly has .set_rate and .recalc_rate but cannot round: Linux refuses it.
type setOnly struct{}

func (setOnly) RecalcRate(*HW, uint32) (uint32, error) { return 0, nil }
func (setOnly) SetRate(*HW, uint32, uint32) error      { return nil }
