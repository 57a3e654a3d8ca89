package stmmac

import (
	"testing"

	"mesonemu/emu"
)

type fakePHY struct {
	regs   [32]uint16
	writes []uint16
}

func (p *fakePHY) ReadMII(reg uint8) uint16 { return p.regs[reg&31] }
func (p *fakePHY) WriteMII(reg uint8, v uint16) {
	p.regs[reg&31] = v
	p.writes = append(p.writes, v)
}

// mdioAddr is what stmmac_mdio_read/write put in GMAC_MII_ADDR.
func mdioAddr(phy, reg, clkCSR uint32, write bool) uint32 {
	v := phy<<11&0xf800 | reg<<6&0x7c0 | clkCSR<<2&0x3c | miiGB.Mask()
	if write {
		v |= miiGW.Mask()
	}
	return v
}

func TestMDIO(t *testing.T) {
	tests := []struct {
		name     string
		clkCSR   uint32
		csrHz    uint64
		wantBusy emu.Time // 64 MDC periods
	}{
		// clk81 = 159.375 MHz, code 4: MDC = clk/102, 64 * 102 / 159.375 MHz = 40960 ns.
		{"meson8b clk81 /102", 4, 159_375_000, 40960},
		// code 0 at 100 MHz: /42 -> 64 * 420 ns = 26880 ns.
		{"100 MHz /42", 0, 100_000_000, 26880},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{CSRClockHz: tt.csrHz})
			phy := &fakePHY{}
			phy.regs[2] = 0x001c // RTL8211F PHYID1
			r.mii.Attach(0, phy)

			// Write 0x1140 to BMCR.
			r.w(offMIIData, 0x1140)
			r.w(offMIIAddr, mdioAddr(0, 0, tt.clkCSR, true))
			r.m.Advance(tt.wantBusy - 1)
			if r.rd(offMIIAddr)&miiGB.Mask() == 0 {
				t.Fatal("GB cleared before the MDIO frame was over")
			}
			if len(phy.writes) != 0 {
				t.Fatal("write reached the PHY before the frame ended")
			}
			r.m.Advance(1)
			if r.rd(offMIIAddr)&miiGB.Mask() != 0 {
				t.Fatal("GB still set after 64 MDC periods")
			}
			if phy.regs[0] != 0x1140 {
				t.Fatalf("BMCR = %#x, want 0x1140", phy.regs[0])
			}

			// Read PHYID1.
			r.w(offMIIAddr, mdioAddr(0, 2, tt.clkCSR, false))
			r.m.Advance(tt.wantBusy)
			if got := r.rd(offMIIData); got != 0x001c {
				t.Fatalf("read PHYID1 = %#x", got)
			}
			// An address nobody answers reads 0xffff (bus pull-up).
			r.w(offMIIAddr, mdioAddr(5, 2, tt.clkCSR, false))
			r.m.Advance(tt.wantBusy)
			if got := r.rd(offMIIData); got != 0xffff {
				t.Fatalf("empty address reads %#x", got)
			}
			c := r.counters()
			if c.MDIOReads != 2 || c.MDIOWrites != 1 {
				t.Fatalf("counters reads %d writes %d", c.MDIOReads, c.MDIOWrites)
			}
		})
	}
}

func TestMDIOBusyIgnoresWrites(t *testing.T) {
	r := newRig(t, Config{})
	phy := &fakePHY{}
	r.mii.Attach(1, phy)
	r.w(offMIIData, 0xaaaa)
	r.w(offMIIAddr, mdioAddr(1, 4, 4, true))
	r.w(offMIIData, 0xbbbb)                  // data change during the frame
	r.w(offMIIAddr, mdioAddr(1, 9, 4, true)) // ignored: busy
	r.m.Advance(emu.Millisecond)
	if len(phy.writes) != 1 || phy.regs[4] != 0xaaaa || phy.regs[9] != 0 {
		t.Fatalf("writes %v, reg4 %#x reg9 %#x", phy.writes, phy.regs[4], phy.regs[9])
	}
}
