package realtek

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"mesonemu/emu"
	"mesonemu/linux/kernel"
	"mesonemu/phy"
)

// fakeMDIO answers fixed register values and no writes: for probe tests
// against IDs the hardware model does not have.
type fakeMDIO struct {
	regs map[int]uint16
	err  error
}

func (f *fakeMDIO) ReadPHY(addr, reg int) (uint16, error) {
	if f.err != nil {
		return 0, f.err
	}
	if v, ok := f.regs[reg]; ok {
		return v, nil
	}
	return 0xffff, nil
}

func (f *fakeMDIO) WritePHY(addr, reg int, val uint16) error { return f.err }

func TestProbe(t *testing.T) {
	m := emu.NewMachine(1)
	dead := errors.New("timeout")
	tests := []struct {
		name    string
		bus     MDIO
		wantID  uint32
		wantErr string
	}{
		{"RTL8211F", &fakeMDIO{regs: map[int]uint16{2: 0x001c, 3: 0xc916}}, 0x001cc916, ""},
		{"bit outside the mask ignored", &fakeMDIO{regs: map[int]uint16{2: 0x003c, 3: 0xc916}}, 0x003cc916, ""},
		{"RTL8211E", &fakeMDIO{regs: map[int]uint16{2: 0x001c, 3: 0xc915}}, 0, "has ID 0x001cc915"},
		{"no PHY (bus pull-up)", &fakeMDIO{}, 0, "has ID 0xffffffff"},
		{"MDIO error", &fakeMDIO{err: dead}, 0, "timeout"},
	}
	for _, tc := range tests {
		p, err := Probe(tc.bus, kernel.New(m, m.Bus()), Config{Interface: "rgmii"})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want one containing %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if p.ID() != tc.wantID || p.Info().State != StateReady {
			t.Errorf("%s: ID %#08x state %s, want %#08x READY", tc.name, p.ID(), p.Info().State, tc.wantID)
		}
	}
	if _, err := Probe(&fakeMDIO{err: dead}, kernel.New(m, m.Bus()), Config{}); !errors.Is(err, dead) {
		t.Errorf("probe error does not wrap the bus error: %v", err)
	}
	if _, err := Probe(&fakeMDIO{}, kernel.New(m, m.Bus()), Config{Addr: 32}); err == nil {
		t.Error("address 32 accepted")
	}
}

// TestConfigInitDelays runs probe + config_init against the hardware for
// every phy-mode, both straps and both kernel versions, and checks the delay
// bits the hardware ends up with (docs/reference/rtl8211f.md §5).
func TestConfigInitDelays(t *testing.T) {
	type want struct{ tx, rx string } // "on", "off", "strap"
	tests := []struct {
		mode string
		v55  want
		v56  want
	}{
		{"rgmii", want{"off", "strap"}, want{"off", "off"}},
		{"rgmii-id", want{"on", "strap"}, want{"on", "on"}},
		{"rgmii-txid", want{"on", "strap"}, want{"on", "off"}},
		{"rgmii-rxid", want{"off", "strap"}, want{"off", "on"}},
		{"rmii", want{"off", "strap"}, want{"strap", "strap"}},
	}
	resolve := func(w string, strap bool) bool {
		switch w {
		case "on":
			return true
		case "off":
			return false
		}
		return strap
	}
	for _, tc := range tests {
		for _, policy := range []DelayPolicy{DelaysV55, DelaysV56} {
			w := tc.v55
			if policy == DelaysV56 {
				w = tc.v56
			}
			for _, strap := range []bool{false, true} {
				b := newBoard(t, phy.Config{TXDelayStrap: strap, RXDelayStrap: strap})
				p, err := Probe(b.bus, b.k, Config{Interface: tc.mode, Delays: policy})
				if err != nil {
					t.Fatalf("probe: %v", err)
				}
				if err := p.ConfigInit(); err != nil {
					t.Fatalf("%s %v: config_init: %v", tc.mode, policy, err)
				}
				tx, rx := b.hwDelays()
				if tx != resolve(w.tx, strap) || rx != resolve(w.rx, strap) {
					t.Errorf("%s %v straps %v: TX %v RX %v, want TX %s RX %s",
						tc.mode, policy, strap, tx, rx, w.tx, w.rx)
				}
				if page := b.bus.log[len(b.bus.log)-1]; policy == DelaysV55 && page != (access{write: true, reg: 0x1f, val: 0}) {
					t.Errorf("%s %v: last access %v, want the page restored to 0", tc.mode, policy, page)
				}
				if policy == DelaysV55 {
					for _, a := range b.bus.log {
						if a.reg == 0x15 {
							t.Errorf("%s v5.5: touched RX delay register: %v", tc.mode, a)
						}
					}
				}
			}
		}
	}
}

// TestConfigInitAccessSequence checks the exact MDIO sequence of v5.5's
// phy_modify_paged: save page, select 0xd08, read, write only on change,
// restore the saved page.
func TestConfigInitAccessSequence(t *testing.T) {
	tests := []struct {
		name     string
		mode     string
		strap    bool
		startPg  uint16
		wantSeq  []access
		wantPage uint16
	}{
		{"rgmii, strap on: clear TX", "rgmii", true, 0, []access{
			{reg: 0x1f, val: 0}, {write: true, reg: 0x1f, val: 0xd08},
			{reg: 0x11, val: 0x0100}, {write: true, reg: 0x11, val: 0x0000},
			{write: true, reg: 0x1f, val: 0},
		}, 0},
		{"rgmii-txid, strap off: set TX", "rgmii-txid", false, 0, []access{
			{reg: 0x1f, val: 0}, {write: true, reg: 0x1f, val: 0xd08},
			{reg: 0x11, val: 0x0000}, {write: true, reg: 0x11, val: 0x0100},
			{write: true, reg: 0x1f, val: 0},
		}, 0},
		{"rgmii, strap off: no change, no write", "rgmii", false, 0, []access{
			{reg: 0x1f, val: 0}, {write: true, reg: 0x1f, val: 0xd08},
			{reg: 0x11, val: 0x0000},
			{write: true, reg: 0x1f, val: 0},
		}, 0},
		{"already on page 0xd08: no select, restore anyway", "rgmii-id", false, 0xd08, []access{
			{reg: 0x1f, val: 0xd08},
			{reg: 0x11, val: 0x0000}, {write: true, reg: 0x11, val: 0x0100},
			{write: true, reg: 0x1f, val: 0xd08},
		}, 0xd08},
		{"other page restored", "rgmii", true, 0xa43, []access{
			{reg: 0x1f, val: 0xa43}, {write: true, reg: 0x1f, val: 0xd08},
			{reg: 0x11, val: 0x0100}, {write: true, reg: 0x11, val: 0x0000},
			{write: true, reg: 0x1f, val: 0xa43},
		}, 0xa43},
	}
	for _, tc := range tests {
		b := newBoard(t, phy.Config{TXDelayStrap: tc.strap})
		p, err := Probe(b.bus, b.k, Config{Interface: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.bus.WritePHY(0, 0x1f, tc.startPg); err != nil {
			t.Fatal(err)
		}
		b.bus.log = nil
		if err := p.ConfigInit(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(b.bus.log, tc.wantSeq) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, b.bus.log, tc.wantSeq)
		}
		b.m.Lock()
		page := b.hw.Page()
		b.m.Unlock()
		if page != tc.wantPage {
			t.Errorf("%s: page left at %#x, want %#x", tc.name, page, tc.wantPage)
		}
	}
}

func TestInterruptRegisters(t *testing.T) {
	b := newBoard(t, phy.Config{})
	p, err := Probe(b.bus, b.k, Config{Interface: "rgmii"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ConfigIntr(true); err != nil {
		t.Fatal(err)
	}
	b.m.Advance(phy.DefaultAutonegTime) // power-on AN links: INSR latches
	b.m.Lock()
	level := b.irq.Level()
	b.m.Unlock()
	if !level {
		t.Fatal("link-up interrupt not asserted with INER set by config_intr")
	}
	if err := p.AckInterrupt(); err != nil {
		t.Fatal(err)
	}
	b.m.Lock()
	level = b.irq.Level()
	b.m.Unlock()
	if level {
		t.Error("line still asserted after ack_interrupt")
	}
	if err := p.ConfigIntr(false); err != nil {
		t.Fatal(err)
	}
	b.setCable(false)
	b.m.Lock()
	level = b.irq.Level()
	b.m.Unlock()
	if level {
		t.Error("interrupt raised with INER cleared")
	}
}
