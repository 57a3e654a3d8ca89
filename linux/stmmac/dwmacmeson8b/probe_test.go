package dwmacmeson8b

import (
	"errors"
	"strings"
	"testing"

	"mesonemu/linux/clk"
	"mesonemu/linux/clk/clktest"
	"mesonemu/linux/clk/meson"
)

// Boot-loader hand-over values (docs/reference/meson8b-ethernet.md §3.1, §7.1).
const (
	hhiM8 = meson.HHIBaseMeson8b
	hhiGX = meson.HHIBaseGXBB

	m8Cntl  = 106 | 1<<9 // m 106, n 1, od 0: 2550 MHz with frac 1024
	m8Cntl2 = 1024
	gxCntl  = 250 | 3<<9 // m 250, n 3: 2 GHz
	cntl6   = 1 << 27    // fclk_div2 on
	cntl9   = 1638 | 1<<15 | 1<<14 | 5<<16

	bootPrgEth0 = 0x7d21 // vendor M8M2 U-Boot (bit 8 set: the mask-quirk orphan path)
	gxbbPrgEth0 = 0x7621 // silicon helper's GXBB value: Fuchsia 0x1621 + ADJ bits, bit 8 clear
	devName     = "c9410000.ethernet"
	prgMeson8b  = PrgEth0AddrMeson8b
	prgGXBB     = PrgEth0AddrGXBB
)

type machine struct {
	bus   *clktest.FakeBus
	fw    *clk.Framework
	cs    *meson.Clocks
	prg   uint32
	hhi   uint32
	soc   meson.SoC
	compa string
}

func newMachine(t *testing.T, soc meson.SoC, prgEth0 uint32) *machine {
	t.Helper()
	m := &machine{soc: soc}
	regs := map[uint32]uint32{}
	switch soc {
	case meson.GXBB:
		m.hhi, m.prg, m.compa = hhiGX, prgGXBB, "gxbb"
		regs[hhiGX+meson.HHIMPLLCntl] = gxCntl
		regs[hhiGX+meson.HHIMPLLCntl2] = 0
	default:
		m.hhi, m.prg, m.compa = hhiM8, prgMeson8b, soc.String()
		regs[hhiM8+meson.HHIMPLLCntl] = m8Cntl
		regs[hhiM8+meson.HHIMPLLCntl2] = m8Cntl2
	}
	regs[m.hhi+meson.HHIMPLLCntl5] = 0
	regs[m.hhi+meson.HHIMPLLCntl6] = cntl6
	regs[m.hhi+meson.HHIMPLLCntl9] = cntl9
	regs[m.prg] = prgEth0
	m.bus = clktest.New(regs)
	m.fw = clk.New()
	cs, err := meson.Register(m.fw, m.bus, soc)
	if err != nil {
		t.Fatalf("register %v clocks: %v", soc, err)
	}
	m.cs = cs
	return m
}

func (m *machine) config(v Variant, phyMode string, txDelay *uint32) Config {
	cfg := Config{Bus: m.bus, Clocks: m.fw, PrgEth0Addr: m.prg, Compatible: m.compa, DevName: devName,
		DT: DT{PhyMode: phyMode, TxDelayNs: txDelay}, ClkIn0: m.cs.MPLL2, ClkIn1: m.cs.MPLL2, Variant: v}
	if m.soc == meson.GXBB {
		cfg.ClkIn0 = m.cs.FClkDiv2
	}
	return cfg
}

func ns(v uint32) *uint32 { return &v }

type want struct {
	parent  string
	selHz   uint32
	div     uint32
	txHz    uint32
	prgEth0 uint32
	cntl9   uint32
}

func (m *machine) check(t *testing.T, g *Glue, w want) {
	t.Helper()
	r, err := g.Result()
	if err != nil {
		t.Fatal(err)
	}
	if r.M250SelParent != w.parent || r.M250SelHz != w.selHz || r.M250Div != w.div || r.TxClockHz != w.txHz || r.PrgEth0 != w.prgEth0 {
		t.Errorf("got %s %d Hz /%d -> %d Hz, PRG_ETH0 %#x; want %s %d Hz /%d -> %d Hz, PRG_ETH0 %#x",
			r.M250SelParent, r.M250SelHz, r.M250Div, r.TxClockHz, r.PrgEth0, w.parent, w.selHz, w.div, w.txHz, w.prgEth0)
	}
	if v := m.bus.Get(m.hhi + meson.HHIMPLLCntl9); v != w.cntl9 {
		t.Errorf("HHI_MPLL_CNTL9 %#x, want %#x", v, w.cntl9)
	}
	if f, err := g.M250DivField(); err != nil || f != w.div {
		t.Errorf("M250DivField %d %v, want %d", f, err, w.div)
	}
}

// docs/reference/meson8b-ethernet.md §6.1 and §9.1: boot loader PRG_ETH0 0x7d21 (bit 8 set, so
// m250_sel starts as an orphan) and MPLL2 at 500,002,394 Hz.
func TestProbeMeson8b(t *testing.T) {
	tests := []struct {
		v       Variant
		txDelay uint32
		want    want
	}{
		{PreFix, 4, want{"mpll2", 249999701, 1, 124999850, 0x74c1, 0x000acccd}},
		{PreFix, 2, want{"mpll2", 249999701, 1, 124999850, 0x74a1, 0x000acccd}},
		{Fixed, 4, want{"mpll2", 499996410, 2, 124999102, 0x7541, 0x0005c667}},
		{Fixed, 2, want{"mpll2", 499996410, 2, 124999102, 0x7521, 0x0005c667}},
	}
	for _, soc := range []meson.SoC{meson.Meson8b, meson.Meson8m2} {
		for _, tt := range tests {
			t.Run(soc.String()+"/"+tt.v.String(), func(t *testing.T) {
				m := newMachine(t, soc, bootPrgEth0)
				g, err := Probe(m.config(tt.v, "rgmii", ns(tt.txDelay)))
				if err != nil {
					t.Fatal(err)
				}
				m.check(t, g, tt.want)
				chain, err := g.Chain()
				if err != nil {
					t.Fatal(err)
				}
				wantChain := map[Variant]string{
					PreFix: "mpll2 249999701 Hz -> m250_div /1 -> fixed_div2 -> 124999850 Hz",
					Fixed:  "mpll2 499996410 Hz -> m250_div /2 -> fixed_div2 -> 124999102 Hz",
				}[tt.v]
				if chain != wantChain {
					t.Errorf("chain %q, want %q", chain, wantChain)
				}
			})
		}
	}
}

// The order of PRG_ETH0 writes in the pre-fix 4 ns probe: set_phy_mode, clear
// bit 11, TXDLY, then inside clk_set_rate the m250_sel mux write (clearing bit 8:
// the mask quirk) before m250_div's, then the gate and bit 12.
func TestProbeWriteSequence(t *testing.T) {
	m := newMachine(t, meson.Meson8b, bootPrgEth0)
	if _, err := Probe(m.config(PreFix, "rgmii", ns(4))); err != nil {
		t.Fatal(err)
	}
	want := []uint32{0x7d21, 0x7521, 0x7541, 0x7441, 0x74c1, 0x74c1, 0x74c1}
	got := m.bus.Writes(m.prg)
	if len(got) != len(want) {
		t.Fatalf("PRG_ETH0 writes %#x, want %#x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("write %d: %#x, want %#x (all: %#x)", i, got[i], want[i], got)
		}
	}
}

// GXBB: clkin0 is fclk_div2 (1 GHz); at i = 4 the divider's exact-match shortcut
// (250 MHz * 4 == the current 1 GHz) keeps fclk_div2, for both variants.
func TestProbeGXBB(t *testing.T) {
	tests := []struct {
		name string
		boot uint32
		mask SelMask
		v    Variant
		want want
	}{
		// boot value already /4: the rounded 125 MHz is the cached rate, nothing is rewritten
		{"boot /4, pre-fix", gxbbPrgEth0, SelMaskV55, PreFix, want{"fclk_div2", 1000000000, 4, 125000000, 0x7621, cntl9}},
		{"boot /4, fixed", gxbbPrgEth0, SelMaskV55, Fixed, want{"fclk_div2", 1000000000, 4, 125000000, 0x7621, cntl9}},
		// boot /0 (pass-through, 500 MHz TX): the shortcut picks 4 and m250_div is written
		{"boot /0, pre-fix", 0x7421, SelMaskV55, PreFix, want{"fclk_div2", 1000000000, 4, 125000000, 0x7621, cntl9}},
		{"boot /0, fixed", 0x7421, SelMaskV55, Fixed, want{"fclk_div2", 1000000000, 4, 125000000, 0x7621, cntl9}},
		// the Meson8 boot value with the later, correct mask: bit 4 = 0 selects fclk_div2
		{"0x7d21, fixed mask, pre-fix", bootPrgEth0, SelMaskFixed, PreFix, want{"fclk_div2", 1000000000, 4, 125000000, 0x7621, cntl9}},
		{"0x7d21, fixed mask, fixed", bootPrgEth0, SelMaskFixed, Fixed, want{"fclk_div2", 1000000000, 4, 125000000, 0x7621, cntl9}},
		// 0x7d21 with the v5.5 mask: m250_sel is an orphan, the divider walk sees
		// no current parent rate (no shortcut) and MPLL2 gives exact 250 / 500 MHz:
		// the mux moves to mpll2 (bit 4 set, bit 8 cleared)
		{"0x7d21, v5.5 mask, pre-fix", bootPrgEth0, SelMaskV55, PreFix, want{"mpll2", 250000000, 1, 125000000, 0x74b1, 8<<16 | 1<<15 | 1<<14}},
		{"0x7d21, v5.5 mask, fixed", bootPrgEth0, SelMaskV55, Fixed, want{"mpll2", 500000000, 2, 125000000, 0x7531, 4<<16 | 1<<15 | 1<<14}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t, meson.GXBB, tt.boot)
			cfg := m.config(tt.v, "rgmii", ns(2))
			cfg.SelMask = tt.mask
			g, err := Probe(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m.check(t, g, tt.want)
		})
	}
}

// The v5.5 mask reads bit 8 of 0x7d21: m250_sel and everything below it are
// orphans at registration, with rate 0, until clk_set_rate adopts them.
func TestOrphanAtRegistration(t *testing.T) {
	m := newMachine(t, meson.Meson8b, bootPrgEth0)
	p, err := parse(m.config(PreFix, "rgmii", nil))
	if err != nil {
		t.Fatal(err)
	}
	g := &Glue{fw: m.fw, phyMode: p.phyMode, txDelayNs: p.txDelayNs}
	if g.regs, err = clk.NewRegmap(m.bus, m.prg, "prg_eth0"); err != nil {
		t.Fatal(err)
	}
	if err := g.registerClocks(p); err != nil {
		t.Fatal(err)
	}
	for _, c := range m.fw.List() {
		if strings.HasPrefix(c.Name, devName) && (c.RateHz != 0 || c.Name == devName+"#m250_sel" && c.Parent != "") {
			t.Errorf("%s: %d Hz, parent %q; want an orphan subtree at 0 Hz", c.Name, c.RateHz, c.Parent)
		}
	}
	if err := g.initPrgEth(); err != nil {
		t.Fatal(err)
	}
	if p := m.fw.GetParent(g.clocks.M250Sel); p == nil || p.Name() != "mpll2" {
		t.Errorf("after clk_set_rate m250_sel parent %v, want mpll2", p)
	}
}

// The fixed variant without its table. The design's honesty test: with the pre-fix
// divider flags instead the framework picks m250_div = 1 again. With its own flags
// (ALLOW_ZERO | ROUND_CLOSEST, no ONE_BASED) the divisor is val + 1: the framework
// still picks divisor 1 from the 250 MHz MPLL2, written as field value 0.
func TestFixedWithoutTable(t *testing.T) {
	fixed, err := Fixed.M250Div()
	if err != nil {
		t.Fatal(err)
	}
	pre, err := PreFix.M250Div()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		flags clk.DividerFlags
		want  want
	}{
		{"pre-fix flags: pre-fix divider", pre.Flags, want{"mpll2", 249999701, 1, 124999850, 0x74c1, 0x000acccd}},
		{"own flags", fixed.Flags, want{"mpll2", 249999701, 0, 124999850, 0x7441, 0x000acccd}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := fixed
			def.Table, def.Flags = nil, tt.flags
			m := newMachine(t, meson.Meson8b, bootPrgEth0)
			cfg := m.config(Fixed, "rgmii", ns(4))
			cfg.M250Div = &def
			g, err := Probe(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m.check(t, g, tt.want)
		})
	}
}

func TestPhyModes(t *testing.T) {
	tests := []struct {
		mode      string
		txDelay   *uint32
		wantPrg   uint32
		wantTxHz  uint32
		wantCntl9 uint32
	}{
		{"rgmii", nil, 0x74a1, 124999850, 0x000acccd}, // absent: the 2 ns default
		{"rgmii-rxid", ns(6), 0x74e1, 124999850, 0x000acccd},
		{"rgmii-id", ns(4), 0x7481, 124999850, 0x000acccd},
		{"rgmii-txid", ns(4), 0x7481, 124999850, 0x000acccd},
		// RMII: bit 0 cleared, bit 11 set, TXDLY 0, no clock programmed; the
		// orphaned glue clocks stay at 0 Hz
		{"rmii", ns(4), 0x7d00, 0, cntl9},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			m := newMachine(t, meson.Meson8b, bootPrgEth0)
			g, err := Probe(m.config(PreFix, tt.mode, tt.txDelay))
			if err != nil {
				t.Fatal(err)
			}
			r, _ := g.Result()
			if r.PrgEth0 != tt.wantPrg || r.TxClockHz != tt.wantTxHz {
				t.Errorf("PRG_ETH0 %#x TX %d Hz, want %#x %d Hz", r.PrgEth0, r.TxClockHz, tt.wantPrg, tt.wantTxHz)
			}
			if v := m.bus.Get(m.hhi + meson.HHIMPLLCntl9); v != tt.wantCntl9 {
				t.Errorf("CNTL9 %#x, want %#x", v, tt.wantCntl9)
			}
		})
	}
}

// TXDLY = tx_delay_ns >> 1 in two bits, for 0..7 ns; 8 and above are refused
// before anything is touched.
func TestTxDelay(t *testing.T) {
	for d := uint32(0); d <= 9; d++ {
		m := newMachine(t, meson.Meson8b, bootPrgEth0)
		g, err := Probe(m.config(Fixed, "rgmii", ns(d)))
		if d > MaxTxDelayNs {
			if err == nil {
				t.Errorf("tx delay %d ns accepted", d)
			}
			if w := m.bus.Writes(m.prg); len(w) != 0 {
				t.Errorf("tx delay %d ns: PRG_ETH0 written %#x", d, w)
			}
			continue
		}
		if err != nil {
			t.Fatalf("tx delay %d: %v", d, err)
		}
		prg, _ := g.PrgEth0()
		if got := prg >> 5 & 3; got != d>>1 {
			t.Errorf("tx delay %d ns: TXDLY %d, want %d", d, got, d>>1)
		}
	}
}

func TestBadInputs(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"unknown phy-mode", func(c *Config) { c.DT.PhyMode = "sgmii" }},
		{"missing phy-mode", func(c *Config) { c.DT.PhyMode = "" }},
		{"unknown compatible", func(c *Config) { c.Compatible = "amlogic,meson-axg-dwmac" }},
		{"missing clkin0", func(c *Config) { c.ClkIn0 = nil }},
		{"missing clkin1", func(c *Config) { c.ClkIn1 = nil }},
		{"no device name", func(c *Config) { c.DevName = "" }},
		{"unknown variant", func(c *Config) { c.Variant = Variant(5) }},
		{"unknown mask choice", func(c *Config) { c.SelMask = SelMask(3) }},
		{"no PRG_ETH0 address", func(c *Config) { c.PrgEth0Addr = 0 }},
		{"tx delay 8", func(c *Config) { c.DT.TxDelayNs = ns(8) }},
		{"tx delay 2^32-1", func(c *Config) { c.DT.TxDelayNs = ns(^uint32(0)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t, meson.Meson8b, bootPrgEth0)
			before := len(m.fw.List())
			cfg := m.config(PreFix, "rgmii", ns(4))
			tt.edit(&cfg)
			if _, err := Probe(cfg); err == nil {
				t.Fatal("probe succeeded")
			}
			if n := len(m.fw.List()); n != before {
				t.Errorf("%d clocks left registered", n-before)
			}
			if w := m.bus.Writes(m.prg); len(w) != 0 {
				t.Errorf("PRG_ETH0 written: %#x", w)
			}
		})
	}
}

// A second probe of the same device fails on the duplicate clock name and
// leaves the first probe's clocks alone.
func TestDuplicateProbe(t *testing.T) {
	m := newMachine(t, meson.Meson8b, bootPrgEth0)
	g, err := Probe(m.config(PreFix, "rgmii", ns(4)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Probe(m.config(PreFix, "rgmii", ns(4))); !errors.Is(err, clk.ErrExist) {
		t.Errorf("second probe: %v, want EEXIST", err)
	}
	if r, _ := g.Result(); r.TxClockHz != 124999850 {
		t.Errorf("first probe's TX clock now %d", r.TxClockHz)
	}
}

func TestClockNames(t *testing.T) {
	m := newMachine(t, meson.Meson8b, bootPrgEth0)
	g, err := Probe(m.config(PreFix, "rgmii", ns(4)))
	if err != nil {
		t.Fatal(err)
	}
	cs := g.Clocks()
	for c, want := range map[*clk.Clock]string{
		cs.M250Sel: "c9410000.ethernet#m250_sel", cs.M250Div: "c9410000.ethernet#m250_div",
		cs.FixedDiv2: "c9410000.ethernet#fixed_div2", cs.RGMIITxEn: "c9410000.ethernet#rgmii_tx_en",
	} {
		if c.Name() != want {
			t.Errorf("clock %q, want %q", c.Name(), want)
		}
	}
	if got := clkName("ffe0000000000.ethernet", "rgmii_tx_en"); got != "ffe0000000000.ethernet#rgmii_tx" {
		t.Errorf("long name %q: the driver's 32-byte buffer keeps 31", got)
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string]Variant{"pre-fix": PreFix, "fixed": Fixed, "FIXED": Fixed} {
		if got, err := ParseVariant(s); err != nil || got != want {
			t.Errorf("ParseVariant(%q) = %v %v", s, got, err)
		}
	}
	for _, s := range []string{"", "post-fix", "prefix"} {
		if _, err := ParseVariant(s); err == nil {
			t.Errorf("ParseVariant(%q) accepted", s)
		}
	}
	for s, want := range map[string]Compatible{"meson8b": Meson8b, "amlogic,meson8m2-dwmac": Meson8m2,
		"gxbb": GXBB, "amlogic,meson-gxbb-dwmac": GXBB} {
		if got, err := ParseCompatible(s); err != nil || got != want {
			t.Errorf("ParseCompatible(%q) = %v %v", s, got, err)
		}
	}
	for s, want := range map[string]PhyMode{"rgmii": RGMII, "rgmii-id": RGMIIID, "rgmii-rxid": RGMIIRXID,
		"rgmii-txid": RGMIITXID, "rmii": RMII} {
		if got, err := ParsePhyMode(s); err != nil || got != want || got.String() != s {
			t.Errorf("ParsePhyMode(%q) = %v %v", s, got, err)
		}
	}
	if a, _ := GXBB.PrgEth0Addr(); a != 0xc8834540 {
		t.Errorf("GXBB PRG_ETH0 %#x", a)
	}
	if a, _ := Meson8m2.PrgEth0Addr(); a != 0xc1108140 {
		t.Errorf("Meson8m2 PRG_ETH0 %#x", a)
	}
}
