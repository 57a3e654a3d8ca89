package clk

import "testing"

func TestFixedFactor(t *testing.T) {
	tests := []struct {
		name       string
		flags      Flags
		parentRate uint32
		req        uint32
		wantRate   uint32 // rate at registration: floor(parent / 2)
		wantRound  uint32
		wantAsked  []uint32
	}{
		// recalc floors: 249,999,701 / 2 = 124,999,850
		{"no flag: the parent's current rate is used", 0, 249999701, 125000000, 124999850, 124999850, nil},
		// the parent is asked for 2 * 125 MHz and answers 249,999,701
		{"SET_RATE_PARENT asks the parent for rate*div", SetRateParent, 1000, 125000000, 500, 124999850, []uint32{250000000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fw := New()
			spy := &spyOps{hwRate: tt.parentRate, round: func(uint32) uint32 { return 249999701 }}
			mustRegister(t, fw, Init{Name: "mpll"}, spy)
			f := mustRegister(t, fw, Init{Name: "half", ParentNames: []string{"mpll"}, Flags: tt.flags},
				&FixedFactor{Mult: 1, Div: 2})
			if r := fw.GetRate(f); r != tt.wantRate {
				t.Errorf("rate %d, want %d", r, tt.wantRate)
			}
			got, err := fw.RoundRate(f, tt.req)
			if err != nil || got != tt.wantRound {
				t.Errorf("RoundRate = %d, %v; want %d", got, err, tt.wantRound)
			}
			if !equalRates(spy.rounds, tt.wantAsked) {
				t.Errorf("parent asked %v, want %v", spy.rounds, tt.wantAsked)
			}
		})
	}
}

func TestFixedFactorRejectsZero(t *testing.T) {
	fw := New()
	if _, err := fw.Register(Init{Name: "x"}, &FixedFactor{Mult: 1}); err == nil {
		t.Error("a /0 fixed factor registered")
	}
}

func TestGate(t *testing.T) {
	for _, tt := range []struct {
		name           string
		flags          GateFlags
		start, on, off uint32
	}{
		{"set to enable", 0, 0x1, 0x401, 0x1},
		{"set to disable", GateSetToDisable, 0x401, 0x1, 0x401},
		{"hiword mask", GateHiwordMask, 0xffff, 0x04000400, 0x04000000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bus, m := newTestRegs(t, tt.start)
			fw := New()
			mustRegister(t, fw, Init{Name: "osc"}, &FixedRate{Rate: 1})
			g := mustRegister(t, fw, Init{Name: "gate", ParentNames: []string{"osc"}}, &Gate{Reg: Reg{m, 0}, Bit: 10, Flags: tt.flags})
			if err := fw.PrepareEnable(g); err != nil {
				t.Fatal(err)
			}
			if v := bus.Get(testBase); v != tt.on {
				t.Errorf("enabled: %#x, want %#x", v, tt.on)
			}
			if err := fw.DisableUnprepare(g); err != nil {
				t.Fatal(err)
			}
			if v := bus.Get(testBase); v != tt.off {
				t.Errorf("disabled: %#x, want %#x", v, tt.off)
			}
		})
	}
}
