package reg

import (
	"fmt"
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

// hookLog records every hook call of hookBlock in order.
type hookLog []string

func (l *hookLog) add(format string, a ...any) { *l = append(*l, fmt.Sprintf(format, a...)) }

// hookBlock declares one register of each hooked kind, bound to a log and to a
// flag that makes BeforeWrite drop writes (a busy engine).
func hookBlock(log *hookLog, busy *bool, live *uint32) *Block {
	return &Block{Name: "h", Registers: []Register{
		{Name: "CMD", Offset: 0x0, Fields: []Field{{Name: "go", Hi: 0, Lo: 0, Access: SC}, {Name: "arg", Hi: 15, Lo: 8, Access: RW}},
			BeforeWrite: func(old, v uint32) bool { log.add("before %#x %#x", old, v); return !*busy },
			AfterWrite:  func(old, cur uint32) { log.add("after %#x %#x", old, cur) }},
		{Name: "EVENTS", Offset: 0x4, Reset: 0x0000_0031, Fields: []Field{
			{Name: "count", Hi: 3, Lo: 0, Access: RC}, {Name: "pending", Hi: 4, Lo: 4, Access: RC}, {Name: "id", Hi: 7, Lo: 5, Access: RO}},
			AfterRead: func(v uint32) { log.add("read %#x", v) }},
		{Name: "LINK", Offset: 0x8, Reset: 0x0000_0006, Fields: []Field{{Name: "up", Hi: 2, Lo: 2, Access: RO}, {Name: "ability", Hi: 1, Lo: 1, Access: RO}},
			Value: func(v uint32) uint32 { return v&^4 | *live&4 }},
	}}
}

func TestHooksFireOnGuestAccessesOnly(t *testing.T) {
	cases := []struct {
		name     string
		busy     bool
		do       func(f *File) uint32
		want     uint32 // what the access returned (read value, or the stored value after a write)
		wantLog  []string
		wantCMD  uint32
		wantEVTS uint32
	}{
		{"write stores then AfterWrite sees old and new", false,
			func(f *File) uint32 { f.GuestWrite(0x0, 0xffff_ab01); return f.Get(0x0) }, 0xab01,
			[]string{"before 0x0 0xffffab01", "after 0x0 0xab01"}, 0xab01, 0x31},
		{"BeforeWrite false drops the write and skips AfterWrite", true,
			func(f *File) uint32 { _, cur, _ := f.GuestWrite(0x0, 0x0000_ab01); return cur }, 0,
			[]string{"before 0x0 0xab01"}, 0, 0x31},
		{"hardware Set and Get fire nothing", false,
			func(f *File) uint32 { f.Set(0x0, 0x1234); f.Set(0x4, 0xff); return f.Get(0x4) }, 0xff,
			nil, 0x1234, 0xff},
		{"clear-on-read returns the bits, then clears them; RO bits stay", false,
			func(f *File) uint32 { v, _ := f.GuestRead(0x4); return v }, 0x31,
			[]string{"read 0x31"}, 0, 0x20},
		{"Read is a peek: no clear, no hook", false,
			func(f *File) uint32 { v, _ := f.Read(0x4); return v }, 0x31,
			nil, 0, 0x31},
		{"guest cannot write clear-on-read bits", false,
			func(f *File) uint32 { f.GuestWrite(0x4, 0); return f.Get(0x4) }, 0x31,
			nil, 0, 0x31},
	}
	for _, c := range cases {
		var log hookLog
		busy := c.busy
		var live uint32
		f := NewFile(hookBlock(&log, &busy, &live))
		got := c.do(f)
		if got != c.want {
			t.Errorf("%s: returned %#x, want %#x", c.name, got, c.want)
		}
		if strings.Join(log, "; ") != strings.Join(c.wantLog, "; ") {
			t.Errorf("%s: hooks %q, want %q", c.name, log, c.wantLog)
		}
		if f.Get(0x0) != c.wantCMD || f.Get(0x4) != c.wantEVTS {
			t.Errorf("%s: CMD %#x EVENTS %#x, want %#x %#x", c.name, f.Get(0x0), f.Get(0x4), c.wantCMD, c.wantEVTS)
		}
	}
}

func TestValueHookShapesReadsNotStorage(t *testing.T) {
	var log hookLog
	var busy bool
	live := uint32(0)
	f := NewFile(hookBlock(&log, &busy, &live))
	for _, c := range []struct {
		live, want uint32
	}{{0, 0x2}, {4, 0x6}, {0, 0x2}} {
		live = c.live
		peek, _ := f.Read(0x8)
		got, _ := f.GuestRead(0x8)
		if peek != c.want || got != c.want || f.Get(0x8) != 0x6 {
			t.Errorf("live %#x: Read %#x GuestRead %#x stored %#x, want %#x %#x stored 0x6", c.live, peek, got, f.Get(0x8), c.want, c.want)
		}
	}
	if _, ok := f.GuestRead(0xc); ok {
		t.Error("read of a hole reported as a register")
	}
}

func TestMasksAndAccessNames(t *testing.T) {
	cases := []struct {
		fields []Field
		want   uint32
	}{
		{nil, 0},
		{[]Field{{Hi: 0, Lo: 0}}, 0x1},
		{[]Field{{Hi: 0, Lo: 0}, {Hi: 6, Lo: 6}, {Hi: 22, Lo: 20}}, 0x0070_0041},
		{[]Field{{Hi: 31, Lo: 0}}, 0xffff_ffff},
		{[]Field{{Hi: 31, Lo: 31}, {Hi: 31, Lo: 31}}, 0x8000_0000},
	}
	for _, c := range cases {
		if got := Masks(c.fields...); got != c.want {
			t.Errorf("Masks(%v) = %#x, want %#x", c.fields, got, c.want)
		}
	}
	for a, want := range map[Access]string{RW: "RW", RO: "RO", W1C: "W1C", SC: "SC", WO: "WO", RC: "RC", RC + 1: "Access(6)"} {
		if a.String() != want {
			t.Errorf("Access %d: %q, want %q", a, a.String(), want)
		}
	}
	bad := Block{Name: "b", Registers: []Register{{Name: "X", Fields: []Field{{Name: "a", Access: RC + 1}}}}}
	if bad.Validate() == nil {
		t.Error("unknown access kind accepted")
	}
}
