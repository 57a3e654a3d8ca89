// Package devicetree reads a flattened device tree (a DTB, as dtc or the kernel's
// `make dtbs` writes it) into nodes and properties. It is a file format, on neither
// side of the bus: boards read their configuration from it the way Linux does.
// The format is the devicetree specification's chapter 5 (docs/reference/devicetree.md);
// every offset and length in the blob is checked before use.
package devicetree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// ErrMalformed is wrapped by every error that says the blob is not a valid DTB.
var ErrMalformed = errors.New("malformed device tree blob")

const (
	magic        = 0xd00dfeed
	headerSize   = 40
	tokBeginNode = 0x1
	tokEndNode   = 0x2
	tokProp      = 0x3
	tokNop       = 0x4
	tokEnd       = 0x9
	// maxDepth bounds nesting: real trees are under ten deep, and a hostile blob
	// must not make the reader recurse without end.
	maxDepth = 64
	// MaxSize bounds the blob a reader accepts: a board tree is tens of KiB.
	MaxSize = 16 << 20
)

// Tree is a parsed device tree.
type Tree struct {
	Root *Node
	// Version is the blob's format version (17 for every current dtc).
	Version  uint32
	phandles map[uint32]*Node
}

// Node is one node: its name with unit address ("ethernet@c9410000"), its
// properties in blob order and its children.
type Node struct {
	Name     string
	Props    []Property
	Children []*Node
	Parent   *Node
}

// Property is one property's raw value; the accessors decode the usual types.
type Property struct {
	Name  string
	Value []byte
}

// Parse reads a DTB. It accepts format versions 16 and 17 and anything newer that
// declares itself compatible with 16, as the kernel's libfdt does.
func Parse(blob []byte) (*Tree, error) {
	if len(blob) < headerSize {
		return nil, fmt.Errorf("devicetree: %d bytes, shorter than the %d-byte header: %w", len(blob), headerSize, ErrMalformed)
	}
	if len(blob) > MaxSize {
		return nil, fmt.Errorf("devicetree: %d bytes, over the %d-byte limit: %w", len(blob), MaxSize, ErrMalformed)
	}
	h := func(i int) uint32 { return binary.BigEndian.Uint32(blob[4*i:]) }
	if h(0) != magic {
		return nil, fmt.Errorf("devicetree: magic %#08x, want %#08x (not a DTB): %w", h(0), uint32(magic), ErrMalformed)
	}
	total, offStruct, offStrings := h(1), h(2), h(3)
	version, lastComp, sizeStrings, sizeStruct := h(5), h(6), h(8), h(9)
	if lastComp > 16 || version < 16 {
		return nil, fmt.Errorf("devicetree: format version %d (compatible with %d), this reader takes 16 and 17: %w", version, lastComp, ErrMalformed)
	}
	if uint64(total) > uint64(len(blob)) || total < headerSize {
		return nil, fmt.Errorf("devicetree: header says %d bytes, the file has %d: %w", total, len(blob), ErrMalformed)
	}
	strs, err := section(blob[:total], "strings", offStrings, sizeStrings)
	if err != nil {
		return nil, err
	}
	if version < 17 { // no size_dt_struct before version 17: the block runs to the end
		sizeStruct = total - min(offStruct, total)
	}
	structBlock, err := section(blob[:total], "structure", offStruct, sizeStruct)
	if err != nil {
		return nil, err
	}
	r := &reader{b: structBlock, strs: strs}
	t := &Tree{Version: version, phandles: map[uint32]*Node{}}
	if t.Root, err = r.root(); err != nil {
		return nil, err
	}
	t.index(t.Root)
	return t, nil
}

func section(blob []byte, what string, off, size uint32) ([]byte, error) {
	end := uint64(off) + uint64(size)
	if end > uint64(len(blob)) {
		return nil, fmt.Errorf("devicetree: %s block %d+%d past the blob's %d bytes: %w", what, off, size, len(blob), ErrMalformed)
	}
	return blob[off:end], nil
}

// reader walks the structure block token by token.
type reader struct {
	b    []byte
	strs []byte
	pos  int
}

func (r *reader) errf(format string, a ...any) error {
	return fmt.Errorf("devicetree: structure block offset %d: %s: %w", r.pos, fmt.Sprintf(format, a...), ErrMalformed)
}

func (r *reader) u32() (uint32, error) {
	if r.pos+4 > len(r.b) {
		return 0, r.errf("truncated")
	}
	v := binary.BigEndian.Uint32(r.b[r.pos:])
	r.pos += 4
	return v, nil
}

// token returns the next token, skipping NOPs.
func (r *reader) token() (uint32, error) {
	for {
		t, err := r.u32()
		if err != nil || t != tokNop {
			return t, err
		}
	}
}

func (r *reader) align() { r.pos = (r.pos + 3) &^ 3 }

func (r *reader) root() (*Node, error) {
	tok, err := r.token()
	if err != nil {
		return nil, err
	}
	if tok != tokBeginNode {
		return nil, r.errf("token %#x where the root node must begin", tok)
	}
	root, err := r.node(nil, 0)
	if err != nil {
		return nil, err
	}
	if tok, err = r.token(); err != nil {
		return nil, err
	}
	if tok != tokEnd {
		return nil, r.errf("token %#x after the root node, want FDT_END", tok)
	}
	return root, nil
}

// node reads one node whose FDT_BEGIN_NODE token has just been read.
func (r *reader) node(parent *Node, depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, r.errf("nodes nested over %d deep", maxDepth)
	}
	name, err := r.cstring(r.b, r.pos)
	if err != nil {
		return nil, err
	}
	r.pos += len(name) + 1
	r.align()
	n := &Node{Name: name, Parent: parent}
	for {
		tok, err := r.token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case tokProp:
			if len(n.Children) > 0 {
				return nil, r.errf("property of %s after its first child node", n.Path())
			}
			p, err := r.prop()
			if err != nil {
				return nil, err
			}
			n.Props = append(n.Props, p)
		case tokBeginNode:
			c, err := r.node(n, depth+1)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, c)
		case tokEndNode:
			return n, nil
		default:
			return nil, r.errf("token %#x inside node %s", tok, n.Path())
		}
	}
}

func (r *reader) prop() (Property, error) {
	size, err := r.u32()
	if err != nil {
		return Property{}, err
	}
	nameOff, err := r.u32()
	if err != nil {
		return Property{}, err
	}
	if uint64(r.pos)+uint64(size) > uint64(len(r.b)) {
		return Property{}, r.errf("property value of %d bytes past the block", size)
	}
	if uint64(nameOff) >= uint64(len(r.strs)) {
		return Property{}, r.errf("property name offset %d outside the %d-byte strings block", nameOff, len(r.strs))
	}
	name, err := r.cstring(r.strs, int(nameOff))
	if err != nil {
		return Property{}, err
	}
	v := r.b[r.pos : r.pos+int(size) : r.pos+int(size)]
	r.pos += int(size)
	r.align()
	return Property{Name: name, Value: v}, nil
}

func (r *reader) cstring(b []byte, at int) (string, error) {
	if at > len(b) {
		return "", r.errf("string at %d outside its block", at)
	}
	i := strings.IndexByte(string(b[at:]), 0)
	if i < 0 {
		return "", r.errf("string at %d has no terminating NUL", at)
	}
	return string(b[at : at+i]), nil
}

func (t *Tree) index(n *Node) {
	for _, name := range []string{"phandle", "linux,phandle"} {
		if p, ok := n.Prop(name); ok {
			if v, err := p.U32(); err == nil {
				t.phandles[v] = n
			}
		}
	}
	for _, c := range n.Children {
		t.index(c)
	}
}

// ByPhandle is the node a phandle property (phy-handle, clocks, ...) points at.
func (t *Tree) ByPhandle(ph uint32) (*Node, bool) {
	n, ok := t.phandles[ph]
	return n, ok
}

// Walk calls fn for every node, parents before children, in blob order.
func (t *Tree) Walk(fn func(*Node)) { walk(t.Root, fn) }

func walk(n *Node, fn func(*Node)) {
	fn(n)
	for _, c := range n.Children {
		walk(c, fn)
	}
}

// Path is the node's full path, "/" for the root.
func (n *Node) Path() string {
	if n.Parent == nil {
		return "/"
	}
	if n.Parent.Parent == nil {
		return "/" + n.Name
	}
	return n.Parent.Path() + "/" + n.Name
}

// Prop is the property with that name.
func (n *Node) Prop(name string) (Property, bool) {
	for _, p := range n.Props {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}

// Compatible reports whether the node's compatible list holds s.
func (n *Node) Compatible(s string) bool {
	p, ok := n.Prop("compatible")
	if !ok {
		return false
	}
	list, err := p.Strings()
	if err != nil {
		return false
	}
	for _, c := range list {
		if c == s {
			return true
		}
	}
	return false
}

// Enabled is the status property's verdict: absent, "okay" or "ok" enable a node.
func (n *Node) Enabled() bool {
	p, ok := n.Prop("status")
	if !ok {
		return true
	}
	s, err := p.Text()
	return err == nil && (s == "okay" || s == "ok")
}

// U32 decodes a one-cell property (`<4>`).
func (p Property) U32() (uint32, error) {
	if len(p.Value) != 4 {
		return 0, fmt.Errorf("property %s: %d bytes, want one 32-bit cell", p.Name, len(p.Value))
	}
	return binary.BigEndian.Uint32(p.Value), nil
}

// Strings decodes a string-list property ("a", "b").
func (p Property) Strings() ([]string, error) {
	if len(p.Value) == 0 || p.Value[len(p.Value)-1] != 0 {
		return nil, fmt.Errorf("property %s: not a NUL-terminated string list", p.Name)
	}
	return strings.Split(string(p.Value[:len(p.Value)-1]), "\x00"), nil
}

// Text decodes a single-string property ("rgmii").
func (p Property) Text() (string, error) {
	l, err := p.Strings()
	if err != nil {
		return "", err
	}
	if len(l) != 1 {
		return "", fmt.Errorf("property %s: %d strings, want one", p.Name, len(l))
	}
	return l[0], nil
}
