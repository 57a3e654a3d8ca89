package reg

import (
	"strings"
	"testing"
)

var testBlock = Block{Name: "t", Registers: []Register{
	{Name: "CTRL", Offset: 0x0, Reset: 0x0000_0100, Fields: []Field{
		{Name: "en", Hi: 0, Lo: 0, Access: RW},
		{Name: "mode", Hi: 3, Lo: 1, Access: RW},
		{Name: "version", Hi: 11, Lo: 8, Access: RO},
		{Name: "reset", Hi: 31, Lo: 31, Access: SC},
	}},
	{Name: "STATUS", Offset: 0x4, Reset: 0x0000_00ff, Fields: []Field{
		{Name: "ti", Hi: 0, Lo: 0, Access: W1C},
		{Name: "ri", Hi: 6, Lo: 6, Access: W1C},
		{Name: "state", Hi: 19, Lo: 17, Access: RO},
	}},
	{Name: "POLL", Offset: 0x8, Fields: []Field{{Name: "demand", Hi: 31, Lo: 0, Access: WO}}},
}}

func TestBlockValidates(t *testing.T) {
	if err := testBlock.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := Block{Name: "b", Registers: []Register{{Name: "X", Offset: 2}}}
	if bad.Validate() == nil {
		t.Fatal("unaligned offset accepted")
	}
	overlap := Block{Name: "b", Registers: []Register{{Name: "X", Fields: []Field{{Name: "a", Hi: 3, Lo: 0}, {Name: "b", Hi: 4, Lo: 3}}}}}
	if overlap.Validate() == nil {
		t.Fatal("overlapping fields accepted")
	}
}

func TestGuestWriteAppliesAccessRules(t *testing.T) {
	cases := []struct {
		name        string
		off, before uint32
		write, want uint32
	}{
		{"RW fields store, RO keeps, undeclared bits stay", 0x0, 0x0000_0100, 0xffff_ffff, 0x8000_010f},
		{"RO field cannot be cleared", 0x0, 0x0000_0100, 0x0000_0000, 0x0000_0100},
		{"W1C clears only ones", 0x4, 0x0000_0041, 0x0000_0001, 0x0000_0040},
		{"W1C zero write keeps", 0x4, 0x0000_0041, 0x0000_0000, 0x0000_0041},
		{"W1C never sets RO state", 0x4, 0x0000_0041, 0x000e_0041, 0x0000_0000},
	}
	for _, c := range cases {
		f := NewFile(&testBlock)
		f.Set(c.off, c.before)
		_, got, ok := f.GuestWrite(c.off, c.write)
		if !ok || got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	f := NewFile(&testBlock)
	f.GuestWrite(0x8, 1)
	if v, _ := f.Read(0x8); v != 0 || f.Get(0x8) != 1 {
		t.Fatalf("write-only register reads %#x (hardware sees %#x)", v, f.Get(0x8))
	}
	if _, _, ok := f.GuestWrite(0x40, 1); ok {
		t.Fatal("write to a hole reported as a register")
	}
}

func TestFieldsAndFormat(t *testing.T) {
	r := testBlock.Register("CTRL")
	fd := r.Field("mode")
	if fd.Mask() != 0xe || fd.Get(0x0000_000a) != 5 || fd.Set(0, 9) != 0x2 {
		t.Fatalf("mode field: mask %#x get %d set %#x", fd.Mask(), fd.Get(0xa), fd.Set(0, 9))
	}
	out := Format(r, 0x8000_0105)
	for _, want := range []string{"CTRL = 0x80000105", "[31]", "reset", "[3:1]", "mode", "= 2 "} {
		if !strings.Contains(out, want) {
			t.Errorf("Format output lacks %q:\n%s", want, out)
		}
	}
}
