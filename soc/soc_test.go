package soc

import (
	"errors"
	"strings"
	"testing"

	"mesonemu/emu"
)

func newSoC(t *testing.T, kind Kind) (*emu.Machine, *SoC) {
	t.Helper()
	m := emu.NewMachine(1)
	s, err := NewSoC(m, kind)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

func TestKindNames(t *testing.T) {
	for _, tt := range []struct {
		k    Kind
		name string
	}{{Meson8b, "meson8b"}, {Meson8m2, "meson8m2"}, {GXBB, "gxbb"}} {
		if tt.k.String() != tt.name {
			t.Errorf("%d.String() = %q, want %q", tt.k, tt.k.String(), tt.name)
		}
		if k, err := ParseKind(tt.name); err != nil || k != tt.k {
			t.Errorf("ParseKind(%q) = %v, %v", tt.name, k, err)
		}
	}
	if _, err := ParseKind("meson8"); err == nil || !strings.Contains(err.Error(), "meson8m2") {
		t.Errorf("ParseKind(meson8) error = %v, want one listing the valid names", err)
	}
	if Kind(9).String() != "Kind(9)" {
		t.Errorf("invalid kind prints %q", Kind(9).String())
	}
}

// Guest writes through the bus at the real addresses land in the decoded registers.
func TestGuestWritesThroughBus(t *testing.T) {
	tests := []struct {
		kind        Kind
		eth0, cntl9 uint32
		eth0Val     uint32
		fields      map[string]uint32
	}{
		{Meson8b, 0xc1108140, 0xc11042a0, 0x74c1, map[string]uint32{"txdly": 2, "m250_div": 1, "inverted_rmii_clk": 0}},
		{Meson8m2, 0xc1108140, 0xc11042a0, 0x7521, map[string]uint32{"txdly": 1, "m250_div": 2}},
		{GXBB, 0xc8834540, 0xc883c2a0, 0x1621, map[string]uint32{"txdly": 1, "m250_div": 4, "adj_enable": 0}},
	}
	for _, tt := range tests {
		m, s := newSoC(t, tt.kind)
		bus := m.Bus()
		if err := bus.Write32(tt.eth0, tt.eth0Val); err != nil {
			t.Fatalf("%v: write PRG_ETH0: %v", tt.kind, err)
		}
		if err := bus.Write32(tt.cntl9, 0x000acccd); err != nil {
			t.Fatalf("%v: write HHI_MPLL_CNTL9: %v", tt.kind, err)
		}
		if v, err := bus.Read32(tt.eth0); err != nil || v != tt.eth0Val {
			t.Errorf("%v: PRG_ETH0 reads %#x, %v", tt.kind, v, err)
		}
		r, ok := s.Register("PRG_ETH0")
		if !ok || r.Addr != tt.eth0 || r.Value != tt.eth0Val {
			t.Errorf("%v: decoded PRG_ETH0 = %+v", tt.kind, r)
		}
		for _, fv := range r.Reg.Decode(r.Value) {
			if want, ok := tt.fields[fv.Name]; ok && fv.Value != want {
				t.Errorf("%v: PRG_ETH0.%s = %d, want %d", tt.kind, fv.Name, fv.Value, want)
			}
		}
		c9, _ := s.Register("HHI_MPLL_CNTL9")
		if c9.Addr != tt.cntl9 || c9.Value != 0x000acccd {
			t.Errorf("%v: HHI_MPLL_CNTL9 at %#x = %#x", tt.kind, c9.Addr, c9.Value)
		}
		if got := s.HHI().MPLL2Hz(); tt.kind != GXBB && !near(got, mpll2PreFixHz) {
			t.Errorf("%v: MPLL2 after the write = %.6f", tt.kind, got)
		}
	}
}

func TestReadOnlyThroughBus(t *testing.T) {
	m, _ := newSoC(t, Meson8b)
	bus := m.Bus()
	_ = bus.Write32(HHIBase+HHIMPLLCntl, 0x0000026a) // lock bit 31 cleared in the write
	if v, _ := bus.Read32(HHIBase + HHIMPLLCntl); v != 0x8000026a {
		t.Errorf("HHI_MPLL_CNTL = %#x, want the RO lock bit kept (0x8000026a)", v)
	}
	_ = bus.Write32(PRGEth0+PRGEth1Off, 0x0000ffff) // only RO read-back bits
	if v, _ := bus.Read32(PRGEth0 + PRGEth1Off); v != 0 {
		t.Errorf("PRG_ETH1 = %#x after writing its RO bits, want 0", v)
	}
}

func TestUnmappedAddresses(t *testing.T) {
	m, _ := newSoC(t, Meson8b)
	for _, addr := range []uint32{
		PRGEth0 + 8,       // past the glue block
		PRGEth0 - 4,       // before it
		HHIBase + HHISize, // past the mapped HHI window
		GXBBPRGEth0,       // another chip's glue
		DWMACBase,         // mapped by the stmmac package, not here
	} {
		_, err := m.Bus().Read32(addr)
		var be *emu.BusError
		if !errors.As(err, &be) || be.Addr != addr || be.Write {
			t.Errorf("read %#x: err %v, want *emu.BusError", addr, err)
		}
		err = m.Bus().Write32(addr, 1)
		if !errors.As(err, &be) || !be.Write {
			t.Errorf("write %#x: err %v, want *emu.BusError", addr, err)
		}
	}
	// RAM is there: base 0, DefaultRAMSize long.
	if err := m.Bus().Write32(DefaultRAMSize-4, 7); err != nil {
		t.Errorf("last RAM word: %v", err)
	}
	if _, err := m.Bus().Read32(DefaultRAMSize); err == nil {
		t.Error("read past RAM succeeded")
	}
}

func TestOnChange(t *testing.T) {
	m, s := newSoC(t, Meson8b)
	var fired int
	s.OnChange(func() { fired++ })
	bus := m.Bus()
	steps := []struct {
		addr, v uint32
		want    int
	}{
		{PRGEth0, 0x74c1, 1},                    // glue change
		{PRGEth0, 0x74c1, 1},                    // same value: nothing changed
		{PRGEth0 + PRGEth1Off, 0x00010000, 2},   // PRG_ETH1 change
		{PRGEth0 + PRGEth1Off, 0x0000ffff, 3},   // clears cfg_rxclk_dly
		{PRGEth0 + PRGEth1Off, 0x0000ffff, 3},   // RO bits only, no change
		{HHIBase + HHIMPLLCntl9, 0x000acccd, 4}, // MPLL2 change
		{HHIBase + 0x2a4, 0xffffffff, 4},        // undeclared HHI register
		{HHIBase + HHIMPLLCntl, 0x8000026a, 4},  // same as reset
	}
	for i, st := range steps {
		if err := bus.Write32(st.addr, st.v); err != nil {
			t.Fatal(err)
		}
		if fired != st.want {
			t.Errorf("step %d (write %#x to %#x): fired %d times, want %d", i, st.v, st.addr, fired, st.want)
		}
	}
	// What the listener sees is the new configuration.
	var seen int64
	s.OnChange(func() { seen = s.MACTXDelay().RoundedPs() })
	_ = bus.Write32(PRGEth0, 0x7541)
	if seen != 8000 {
		t.Errorf("listener saw %d ps after switching to TXDLY 2 at MPLL2 250 MHz div 2, want 8000", seen)
	}
}

func TestSoCDefaults(t *testing.T) {
	tests := []struct {
		kind        Kind
		txHz        float64
		tx, rx      int64
		parent      string
		macIRQ, ram string
	}{
		{Meson8b, mpll2VendorHz / 4, 2000, 2000, ParentMPLL2, MACIRQName, ""},
		{GXBB, 125e6, 2000, 2000, ParentFclkDiv2, MACIRQName, ""},
	}
	for _, tt := range tests {
		_, s := newSoC(t, tt.kind)
		c := s.TXClock()
		if !near(c.TXHz, tt.txHz) || c.Parent != tt.parent || !c.Enabled {
			t.Errorf("%v: boot TX clock %v", tt.kind, c)
		}
		if got := s.MACTXDelay().RoundedPs(); got != tt.tx {
			t.Errorf("%v: boot TX delay %d ps", tt.kind, got)
		}
		if got := s.MACRXDelay().RoundedPs(); got != tt.rx {
			t.Errorf("%v: boot RX delay %d ps", tt.kind, got)
		}
		if s.MACIRQ().Name() != tt.macIRQ || s.RAM().Size() != DefaultRAMSize || s.RAM().Base() != RAMBase {
			t.Errorf("%v: IRQ %q RAM %#x@%#x", tt.kind, s.MACIRQ().Name(), s.RAM().Size(), s.RAM().Base())
		}
		if s.Kind() != tt.kind || s.Addrs() != tt.kind.Addrs() || s.Machine() == nil {
			t.Errorf("%v: accessors disagree", tt.kind)
		}
	}
}

func TestNewSoCErrors(t *testing.T) {
	m := emu.NewMachine(1)
	if _, err := NewSoC(m, Kind(5)); err == nil {
		t.Error("invalid kind accepted")
	}
	for _, size := range []uint32{0, 4096, MaxRAMSize + 4096, DefaultRAMSize + 1} {
		if _, err := NewSoCWithRAM(m, Meson8b, size); err == nil {
			t.Errorf("RAM size %#x accepted", size)
		}
	}
	if _, err := NewSoC(nil, Meson8b); err == nil {
		t.Error("nil machine accepted")
	}
	if _, err := NewSoC(m, Meson8b); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSoC(m, Meson8b); err == nil {
		t.Error("second chip on the same bus accepted")
	}
}

func TestFormatRegisters(t *testing.T) {
	_, s := newSoC(t, Meson8b)
	out, err := s.FormatRegisters("PRG_ETH0", "HHI_MPLL_CNTL9")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"0xc1108140 prg_eth0.PRG_ETH0 = 0x00007d21",
		"0xc11042a0 hhi.HHI_MPLL_CNTL9 = 0x0005c666",
		"[6:5]    txdly", "[9:7]    m250_div", "[24:16]  n2", "= 1638",
		"mpll2 500002393.547 Hz",
		"mac tx delay (mechanism A): TXDLY 1 x step 2000 ps",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "HHI_MPLL_CNTL2") {
		t.Error("unrequested register printed")
	}
	if all, _ := s.FormatRegisters(); strings.Count(all, " = 0x") != 7 {
		t.Errorf("all registers: want 7 register headers:\n%s", all)
	}
	if _, err := s.FormatRegisters("PRG_ETH2"); err == nil || !strings.Contains(err.Error(), "PRG_ETH1") {
		t.Errorf("unknown register error = %v, want the valid names", err)
	}
}
