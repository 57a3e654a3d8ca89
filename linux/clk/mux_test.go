package clk

import (
	"errors"
	"testing"
)

// muxTree registers fixed-rate parents named p0, p1, ... and a mux over them with
// selector field [1:0] at register 0 holding sel.
func muxTree(t *testing.T, rates []uint32, sel uint32, flags Flags, muxFlags MuxFlags) (*Framework, *Clock) {
	t.Helper()
	_, m := newTestRegs(t, sel)
	fw := New()
	var names []string
	for i, r := range rates {
		n := string(rune('a'+i)) + "osc"
		mustRegister(t, fw, Init{Name: n}, &FixedRate{Rate: r})
		names = append(names, n)
	}
	mux := mustRegister(t, fw, Init{Name: "mux", ParentNames: names, Flags: flags},
		&Mux{Reg: Reg{m, 0}, Shift: 0, Mask: 3, Flags: muxFlags})
	return fw, mux
}

func TestMuxDetermineRate(t *testing.T) {
	tests := []struct {
		name       string
		rates      []uint32
		sel        uint32
		flags      Flags
		muxFlags   MuxFlags
		req        uint32
		want       uint32
		wantParent string
		wantErr    bool
	}{
		{"fastest not above the request", []uint32{50e6, 80e6, 100e6}, 0, SetRateParent, 0, 90e6, 80e6, "bosc", false},
		{"tie keeps the lower index", []uint32{80e6, 80e6, 50e6}, 2, SetRateParent, 0, 90e6, 80e6, "aosc", false},
		{"closest may go above", []uint32{80e6, 95e6}, 0, SetRateParent, MuxRoundClosest, 90e6, 95e6, "bosc", false},
		{"closest tie keeps the lower index", []uint32{100e6, 80e6, 50e6}, 2, SetRateParent, MuxRoundClosest, 90e6, 100e6, "aosc", false},
		{"every parent above the request fails", []uint32{500e6, 1000e6}, 0, SetRateParent, 0, 300e6, 0, "", true},
		{"without SET_RATE_PARENT parents answer their current rate", []uint32{50e6, 80e6}, 0, 0, 0, 90e6, 80e6, "bosc", false},
		{"NO_REPARENT answers with the current parent", []uint32{50e6, 90e6}, 0, SetRateNoReparent, 0, 90e6, 50e6, "aosc", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fw, mux := muxTree(t, tt.rates, tt.sel, tt.flags, tt.muxFlags)
			got, err := fw.RoundRate(mux, tt.req)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("RoundRate = %d, %v; want EINVAL", got, err)
				}
				if hw := hwOf(mux).RoundRate(tt.req); hw != 0 {
					t.Errorf("clk_hw_round_rate = %d, want 0", hw)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("RoundRate = %d, %v; want %d", got, err, tt.want)
			}
			// SetRate reparents (or, when the rounded rate is already the current
			// one, returns early and leaves the parent as it is).
			if err := fw.SetRate(mux, tt.req); err != nil {
				t.Fatal(err)
			}
			if p := fw.GetParent(mux); p == nil || p.Name() != tt.wantParent {
				t.Errorf("parent after SetRate = %v, want %s", p, tt.wantParent)
			}
		})
	}
}

// The v5.5 m250_sel definition: shift 4 with the already-shifted mask 0x10 reads
// and writes bit 8. With bit 8 set the selector reads 16, out of range: orphan.
func TestMuxShiftedMaskQuirk(t *testing.T) {
	for _, tt := range []struct {
		reg        uint32
		mask       uint32
		wantOrphan bool
		wantParent string
	}{
		{0x7d21, 0x10, true, ""},      // bit 8 set
		{0x7621, 0x10, false, "aosc"}, // bit 8 clear, bit 4 ignored
		{0x7d31, 0x10, true, ""},      // bit 4 set does not matter
		{0x7d21, 0x1, false, "aosc"},  // the fixed mask reads bit 4 = 0
		{0x7d31, 0x1, false, "bosc"},  // bit 4 = 1
	} {
		bus, m := newTestRegs(t, tt.reg)
		fw := New()
		mustRegister(t, fw, Init{Name: "aosc"}, &FixedRate{Rate: 100})
		mustRegister(t, fw, Init{Name: "bosc"}, &FixedRate{Rate: 200})
		mux := mustRegister(t, fw, Init{Name: "sel", ParentNames: []string{"aosc", "bosc"}},
			&Mux{Reg: Reg{m, 0}, Shift: 4, Mask: tt.mask})
		p := fw.GetParent(mux)
		if (p == nil) != tt.wantOrphan || p != nil && p.Name() != tt.wantParent {
			t.Errorf("reg %#x mask %#x: parent %v, want orphan=%v %s", tt.reg, tt.mask, p, tt.wantOrphan, tt.wantParent)
		}
		if tt.wantOrphan && fw.GetRate(mux) != 0 {
			t.Errorf("orphan rate %d, want 0", fw.GetRate(mux))
		}
		if tt.mask != 0x10 {
			continue
		}
		// Switching to slot 1 clears bit 8 and sets bit 4 (1 << shift, unmasked).
		if err := fw.SetParent(mux, fw.Lookup("bosc")); err != nil {
			t.Fatal(err)
		}
		if got, want := bus.Get(testBase), tt.reg&^0x100|0x10; got != want {
			t.Errorf("reg %#x after set_parent(1) = %#x, want %#x", tt.reg, got, want)
		}
	}
}

func TestMuxSetParentGate(t *testing.T) {
	fw, mux := muxTree(t, []uint32{10, 20}, 0, SetParentGate, 0)
	if err := fw.PrepareEnable(mux); err != nil {
		t.Fatal(err)
	}
	if err := fw.SetParent(mux, fw.Lookup("bosc")); !errors.Is(err, ErrBusy) {
		t.Errorf("reparent while prepared: %v, want EBUSY", err)
	}
	if err := fw.DisableUnprepare(mux); err != nil {
		t.Fatal(err)
	}
	if err := fw.SetParent(mux, fw.Lookup("bosc")); err != nil {
		t.Errorf("reparent while unprepared: %v", err)
	}
	if r := fw.GetRate(mux); r != 20 {
		t.Errorf("rate after reparent %d, want 20", r)
	}
}

// A prepared and enabled mux carries its prepare/enable share to the new parent.
func TestMuxReparentMovesCounts(t *testing.T) {
	fw, mux := muxTree(t, []uint32{10, 20}, 0, 0, 0)
	if err := fw.PrepareEnable(mux); err != nil {
		t.Fatal(err)
	}
	if err := fw.SetParent(mux, fw.Lookup("bosc")); err != nil {
		t.Fatal(err)
	}
	counts := map[string][2]uint32{}
	for _, c := range fw.List() {
		counts[c.Name] = [2]uint32{c.PrepareCount, c.EnableCount}
	}
	if counts["aosc"] != [2]uint32{0, 0} || counts["bosc"] != [2]uint32{1, 1} || counts["mux"] != [2]uint32{1, 1} {
		t.Errorf("prepare/enable counts %v", counts)
	}
}
