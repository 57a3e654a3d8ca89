package clk_test

import (
	"encoding/binary"
	"testing"

	"mesonemu/linux/clk"
	"mesonemu/linux/clk/clktest"
	"mesonemu/linux/clk/meson"
)

// FuzzClockTree builds the Meson8b clock provider over fuzzed HHI register values
// and, below it, a dwmac-meson8b-like chain whose layout and flags the fuzzer picks
// (mux -> divider -> fixed factor -> gate, parents by name, loops and missing parents
// allowed), then runs a fuzzed sequence of clk API calls and hardware changes.
// Whatever happens:
//   - every call returns (each walk is bounded; widths are kept at 8 bits so a
//     chain of CLK_SET_RATE_PARENT dividers, whose search is O(2^width) per level
//     as in Linux, stays quick);
//   - every clock's parent is a registered clock or none; enable and prepare
//     counts never wrap; at most 64 warnings are kept;
//   - cached rates keep the relations the clock types document: a gate and a mux
//     run at their parent's rate, a fixed factor at floor(parent*mult/div) in
//     unsigned long, a divider and an MPLL never above their parent (an MPLL at
//     most ceil(parent/4));
//   - the divider and MPLL helpers return register values within their fields.
func FuzzClockTree(f *testing.F) {
	hhi := []byte{
		// MPLL_CNTL m=85 n=1 od=0 (2040 MHz), CNTL2 frac 0, CNTL5, CNTL6,
		// CNTL9 n2=8 sdm=0x1000 sdm_en en
		0x55, 0x02, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0xd0, 0x08, 0x00,
		0, 0, 0, 0, // the glue register
	}
	glue := func(divFlags clk.DividerFlags, table []byte) []byte {
		b := append([]byte(nil), hhi...)
		b = append(b, 4, 0x10, 0, 0) // mux: shift 4, mask 0x10 (v5.5), no flags, no table
		b = append(b, 7, 3, byte(divFlags), byte(len(table)/2))
		b = append(b, table...)
		if len(table) == 0 {
			b = append(b, 0) // no empty table
		}
		b = append(b, 1, 2, 10, 0) // fixed factor 1/2, gate bit 10
		// parents: mux over fclk_div2 and mpll2 (pool 0, 1), the others in chain;
		// flags: SET_RATE_PARENT (pool index 3) everywhere.
		b = append(b, 0, 1, 3, 1, 3, 1, 3, 1, 3)
		// ops: set the gate to 125 MHz, prepare+enable it, round 250 MHz on the divider
		return append(b, 0, 11, 0x40, 0x59, 0x73, 0x07, 3, 11, 1, 9, 0x80, 0xb2, 0xe6, 0x0e)
	}
	v55 := glue(clk.DividerOneBased|clk.DividerAllowZero|clk.DividerRoundClosest, nil)
	fixed := glue(clk.DividerAllowZero|clk.DividerRoundClosest, []byte{2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7})
	f.Add(v55)
	f.Add(fixed)
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		runClockProgram(t, &fuzzBytes{b: data})
	})
}

// fuzzBytes hands out the fuzz input; past its end it reads zeros.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) u8() uint8 {
	if len(f.b) == 0 {
		return 0
	}
	v := f.b[0]
	f.b = f.b[1:]
	return v
}

func (f *fuzzBytes) u32() uint32 {
	var w [4]byte
	for i := range w {
		w[i] = f.u8()
	}
	return binary.LittleEndian.Uint32(w[:])
}

// The HHI registers the provider reads, and one glue register block.
var hhiRegs = []uint32{meson.HHIMPLLCntl, meson.HHIMPLLCntl2, meson.HHIMPLLCntl5, meson.HHIMPLLCntl6, meson.HHIMPLLCntl9}

const glueBase = 0xc8834540 // PRG_ETH0 on Meson8b

// Names a fuzzed clock may list as a parent: real ones, its own chain (loops), a
// clock that never exists (orphans).
var parentPool = []string{meson.NameFClkDiv2, meson.NameMPLL2, meson.NameXtal, "m250_div", "ghost", "m250_sel", "rgmii_tx_en"}

// clockFlagsPool are framework flags Register accepts.
var clockFlagsPool = []clk.Flags{0, clk.SetRateGate, clk.SetParentGate, clk.SetRateParent, clk.GetRateNoCache,
	clk.SetRateNoReparent, clk.SetRateUngate, clk.IsCritical}

type fuzzClock struct {
	c    *clk.Clock
	kind byte // 'm' mux, 'd' divider, 'f' fixed factor, 'g' gate, 'p' provider
	ff   *clk.FixedFactor
}

func runClockProgram(t *testing.T, in *fuzzBytes) {
	regs := map[uint32]uint32{glueBase: 0}
	for _, off := range hhiRegs {
		regs[meson.HHIBaseMeson8b+off] = in.u32()
	}
	regs[glueBase] = in.u32()
	bus := clktest.New(regs)
	fw := clk.New()
	var clocks []fuzzClock
	if cs, err := meson.Register(fw, bus, meson.Meson8b); err == nil {
		for _, c := range []*clk.Clock{cs.Xtal, cs.FixedPLLDCO, cs.FixedPLL, cs.FClkDiv2Div, cs.FClkDiv2, cs.MPLLPrediv, cs.MPLL2Div, cs.MPLL2} {
			clocks = append(clocks, fuzzClock{c: c, kind: 'p'})
		}
	}
	glue, err := clk.NewRegmap(bus, glueBase, "prg_eth")
	if err != nil {
		t.Fatal(err)
	}
	reg := clk.Reg{Map: glue, Off: 0}
	var table []clk.DivTable
	mux := &clk.Mux{Reg: reg, Shift: in.u8() % 40, Mask: uint32(in.u8()), Flags: clk.MuxFlags(in.u8() & 0x1f)}
	if in.u8()&1 != 0 {
		mux.Table = []uint32{uint32(in.u8()), uint32(in.u8())}
	}
	div := &clk.Divider{Reg: reg, Shift: in.u8() % 40, Width: in.u8() % 9, Flags: clk.DividerFlags(in.u8() & 0x7f)}
	for n := in.u8() % 9; n > 0; n-- {
		table = append(table, clk.DivTable{Val: uint32(in.u8() % 16), Div: uint32(in.u8() % 20)})
	}
	if len(table) > 0 || div.Flags&clk.DividerPowerOfTwo == 0 && in.u8()&1 != 0 {
		div.Table = table
	}
	ff := &clk.FixedFactor{Mult: uint32(in.u8()), Div: uint32(in.u8())}
	gate := &clk.Gate{Reg: reg, Bit: in.u8() % 40, Flags: clk.GateFlags(in.u8() & 3)}
	defs := []struct {
		name string
		kind byte
		ops  clk.Ops
	}{{"m250_sel", 'm', mux}, {"m250_div", 'd', div}, {"fixed_div2", 'f', ff}, {"rgmii_tx_en", 'g', gate}}
	for i, d := range defs {
		var parents []string
		switch d.kind {
		case 'm':
			parents = []string{parentPool[in.u8()%uint8(len(parentPool))], parentPool[in.u8()%uint8(len(parentPool))]}
		default:
			parents = []string{defs[i-1].name}
			if in.u8()%8 == 0 {
				parents[0] = parentPool[in.u8()%uint8(len(parentPool))]
			}
		}
		fl := clockFlagsPool[in.u8()%uint8(len(clockFlagsPool))]
		if c, err := fw.Register(clk.Init{Name: d.name, ParentNames: parents, Flags: fl}, d.ops); err == nil {
			clocks = append(clocks, fuzzClock{c: c, kind: d.kind, ff: ff})
		}
	}
	checkTree(t, fw, clocks)
	for op := 0; op < 64 && len(in.b) > 0; op++ {
		clockOp(fw, bus, clocks, in)
		checkTree(t, fw, clocks)
	}
	checkDividerMath(t, in)
}

func clockOp(fw *clk.Framework, bus *clktest.FakeBus, clocks []fuzzClock, in *fuzzBytes) {
	kind := in.u8() % 11
	if len(clocks) == 0 {
		return
	}
	c := clocks[int(in.u8())%len(clocks)].c
	switch kind {
	case 0:
		_ = fw.SetRate(c, in.u32())
	case 1:
		_, _ = fw.RoundRate(c, in.u32())
	case 2:
		_ = fw.SetParent(c, clocks[int(in.u8())%len(clocks)].c)
	case 3:
		_ = fw.PrepareEnable(c)
	case 4:
		_ = fw.DisableUnprepare(c)
	case 5:
		switch in.u8() % 4 {
		case 0:
			_ = fw.Prepare(c)
		case 1:
			_ = fw.Unprepare(c)
		case 2:
			_ = fw.Enable(c)
		case 3:
			_ = fw.Disable(c)
		}
	case 6:
		_ = fw.SetRateRange(c, in.u32(), in.u32())
	case 7:
		_ = fw.Unregister(c)
	case 8:
		_, _ = fw.Summary(clk.SummaryLayout(in.u8() % 3))
	case 9:
		_ = fw.GetRate(c)
		_ = fw.GetParent(c)
	case 10:
		// Hardware (or the boot loader) changes a register under the framework.
		addr := uint32(glueBase)
		if i := int(in.u8()) % (len(hhiRegs) + 1); i < len(hhiRegs) {
			addr = meson.HHIBaseMeson8b + hhiRegs[i]
		}
		bus.Set(addr, in.u32())
	}
}

func checkTree(t *testing.T, fw *clk.Framework, clocks []fuzzClock) {
	t.Helper()
	list := fw.List()
	rates := map[string]uint32{}
	parents := map[string]string{}
	for _, ci := range list {
		rates[ci.Name], parents[ci.Name] = ci.RateHz, ci.Parent
		if ci.Parent != "" && fw.Lookup(ci.Parent) == nil {
			t.Fatalf("%s has parent %s, which is not registered", ci.Name, ci.Parent)
		}
		if ci.EnableCount > 1<<20 || ci.PrepareCount > 1<<20 {
			t.Fatalf("%s: enable count %d, prepare count %d", ci.Name, ci.EnableCount, ci.PrepareCount)
		}
	}
	if n := len(fw.Warnings()); n > 64 {
		t.Fatalf("%d warnings kept", n)
	}
	for _, fc := range clocks {
		name := fc.c.Name()
		p, ok := parents[name]
		if !ok || p == "" {
			continue // unregistered, a root or an orphan
		}
		rate, prate := rates[name], rates[p]
		switch {
		case name == meson.NameMPLL2Div && uint64(rate) > (uint64(prate)+3)/4:
			t.Fatalf("%s at %d Hz from %d Hz: above parent/4", name, rate, prate)
		case (fc.kind == 'g' || fc.kind == 'm') && rate != prate:
			t.Fatalf("%s at %d Hz, its parent %s at %d Hz", name, rate, p, prate)
		case fc.kind == 'f' && fc.ff.Div != 0 && rate != uint32(uint64(prate)*uint64(fc.ff.Mult)/uint64(fc.ff.Div)):
			t.Fatalf("%s at %d Hz from %d Hz, want *%d/%d", name, rate, prate, fc.ff.Mult, fc.ff.Div)
		case fc.kind == 'd' && rate > prate:
			t.Fatalf("divider %s at %d Hz above its parent's %d Hz", name, rate, prate)
		}
	}
}

// checkDividerMath calls the exported helpers with what is left of the input.
func checkDividerMath(t *testing.T, in *fuzzBytes) {
	rate, parent := in.u32(), in.u32()
	width := in.u8()%16 + 1
	flags := clk.DividerFlags(in.u8() & 0x5f)
	var table []clk.DivTable
	for n := in.u8() % 6; n > 0; n-- {
		table = append(table, clk.DivTable{Val: uint32(in.u8()), Div: uint32(in.u8())})
	}
	if val, err := clk.DividerGetVal(rate, parent, table, width, flags); err == nil && val > 1<<width-1 {
		t.Fatalf("DividerGetVal = %d for a %d-bit field", val, width)
	}
	mflags := meson.MPLLFlags(in.u8() & 3)
	sdm, n2, err := meson.MPLLParams(rate, parent, mflags)
	if err == nil && (n2 < meson.N2Min || n2 > meson.N2Max || sdm >= meson.SDMDen) {
		t.Fatalf("MPLLParams(%d, %d) = sdm %d, n2 %d", rate, parent, sdm, n2)
	}
	if err == nil {
		if r, err := meson.MPLLRate(parent, sdm, n2); err != nil || uint64(r) > (uint64(parent)+3)/4 {
			t.Fatalf("MPLLRate(%d, %d, %d) = %d, %v", parent, sdm, n2, r, err)
		}
	}
}
