package phy

import (
	"strings"
	"testing"

	"mesonemu/emu"
)

func TestBlocksValidate(t *testing.T) {
	for _, b := range newRig(t, Config{}).p.Blocks() {
		if err := b.Validate(); err != nil {
			t.Errorf("%s: %v", b.Name, err)
		}
	}
}

func TestPowerOnRegisters(t *testing.T) {
	r := newRig(t, Config{})
	tests := []struct {
		name string
		reg  uint8
		want uint16
	}{
		{"BMCR AN on, 1000 full", regBMCR, 0x1140},
		{"BMSR no link yet", regBMSR, 0x7949},
		{"PHYSID1", regPHYID1, 0x001c},
		{"PHYSID2", regPHYID2, 0xc916},
		{"ANAR 10/100 + selector", regANAR, 0x01e1},
		{"ANLPAR empty", regANLPAR, 0},
		{"ANER local NP able", regANER, 0x0004},
		{"GBCR 1000 FD+HD", regGBCR, 0x0300},
		{"GBSR empty", regGBSR, 0},
		{"ESTATUS 1000T FD+HD", regESTATUS, 0x3000},
		{"page select", regPAGSR, 0},
		{"unknown base register", 0x07, 0},
		{"extended register on page 0", regINER, 0},
	}
	for _, tc := range tests {
		if got := r.rd(tc.reg); got != tc.want {
			t.Errorf("%s: reg %#x = %#04x, want %#04x", tc.name, tc.reg, got, tc.want)
		}
	}
	// The bus never passes numbers above 31; the device still answers 0.
	r.m.Lock()
	got := r.p.ReadMII(40)
	r.p.WriteMII(40, 0xffff)
	r.m.Unlock()
	if got != 0 {
		t.Errorf("ReadMII(40) = %#04x, want 0", got)
	}
}

func TestReadOnlyWritesIgnored(t *testing.T) {
	r := newRig(t, Config{})
	tests := []struct {
		name string
		reg  uint8
		val  uint16
		want uint16
	}{
		{"PHYSID1", regPHYID1, 0xffff, 0x001c},
		{"PHYSID2", regPHYID2, 0x0000, 0xc916},
		{"BMSR", regBMSR, 0x0000, 0x7949},
		{"ESTATUS", regESTATUS, 0x0000, 0x3000},
		{"ANAR keeps selector and T4", regANAR, 0xffff, 0xade1},
		{"GBCR all writable bits", regGBCR, 0xffff, 0xff00},
		{"page select is 12 bits", regPAGSR, 0xffff, 0x0fff},
	}
	for _, tc := range tests {
		r.wr(tc.reg, tc.val)
		if got := r.rd(tc.reg); got != tc.want {
			t.Errorf("%s: wrote %#04x, read %#04x, want %#04x", tc.name, tc.val, got, tc.want)
		}
	}
}

func TestPagedDelayBitsFromStraps(t *testing.T) {
	tests := []struct {
		name         string
		txStrap      bool
		rxStrap      bool
		wantTX, want uint16 // raw reg 0x11, reg 0x15
	}{
		{"both straps off", false, false, 0x0000, 0x0000},
		{"TX strap (RXD1)", true, false, 0x0100, 0x0000},
		{"RX strap (RXD0)", false, true, 0x0000, 0x0008},
		{"both straps on", true, true, 0x0100, 0x0008},
	}
	for _, tc := range tests {
		r := newRig(t, Config{TXDelayStrap: tc.txStrap, RXDelayStrap: tc.rxStrap})
		if got := r.paged(pageMIICtrl, regTXDLY); got != tc.wantTX {
			t.Errorf("%s: 0xd08:0x11 = %#04x, want %#04x", tc.name, got, tc.wantTX)
		}
		if got := r.paged(pageMIICtrl, regRXDLY); got != tc.want {
			t.Errorf("%s: 0xd08:0x15 = %#04x, want %#04x", tc.name, got, tc.want)
		}
		r.m.Lock()
		tx, rx := r.p.TXDelayEnabled(), r.p.RXDelayEnabled()
		r.m.Unlock()
		if tx != tc.txStrap || rx != tc.rxStrap {
			t.Errorf("%s: outputs tx %v rx %v, want %v %v", tc.name, tx, rx, tc.txStrap, tc.rxStrap)
		}
		// The same register numbers on another page are other registers.
		if got := r.paged(pageIntr, regTXDLY); got != 0 {
			t.Errorf("%s: 0xa42:0x11 = %#04x, want 0", tc.name, got)
		}
		// Base registers ignore the page.
		r.wr(regPAGSR, pageMIICtrl)
		if got := r.rd(regPHYID2); got != 0xc916 {
			t.Errorf("%s: PHYSID2 on page 0xd08 = %#04x", tc.name, got)
		}
		r.wr(regPAGSR, 0)
	}
}

func TestDelayBitWrites(t *testing.T) {
	r := newRig(t, Config{})
	r.writePaged(pageMIICtrl, regTXDLY, 0xffff)
	r.writePaged(pageMIICtrl, regRXDLY, 0xffff)
	if got := r.paged(pageMIICtrl, regTXDLY); got != 0x0100 {
		t.Errorf("reg 0x11 after 0xffff = %#04x, want 0x0100 (only the delay bit is writable)", got)
	}
	if got := r.paged(pageMIICtrl, regRXDLY); got != 0x0008 {
		t.Errorf("reg 0x15 after 0xffff = %#04x, want 0x0008", got)
	}
	// A write to reg 0x11 on page 0 does not reach page 0xd08.
	r.writePaged(0, regTXDLY, 0)
	if got := r.paged(pageMIICtrl, regTXDLY); got != 0x0100 {
		t.Errorf("reg 0x11 after a page-0 write = %#04x, want 0x0100", got)
	}
}

func TestSoftResetSelfClearsAndKeepsStraps(t *testing.T) {
	tests := []struct {
		name    string
		txStrap bool
		rxStrap bool
	}{
		{"straps off", false, false},
		{"straps on", true, true},
	}
	for _, tc := range tests {
		r := newRig(t, Config{TXDelayStrap: tc.txStrap, RXDelayStrap: tc.rxStrap})
		// Program the opposite of the straps and change other registers.
		r.writePaged(pageMIICtrl, regTXDLY, boolBit(!tc.txStrap, 0x0100))
		r.writePaged(pageMIICtrl, regRXDLY, boolBit(!tc.rxStrap, 0x0008))
		r.writePaged(pageIntr, regINER, 0x0010)
		r.wr(regANAR, 0x0de1)
		r.wr(regPAGSR, pageMIICtrl)

		r.wr(regBMCR, 0x8000)
		if got := r.rd(regBMCR); got != 0x9140 {
			t.Errorf("%s: BMCR during reset = %#04x, want 0x9140", tc.name, got)
		}
		r.wr(regANAR, 0x0001) // ignored while in reset
		r.m.Advance(DefaultResetTime)
		if got := r.rd(regBMCR); got != 0x1140 {
			t.Errorf("%s: BMCR after reset = %#04x, want 0x1140", tc.name, got)
		}
		checks := []struct {
			what string
			got  uint16
			want uint16
		}{
			{"ANAR", r.rd(regANAR), 0x01e1},
			{"page select", r.rd(regPAGSR), 0},
			{"TX delay = strap", r.paged(pageMIICtrl, regTXDLY), boolBit(tc.txStrap, 0x0100)},
			{"RX delay = strap", r.paged(pageMIICtrl, regRXDLY), boolBit(tc.rxStrap, 0x0008)},
			{"INER", r.paged(pageIntr, regINER), 0},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %s = %#04x, want %#04x", tc.name, c.what, c.got, c.want)
			}
		}
	}
}

func boolBit(on bool, bit uint16) uint16 {
	if on {
		return bit
	}
	return 0
}

func TestAnyAccessIsSafe(t *testing.T) {
	r := newRig(t, Config{})
	values := []uint16{0, 0xffff, 0x8000, 0x1200, 0x0800, 0x5555, 0xaaaa}
	pages := []uint16{0, pageMIICtrl, pageIntr, pageStatus, 0x0fff}
	for _, page := range pages {
		for reg := 0; reg < 40; reg++ {
			if reg == regPAGSR {
				continue
			}
			for _, v := range values {
				r.wr(regPAGSR, page)
				r.wr(uint8(reg), v)
				r.rd(uint8(reg))
				r.m.Advance(emu.Millisecond)
			}
		}
	}
	r.m.Advance(10 * emu.Second)
	r.m.Lock()
	out := r.p.Dump()
	r.m.Unlock()
	if !strings.Contains(out, "PHYSID2 = 0x0000c916") {
		t.Errorf("dump lacks PHYSID2:\n%s", out)
	}
}

func TestRegName(t *testing.T) {
	r := newRig(t, Config{})
	tests := []struct {
		page uint16
		reg  uint8
		want string
	}{
		{0, regBMCR, "BMCR"},
		{pageMIICtrl, regBMSR, "BMSR"},
		{pageMIICtrl, regTXDLY, "0xd08:TXDLY_CR"},
		{pageStatus, regINSR, "0xa43:INSR"},
		{pageIntr, 0x10, "0xa42:0x10"},
		{0, 0x07, "0x07"},
	}
	for _, tc := range tests {
		r.wr(regPAGSR, tc.page)
		r.m.Lock()
		got := r.p.RegName(tc.reg)
		r.m.Unlock()
		if got != tc.want {
			t.Errorf("page %#x reg %#x: %q, want %q", tc.page, tc.reg, got, tc.want)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	m := emu.NewMachine(1)
	for _, speed := range []int{5, 2500, -1} {
		if _, err := New(m, Config{Partner: Partner{MaxSpeed: speed}}); err == nil {
			t.Errorf("partner limit %d accepted", speed)
		}
	}
	if _, err := New(m, Config{AutonegTime: -1}); err == nil {
		t.Error("negative AN time accepted")
	}
}
