package realtek

import (
	"errors"
	"strings"
	"testing"

	"mesonemu/emu"
	"mesonemu/linux/kernel"
	"mesonemu/phy"
)

// TestBootToLink is the boot path: probe, attach, start, WaitLink, against the
// hardware, in interrupt and polling mode, starting before and after the
// PHY's own power-on negotiation finished.
func TestBootToLink(t *testing.T) {
	an := phy.DefaultAutonegTime
	tests := []struct {
		name      string
		partner   phy.Partner
		irq       bool
		bootAt    emu.Time // when the driver starts (power-on AN ends at an)
		wantUpAt  emu.Time // OnLink(up) time
		wantSpeed int
		wantText  string
	}{
		// Interrupt mode: the link-change interrupt wakes the state machine
		// the instant AN completes; BMSR is read twice, so a latched drop
		// does not hide the link.
		{"irq, boot at 0", phy.Partner{}, true, 0, an, 1000, "Link is Up - 1Gbps/Full"},
		{"irq, boot after power-on link", phy.Partner{}, true, 5 * emu.Second, 5*emu.Second + an, 1000, "Link is Up - 1Gbps/Full"},
		{"irq, partner limited to 100", phy.Partner{MaxSpeed: 100}, true, 0, an, 100, "Link is Up - 100Mbps/Full"},
		// Polling mode (PHY_STATE_TIME 1 s, single BMSR read): with no drop
		// since the last read the poll at restart+2 s sees the link; after a
		// power-on link the restart's drop is latched, that poll reads 0 once
		// and the next poll, a second later, sees the link.
		{"poll, boot at 0", phy.Partner{}, false, 0, an, 1000, "Link is Up - 1Gbps/Full"},
		{"poll, boot after power-on link", phy.Partner{}, false, 5 * emu.Second, 5*emu.Second + an + PHYStateTime, 1000, "Link is Up - 1Gbps/Full"},
		{"poll, partner limited to 10", phy.Partner{MaxSpeed: 10}, false, 0, an, 10, "Link is Up - 10Mbps/Full"},
	}
	for _, tc := range tests {
		b := newBoard(t, phy.Config{Partner: tc.partner})
		b.m.Advance(tc.bootAt)
		p, recs := b.bringRGMII(tc.irq)
		if err := p.WaitLink(10 * emu.Second); err != nil {
			t.Errorf("%s: WaitLink: %v", tc.name, err)
			continue
		}
		up, ok := lastUp(*recs)
		if !ok {
			t.Errorf("%s: no OnLink(up); records %v", tc.name, *recs)
			continue
		}
		if up.at != tc.wantUpAt || up.speed != tc.wantSpeed || !up.full {
			t.Errorf("%s: OnLink(up) at %d ns speed %d full %v, want at %d ns speed %d full",
				tc.name, up.at, up.speed, up.full, tc.wantUpAt, tc.wantSpeed)
		}
		if got := p.Status(); got != tc.wantText {
			t.Errorf("%s: status %q, want %q", tc.name, got, tc.wantText)
		}
		if info := p.Info(); info.Interrupts != tc.irq || info.State != StateRunning {
			t.Errorf("%s: info %+v", tc.name, info)
		}
		// The advertisement v5.5 wrote: 10/100 + pause + asym pause, 1000 FD + HD.
		anar, _ := b.bus.ReadPHY(0, miiADVERTISE)
		gbcr, _ := b.bus.ReadPHY(0, miiCTRL1000)
		if anar != 0x0de1 || gbcr != 0x0300 {
			t.Errorf("%s: ANAR %#04x GBCR %#04x, want 0x0de1 0x0300", tc.name, anar, gbcr)
		}
	}
}

func TestLinkLossAndReturn(t *testing.T) {
	for _, irq := range []bool{true, false} {
		b := newBoard(t, phy.Config{})
		p, recs := b.bringRGMII(irq)
		if err := p.WaitLink(5 * emu.Second); err != nil {
			t.Fatalf("irq %v: %v", irq, err)
		}
		// The pull is a physical event at the current instant, scheduled the
		// way the assembly would, so the interrupt is delivered right then.
		pulled := b.cableEvent(false)
		b.m.Advance(2 * PHYStateTime)
		last := (*recs)[len(*recs)-1]
		wantAt := pulled // interrupt: at once
		if !irq {
			wantAt = pulled + PHYStateTime // pulled just after a poll: the next one
			wantAt -= (pulled % PHYStateTime)
		}
		if last.up || last.at != wantAt {
			t.Errorf("irq %v: last record %+v, want down at %d", irq, last, wantAt)
		}
		if got := p.Status(); got != "Link is Down" {
			t.Errorf("irq %v: status %q", irq, got)
		}
		if up, _, _ := p.Link(); up {
			t.Errorf("irq %v: Link() up without cable", irq)
		}
		b.cableEvent(true)
		if err := p.WaitLink(5 * emu.Second); err != nil {
			t.Errorf("irq %v: no link after reconnect: %v", irq, err)
		}
	}
}

func TestForcedViaSettings(t *testing.T) {
	tests := []struct {
		name     string
		settings LinkSettings
		wantBMCR uint16
		wantUp   bool
		wantText string
	}{
		{"forced 100 full", LinkSettings{Speed: 100, FullDuplex: true}, 0x2100, true, "Link is Up - 100Mbps/Full"},
		{"forced 10 half", LinkSettings{Speed: 10}, 0x0000, true, "Link is Up - 10Mbps/Half"},
		{"forced 1000 does not link", LinkSettings{Speed: 1000, FullDuplex: true}, 0x0140, false, "Link is Down"},
		{"AN, 100 only", LinkSettings{Autoneg: true, Advertising: Link100Full | Link100Half}, 0x1140, true, "Link is Up - 100Mbps/Full"},
	}
	for _, tc := range tests {
		b := newBoard(t, phy.Config{})
		p, _ := b.bring(Config{Interface: "rgmii", IRQ: b.line})
		if err := p.WaitLink(5 * emu.Second); err != nil {
			t.Fatal(err)
		}
		if err := p.SetLinkSettings(tc.settings); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		bmcr, _ := b.bus.ReadPHY(0, miiBMCR)
		if bmcr&^bmcrANRestart != tc.wantBMCR {
			t.Errorf("%s: BMCR %#04x, want %#04x", tc.name, bmcr, tc.wantBMCR)
		}
		err := p.WaitLink(3 * emu.Second)
		if tc.wantUp != (err == nil) {
			t.Errorf("%s: WaitLink %v, want up %v", tc.name, err, tc.wantUp)
		}
		if !tc.wantUp && !errors.Is(err, ErrNoLink) {
			t.Errorf("%s: error %v does not wrap ErrNoLink", tc.name, err)
		}
		if got := p.Status(); got != tc.wantText {
			t.Errorf("%s: status %q, want %q", tc.name, got, tc.wantText)
		}
	}
	b := newBoard(t, phy.Config{})
	p, _ := b.bring(Config{Interface: "rgmii"})
	for _, bad := range []LinkSettings{{Speed: 2500}, {Autoneg: true, Advertising: LinkPause}} {
		if err := p.SetLinkSettings(bad); err == nil {
			t.Errorf("settings %+v accepted", bad)
		}
	}
}

func TestSoftReset(t *testing.T) {
	b := newBoard(t, phy.Config{TXDelayStrap: true})
	p, err := Probe(b.bus, b.k, Config{Interface: "rgmii", SoftResetOnInit: true})
	if err != nil {
		t.Fatal(err)
	}
	start := b.m.VirtualNow()
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	// One 50 ms poll sees the bit clear (reset takes 1 ms), then msleep(1).
	if d := b.m.VirtualNow() - start; d != 51*emu.Millisecond {
		t.Errorf("attach with soft reset took %d ns, want 51 ms", d)
	}
	if tx, _ := b.hwDelays(); tx {
		t.Error("config_init after the reset did not clear the strapped TX delay")
	}
	if b.bus.log[3] != (access{write: true, reg: miiBMCR, val: 0x9340}) {
		t.Errorf("reset write %v, want W0x00=0x9340 (reset | AN enable | restart | 1000 | full)", b.bus.log[3])
	}

	// A PHY whose reset never clears: 12 polls, 600 ms, then an error.
	stuck := &fakeMDIO{regs: map[int]uint16{2: 0x001c, 3: 0xc916, 0: 0x9140}}
	m := emu.NewMachine(1)
	p, err = Probe(stuck, kernel.New(m, m.Bus()), Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = p.SoftReset()
	if !errors.Is(err, errResetTimeout) || m.VirtualNow() != 600*emu.Millisecond {
		t.Errorf("stuck reset: err %v after %d ns, want timeout after 600 ms", err, m.VirtualNow())
	}
}

func TestStopSuspends(t *testing.T) {
	b := newBoard(t, phy.Config{})
	p, recs := b.bring(Config{Interface: "rgmii", IRQ: b.line})
	if err := p.WaitLink(5 * emu.Second); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if last := (*recs)[len(*recs)-1]; last.up {
		t.Errorf("no down notification on stop: %+v", *recs)
	}
	bmcr, _ := b.bus.ReadPHY(0, miiBMCR)
	if bmcr&bmcrPDown == 0 || b.hwLink().Up {
		t.Errorf("stop did not power the PHY down: BMCR %#04x link %+v", bmcr, b.hwLink())
	}
	if p.Info().State != StateHalted {
		t.Errorf("state %s", p.Info().State)
	}
	if err := p.WaitLink(emu.Second); err == nil || !strings.Contains(err.Error(), "not started") {
		t.Errorf("WaitLink on a stopped PHY: %v", err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitLink(5 * emu.Second); err != nil {
		t.Errorf("no link after restart: %v", err)
	}
}

func TestBusErrorHalts(t *testing.T) {
	b := newBoard(t, phy.Config{})
	p, recs := b.bring(Config{Interface: "rgmii"})
	if err := p.WaitLink(5 * emu.Second); err != nil {
		t.Fatal(err)
	}
	b.bus.failAt = len(b.bus.log) // the bus dies; the next poll fails
	b.m.Advance(2 * PHYStateTime)
	info := p.Info()
	if info.State != StateHalted || !errors.Is(info.LastError, errBusDead) {
		t.Errorf("after bus failure: state %s err %v", info.State, info.LastError)
	}
	if last := (*recs)[len(*recs)-1]; last.up {
		t.Error("no link-down notification after halting")
	}
	if err := p.WaitLink(emu.Second); !errors.Is(err, errBusDead) {
		t.Errorf("WaitLink after halt: %v", err)
	}
}

func TestWaitLinkTimeout(t *testing.T) {
	b := newBoard(t, phy.Config{CableUnplugged: true})
	p, _ := b.bring(Config{Interface: "rgmii", IRQ: b.line})
	start := b.m.VirtualNow()
	err := p.WaitLink(3 * emu.Second)
	if !errors.Is(err, ErrNoLink) {
		t.Fatalf("err %v, want ErrNoLink", err)
	}
	if d := b.m.VirtualNow() - start; d != 3*emu.Second {
		t.Errorf("waited %d ns, want 3 s", d)
	}
}

func TestStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{speedString(10), "10Mbps"},
		{speedString(100), "100Mbps"},
		{speedString(1000), "1Gbps"},
		{speedString(0), "Unknown"},
		{DefaultAdvertising.String(), "10baseT/Half 10baseT/Full 100baseT/Half 100baseT/Full 1000baseT/Half 1000baseT/Full Pause Asym_Pause"},
		{LinkModes(0).String(), "none"},
		{StateNoLink.String(), "NOLINK"},
		{DelaysV56.String(), "v5.6"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
