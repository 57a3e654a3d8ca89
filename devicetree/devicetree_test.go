package devicetree

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// blob assembles a DTB from tokens, as dtc lays one out: header, empty memory
// reservation map, structure block, strings block.
type blob struct {
	st   []byte
	strs []byte
}

func (b *blob) u32(v uint32) *blob { b.st = binary.BigEndian.AppendUint32(b.st, v); return b }

func (b *blob) pad() {
	for len(b.st)%4 != 0 {
		b.st = append(b.st, 0)
	}
}

func (b *blob) begin(name string) *blob {
	b.u32(tokBeginNode)
	b.st = append(append(b.st, name...), 0)
	b.pad()
	return b
}

func (b *blob) end() *blob { return b.u32(tokEndNode) }

func (b *blob) prop(name string, v []byte) *blob {
	off := strings.Index(string(b.strs), name+"\x00")
	if off < 0 {
		off = len(b.strs)
		b.strs = append(append(b.strs, name...), 0)
	}
	b.u32(tokProp).u32(uint32(len(v))).u32(uint32(off))
	b.st = append(b.st, v...)
	b.pad()
	return b
}

func (b *blob) bytes() []byte {
	const rsv = headerSize
	offStruct := rsv + 16
	offStrings := offStruct + len(b.st)
	total := offStrings + len(b.strs)
	h := []uint32{magic, uint32(total), uint32(offStruct), uint32(offStrings), rsv, 17, 16, 0,
		uint32(len(b.strs)), uint32(len(b.st))}
	var out []byte
	for _, v := range h {
		out = binary.BigEndian.AppendUint32(out, v)
	}
	out = append(out, make([]byte, 16)...)
	return append(append(out, b.st...), b.strs...)
}

func cell(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func str(s ...string) []byte {
	return []byte(strings.Join(s, "\x00") + "\x00")
}

// sample is a small board tree: a MAC with a PHY behind a phandle.
func sample() *blob {
	b := &blob{}
	b.begin("").prop("compatible", str("hardkernel,odroid-c1", "amlogic,meson8b"))
	b.begin("soc").begin("ethernet@c9410000").
		prop("compatible", str("amlogic,meson8b-dwmac", "snps,dwmac")).
		prop("phy-mode", str("rgmii")).prop("amlogic,tx-delay-ns", cell(4)).prop("phy-handle", cell(1))
	b.u32(tokNop)
	b.begin("mdio").prop("compatible", str("snps,dwmac-mdio"))
	b.begin("ethernet-phy@0").prop("reg", cell(0)).prop("phandle", cell(1)).end()
	b.end().end().end().end().u32(tokEnd)
	return b
}

func TestParseSample(t *testing.T) {
	tr, err := Parse(sample().bytes())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	tr.Walk(func(n *Node) { paths = append(paths, n.Path()) })
	want := "/ /soc /soc/ethernet@c9410000 /soc/ethernet@c9410000/mdio /soc/ethernet@c9410000/mdio/ethernet-phy@0"
	if got := strings.Join(paths, " "); got != want {
		t.Errorf("paths %q, want %q", got, want)
	}
	mac := tr.Root.Children[0].Children[0]
	if !mac.Compatible("snps,dwmac") || mac.Compatible("snps") || !mac.Enabled() {
		t.Errorf("compatible/enabled wrong on %s", mac.Path())
	}
	p, _ := mac.Prop("amlogic,tx-delay-ns")
	if v, err := p.U32(); err != nil || v != 4 {
		t.Errorf("tx-delay %d, %v; want 4", v, err)
	}
	m, _ := mac.Prop("phy-mode")
	if s, err := m.Text(); err != nil || s != "rgmii" {
		t.Errorf("phy-mode %q, %v", s, err)
	}
	ph, _ := mac.Prop("phy-handle")
	v, _ := ph.U32()
	if n, ok := tr.ByPhandle(v); !ok || n.Name != "ethernet-phy@0" {
		t.Errorf("phy-handle <%d> -> %v", v, n)
	}
	if _, err := m.U32(); err == nil {
		t.Error("a string read as a cell")
	}
}

// Every malformed blob is refused with ErrMalformed, never a panic.
func TestParseRefusesMalformed(t *testing.T) {
	good := sample().bytes()
	set := func(off int, v uint32) []byte {
		b := append([]byte(nil), good...)
		binary.BigEndian.PutUint32(b[off:], v)
		return b
	}
	deep := &blob{}
	for range maxDepth + 2 {
		deep.begin("n")
	}
	for range maxDepth + 2 {
		deep.end()
	}
	deep.u32(tokEnd)
	propAfterChild := &blob{}
	propAfterChild.begin("").begin("a").end().prop("x", cell(1)).end().u32(tokEnd)
	noEnd := &blob{}
	noEnd.begin("").end()
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "shorter than"},
		{"bad magic", set(0, 0xfeedface), "not a DTB"},
		{"total past the file", set(4, uint32(len(good)+1)), "the file has"},
		{"old version", set(20, 15), "format version"},
		{"future incompatible", set(24, 17), "format version"},
		{"structure past the end", set(36, 1<<30), "structure block"},
		{"strings past the end", set(12, 1<<31), "strings block"},
		{"truncated structure", set(36, 8), "truncated"},
		{"name offset outside strings", func() []byte {
			b := &blob{strs: []byte("x\x00")}
			b.begin("").u32(tokProp).u32(0).u32(99).end().u32(tokEnd)
			return b.bytes()
		}(), "name offset"},
		{"value past the block", func() []byte {
			b := &blob{}
			b.begin("").u32(tokProp).u32(1 << 30).u32(0).end().u32(tokEnd)
			b.strs = []byte("a\x00")
			return b.bytes()
		}(), "past the block"},
		{"unterminated node name", func() []byte {
			b := &blob{}
			b.u32(tokBeginNode)
			b.st = append(b.st, "abc"...)
			return b.bytes()
		}(), "terminating NUL"},
		{"nested too deep", deep.bytes(), "nested over"},
		{"property after child", propAfterChild.bytes(), "after its first child"},
		{"no FDT_END", noEnd.bytes(), "truncated"},
		{"unknown token", func() []byte {
			b := &blob{}
			b.begin("").u32(7).end().u32(tokEnd)
			return b.bytes()
		}(), "token 0x7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.b)
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v, want ErrMalformed saying %q", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample().bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error without ErrMalformed: %v", err)
			}
			return
		}
		tr.Walk(func(n *Node) {
			for _, p := range n.Props {
				p.U32()
				p.Strings()
				p.Text()
			}
			n.Compatible("x")
			n.Enabled()
			_ = n.Path()
		})
	})
}
