package phy

import (
	"testing"

	"mesonemu/emu"
)

func TestAutonegResolution(t *testing.T) {
	tests := []struct {
		name      string
		partner   Partner
		anar      uint16 // 0: power-on value
		gbcr      uint16 // written only when anar != 0
		want      LinkState
		wantLPA   uint16
		wantGBSR  uint16
		wantBMSR  uint16
		wantPHYSR uint16
	}{
		{name: "default partner: 1000 full",
			want:    LinkState{true, 1000, true},
			wantLPA: 0xc141 /* NP, ACK, 100FD, 10FD, selector */, wantGBSR: 0x3800,
			wantBMSR: 0x796d, wantPHYSR: 0x082c},
		{name: "partner limited to 100",
			partner: Partner{MaxSpeed: 100},
			want:    LinkState{true, 100, true},
			wantLPA: 0x4141 /* ACK, 100FD, 10FD, selector */, wantGBSR: 0,
			wantBMSR: 0x796d, wantPHYSR: 0x081c},
		{name: "partner limited to 10 with pause",
			partner: Partner{MaxSpeed: 10, Pause: true, AsymPause: true},
			want:    LinkState{true, 10, true},
			wantLPA: 0x4c41, wantGBSR: 0,
			wantBMSR: 0x796d, wantPHYSR: 0x080c},
		{name: "partner half duplex only",
			partner: Partner{Modes: Mode100Half | Mode1000Half},
			want:    LinkState{true, 1000, false},
			wantLPA: 0xc081, wantGBSR: 0x3400,
			wantBMSR: 0x796d, wantPHYSR: 0x0824},
		{name: "local advertises 100 only",
			anar: 0x0181, gbcr: 0x0000,
			want:    LinkState{true, 100, true},
			wantLPA: 0xc141, wantGBSR: 0x0800,
			wantBMSR: 0x796d, wantPHYSR: 0x081c},
		{name: "nothing in common",
			partner: Partner{Modes: Mode1000Full},
			anar:    0x0061, gbcr: 0x0000,
			want:    LinkState{},
			wantLPA: 0xc001, wantGBSR: 0x0800,
			wantBMSR: 0x7949, wantPHYSR: 0},
	}
	for _, tc := range tests {
		r := newRig(t, Config{Partner: tc.partner})
		if tc.anar != 0 {
			r.wr(regANAR, tc.anar)
			r.wr(regGBCR, tc.gbcr)
			r.wr(regBMCR, 0x1340) // AN enable + restart
		}
		start := r.now()
		r.m.Advance(DefaultAutonegTime - 1)
		if got := r.link(); got.Up {
			t.Errorf("%s: link up %v before the AN time", tc.name, got)
		}
		if tc.anar != 0 && r.rd(regBMCR)&bit16(bmcrANRestart) == 0 {
			t.Errorf("%s: restart bit cleared before AN finished", tc.name)
		}
		r.m.Advance(1)
		if d := r.now() - start; d != DefaultAutonegTime {
			t.Fatalf("%s: test advanced %d ns", tc.name, d)
		}
		if got := r.link(); got != tc.want {
			t.Errorf("%s: link %+v, want %+v", tc.name, got, tc.want)
		}
		checks := []struct {
			what      string
			got, want uint16
		}{
			{"BMSR", r.rd(regBMSR), tc.wantBMSR},
			{"BMCR restart cleared", r.rd(regBMCR) & bit16(bmcrANRestart), 0},
			{"ANLPAR", r.rd(regANLPAR), tc.wantLPA},
			{"GBSR", r.rd(regGBSR), tc.wantGBSR},
			{"PHYSR", r.paged(pageStatus, regPHYSR), tc.wantPHYSR},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %s = %#04x, want %#04x", tc.name, c.what, c.got, c.want)
			}
		}
	}
}

func TestAutonegTimeOverride(t *testing.T) {
	r := newRig(t, Config{AutonegTime: 3 * emu.Second})
	r.m.Advance(3*emu.Second - 1)
	if r.link().Up {
		t.Fatal("link up before the configured 3 s")
	}
	r.m.Advance(1)
	if !r.link().Up {
		t.Fatal("link down at the configured 3 s")
	}
}

func TestForcedMode(t *testing.T) {
	tests := []struct {
		name    string
		partner Partner
		bmcr    uint16
		want    LinkState
	}{
		{"forced 100 full", Partner{}, 0x2100, LinkState{true, 100, true}},
		{"forced 100 half", Partner{}, 0x2000, LinkState{true, 100, false}},
		{"forced 10 full", Partner{}, 0x0100, LinkState{true, 10, true}},
		{"forced 1000 needs AN", Partner{}, 0x0140, LinkState{}},
		{"reserved speed bits", Partner{}, 0x2140, LinkState{}},
		{"partner limited to 10", Partner{MaxSpeed: 10}, 0x2100, LinkState{}},
	}
	for _, tc := range tests {
		r := newRig(t, Config{Partner: tc.partner})
		r.m.Advance(DefaultAutonegTime) // linked by AN first
		r.rd(regBMSR)
		r.wr(regBMCR, tc.bmcr)
		if r.link().Up {
			t.Errorf("%s: link stayed up across the mode change", tc.name)
		}
		if got := r.rd(regBMSR) & bit16(bmsrANComplete); got != 0 {
			t.Errorf("%s: AN complete still set in forced mode", tc.name)
		}
		r.m.Advance(DefaultForcedLinkTime - 1)
		if r.link().Up {
			t.Errorf("%s: link up before the forced link time", tc.name)
		}
		r.m.Advance(1)
		if got := r.link(); got != tc.want {
			t.Errorf("%s: link %+v, want %+v", tc.name, got, tc.want)
		}
		if got := r.rd(regBMSR)&bit16(bmsrLinkStatus) != 0; got != tc.want.Up {
			t.Errorf("%s: BMSR link %v, want %v", tc.name, got, tc.want.Up)
		}
	}
}

func TestLatchedLowLinkStatus(t *testing.T) {
	r := newRig(t, Config{})
	r.m.Advance(DefaultAutonegTime)
	steps := []struct {
		name   string
		action func()
		want   []bool // successive BMSR link bits
	}{
		{"link up, never dropped since power-on", func() {}, []bool{true, true}},
		{"cable pulled", func() { r.setCable(false) }, []bool{false, false}},
		{"cable back, AN done", func() { r.setCable(true); r.m.Advance(DefaultAutonegTime) }, []bool{true}},
		{"short drop between reads", func() {
			r.setCable(false)
			r.setCable(true)
			r.m.Advance(DefaultAutonegTime)
		}, []bool{false, true, true}},
	}
	for _, s := range steps {
		s.action()
		for i, want := range s.want {
			if got := r.rd(regBMSR)&bit16(bmsrLinkStatus) != 0; got != want {
				t.Errorf("%s: read %d link %v, want %v", s.name, i, got, want)
			}
		}
	}
}

func TestLinkChangeInterrupt(t *testing.T) {
	r := newRig(t, Config{})
	r.writePaged(pageIntr, regINER, bit16(intrLinkChange))
	r.m.Advance(DefaultAutonegTime)
	steps := []struct {
		name      string
		action    func()
		wantLevel bool
		wantINSR  uint16 // first read; the second must be 0
	}{
		{"link up raises it", func() {}, true, 0x0010},
		{"cable pulled raises it", func() { r.setCable(false) }, true, 0x0010},
		{"nothing new: quiet", func() {}, false, 0},
		{"INER cleared: no latch", func() {
			r.writePaged(pageIntr, regINER, 0)
			r.setCable(true)
			r.m.Advance(DefaultAutonegTime)
		}, false, 0},
		{"restart AN drops the link", func() {
			r.writePaged(pageIntr, regINER, bit16(intrLinkChange))
			r.wr(regBMCR, 0x1340)
		}, true, 0x0010},
	}
	for _, s := range steps {
		s.action()
		if got := r.irqLevel(); got != s.wantLevel {
			t.Errorf("%s: IRQ level %v, want %v", s.name, got, s.wantLevel)
		}
		if got := r.paged(pageStatus, regINSR); got != s.wantINSR {
			t.Errorf("%s: INSR = %#04x, want %#04x", s.name, got, s.wantINSR)
		}
		if got := r.paged(pageStatus, regINSR); got != 0 {
			t.Errorf("%s: INSR not cleared by reading: %#04x", s.name, got)
		}
		if r.irqLevel() {
			t.Errorf("%s: IRQ still asserted after INSR read", s.name)
		}
	}
}

func TestPowerDownAndIsolate(t *testing.T) {
	r := newRig(t, Config{})
	r.m.Advance(DefaultAutonegTime)
	r.rd(regBMSR)

	r.wr(regBMCR, 0x1540) // isolate: the RGMII side sees no link, the cable keeps it
	if r.link().Up {
		t.Error("isolated PHY reports link to the MAC side")
	}
	if r.rd(regBMSR)&bit16(bmsrLinkStatus) == 0 {
		t.Error("isolate dropped the media link")
	}
	r.wr(regBMCR, 0x1140)
	if !r.link().Up {
		t.Error("link not back after isolate cleared")
	}

	r.wr(regBMCR, 0x1940) // power down
	if r.link().Up || r.rd(regBMSR)&bit16(bmsrLinkStatus) != 0 {
		t.Error("powered-down PHY has link")
	}
	r.m.Advance(10 * DefaultAutonegTime)
	if r.link().Up {
		t.Error("powered-down PHY negotiated")
	}
	r.wr(regBMCR, 0x1140) // power up: AN runs again
	r.m.Advance(DefaultAutonegTime)
	if got := r.link(); got != (LinkState{true, 1000, true}) {
		t.Errorf("after power-up: %+v", got)
	}
}

func TestOnChange(t *testing.T) {
	r := newRig(t, Config{})
	calls := 0
	r.m.Lock()
	r.p.OnChange(func() { calls++ })
	r.m.Unlock()
	steps := []struct {
		name   string
		action func()
		want   int // calls added
	}{
		{"AN completes", func() { r.m.Advance(DefaultAutonegTime) }, 1},
		{"TX delay on", func() { r.writePaged(pageMIICtrl, regTXDLY, 0x0100) }, 1},
		{"TX delay written again unchanged", func() { r.writePaged(pageMIICtrl, regTXDLY, 0x0100) }, 0},
		{"RX delay on", func() { r.writePaged(pageMIICtrl, regRXDLY, 0x0008) }, 1},
		{"unrelated register", func() { r.wr(regANAR, 0x0de1) }, 0},
		{"cable pulled", func() { r.setCable(false) }, 1},
		{"cable back: no change until AN", func() { r.setCable(true) }, 0},
		{"AN completes again", func() { r.m.Advance(DefaultAutonegTime) }, 1},
		{"soft reset: link down and delays to straps", func() { r.wr(regBMCR, 0x8000) }, 1},
	}
	for _, s := range steps {
		before := calls
		s.action()
		if got := calls - before; got != s.want {
			t.Errorf("%s: %d OnChange calls, want %d", s.name, got, s.want)
		}
	}
}
