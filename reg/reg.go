// Package reg declares hardware registers as tables of fields with access kinds and hooks.
// Hardware side: the register blocks of the models; the guest keeps its own constants.
//
// It declares hardware registers once, as tables of named fields with an
// access kind and the side effects of guest accesses (hooks), and keeps the values
// of one register block with those rules applied. Every hardware model in mesonemu
// (the HHI clock controller, the PRG_ETH0 glue, the DWMAC, the PHY) describes its
// registers with these tables, so the same declaration drives the model's
// behaviour, `mesonemu regs` decoding and the `--trace regs` output; a device's
// guest load and store are a table lookup plus the register's hooks.
package reg

import (
	"fmt"
	"strings"
)

// Access says what a guest write does to a field.
type Access uint8

const (
	// RW fields store what the guest writes.
	RW Access = iota
	// RO fields ignore guest writes; only the hardware changes them.
	RO
	// W1C fields are cleared where the guest writes a 1 and kept where it writes a 0.
	W1C
	// SC fields store the write; the hardware clears them when the action completes
	// (software reset, flush, MDIO busy).
	SC
	// WO fields accept writes but read back as zero (poll-demand registers).
	WO
	// RC fields ignore guest writes and are cleared by a guest read, after the read
	// has returned them (missed-frame counters, interrupt status of a PHY).
	RC
)

func (a Access) String() string {
	switch a {
	case RW:
		return "RW"
	case RO:
		return "RO"
	case W1C:
		return "W1C"
	case SC:
		return "SC"
	case WO:
		return "WO"
	case RC:
		return "RC"
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}

// Field is a run of bits Hi..Lo (inclusive) inside a 32-bit register.
type Field struct {
	Name   string
	Hi, Lo uint8
	Access Access
	Doc    string
}

// Mask is the field's bits in register position.
func (f Field) Mask() uint32 {
	w := uint32(f.Hi) - uint32(f.Lo) + 1
	if w >= 32 {
		return ^uint32(0)
	}
	return ((uint32(1) << w) - 1) << f.Lo
}

// Get extracts the field's value from a register value.
func (f Field) Get(v uint32) uint32 { return (v & f.Mask()) >> f.Lo }

// Set returns v with the field replaced by x (x is truncated to the field width).
func (f Field) Set(v, x uint32) uint32 { return v&^f.Mask() | (x<<f.Lo)&f.Mask() }

// Masks is the union of the fields' bits, for a set of status bits named once.
func Masks(fs ...Field) uint32 {
	var m uint32
	for _, f := range fs {
		m |= f.Mask()
	}
	return m
}

// Register is one 32-bit register of a block.
//
// The hooks are the side effects of guest accesses, declared with the register
// (nil: none). They run only from File.GuestRead and File.GuestWrite, never from
// the hardware-side Get and Set, so a model updating its own registers cannot
// trigger itself. A block whose registers carry hooks belongs to one device
// instance (the hooks are bound to it).
type Register struct {
	Name   string
	Offset uint32
	Reset  uint32
	Fields []Field
	Doc    string

	// Value computes what a read returns from the value the access rules give
	// (write-only bits zero), for registers that show more than their stored bits
	// (a latched-low link bit). It has no side effects: peeks and dumps use it too.
	Value func(v uint32) uint32
	// AfterRead runs after a guest read, once clear-on-read bits are cleared, with
	// the value the guest got (acknowledging an interrupt, releasing a latch).
	AfterRead func(v uint32)
	// BeforeWrite sees the stored value and the guest's; false drops the write
	// (a busy MDIO master ignores writes).
	BeforeWrite func(old, v uint32) bool
	// AfterWrite runs once a guest write is stored, with the register's values
	// before and after it (start an engine, recompute the interrupt line).
	AfterWrite func(old, cur uint32)
}

// Field finds a field by name; nil when the register has none of that name.
func (r *Register) Field(name string) *Field {
	for i := range r.Fields {
		if r.Fields[i].Name == name {
			return &r.Fields[i]
		}
	}
	return nil
}

// ruleMasks are a register's bits by what a guest access does to them. Bits that
// no field declares are read-only: a guest cannot set reserved bits.
type ruleMasks struct{ rw, w1c, wo, rc uint32 }

func (r *Register) masks() (m ruleMasks) {
	for _, f := range r.Fields {
		switch f.Access {
		case RW, SC:
			m.rw |= f.Mask()
		case W1C:
			m.w1c |= f.Mask()
		case WO:
			m.wo |= f.Mask()
		case RC:
			m.rc |= f.Mask()
		}
	}
	return m
}

// FieldValue is one decoded field.
type FieldValue struct {
	Field
	Value uint32
}

// Decode splits a register value into its declared fields, in declaration order.
func (r *Register) Decode(v uint32) []FieldValue {
	out := make([]FieldValue, 0, len(r.Fields))
	for _, f := range r.Fields {
		out = append(out, FieldValue{Field: f, Value: f.Get(v)})
	}
	return out
}

// Block is a register block: the table a device model is built from.
type Block struct {
	Name      string
	Registers []Register
}

// Validate checks that offsets are word aligned and unique and that fields lie
// inside 32 bits and do not overlap. Tables are static data, so a failure is a
// programming error reported by the package tests, never at run time by a guest.
func (b *Block) Validate() error {
	seen := map[uint32]string{}
	for _, r := range b.Registers {
		if r.Offset%4 != 0 {
			return fmt.Errorf("%s.%s: offset %#x not word aligned", b.Name, r.Name, r.Offset)
		}
		if other, dup := seen[r.Offset]; dup {
			return fmt.Errorf("%s.%s: offset %#x already used by %s", b.Name, r.Name, r.Offset, other)
		}
		seen[r.Offset] = r.Name
		var used uint32
		for _, f := range r.Fields {
			if f.Hi > 31 || f.Lo > f.Hi {
				return fmt.Errorf("%s.%s.%s: bad bit range %d:%d", b.Name, r.Name, f.Name, f.Hi, f.Lo)
			}
			if f.Access > RC {
				return fmt.Errorf("%s.%s.%s: unknown access kind %v", b.Name, r.Name, f.Name, f.Access)
			}
			if used&f.Mask() != 0 {
				return fmt.Errorf("%s.%s.%s: overlaps another field", b.Name, r.Name, f.Name)
			}
			used |= f.Mask()
		}
	}
	return nil
}

// Register finds a register by name; nil when absent.
func (b *Block) Register(name string) *Register {
	for i := range b.Registers {
		if b.Registers[i].Name == name {
			return &b.Registers[i]
		}
	}
	return nil
}

// File holds the current values of one instance of a block.
type File struct {
	block *Block
	vals  []uint32
	// dense maps offset/4 to a register index (-1: hole). Register blocks are
	// small and word-aligned, and a slice lookup is several times cheaper than
	// a map on the per-frame path (DMA status and descriptor registers).
	dense []int32
	rules []ruleMasks
}

// NewFile makes a register file with every register at its reset value.
func NewFile(b *Block) *File {
	var top uint32
	for _, r := range b.Registers {
		top = max(top, r.Offset)
	}
	f := &File{block: b, vals: make([]uint32, len(b.Registers)), dense: make([]int32, top/4+1),
		rules: make([]ruleMasks, len(b.Registers))}
	for i := range f.dense {
		f.dense[i] = -1
	}
	for i := range b.Registers {
		r := &b.Registers[i]
		if r.Offset%4 == 0 {
			f.dense[r.Offset/4] = int32(i)
		}
		f.vals[i] = r.Reset
		f.rules[i] = r.masks()
	}
	return f
}

// Block returns the table the file was made from.
func (f *File) Block() *Block { return f.block }

// lookup finds the index of the register at off.
func (f *File) lookup(off uint32) (int, bool) {
	if off%4 != 0 || off/4 >= uint32(len(f.dense)) {
		return 0, false
	}
	i := f.dense[off/4]
	return int(i), i >= 0
}

// Reset puts every register back to its reset value.
func (f *File) Reset() {
	for i := range f.block.Registers {
		f.vals[i] = f.block.Registers[i].Reset
	}
}

// Lookup returns the register declared at off, or nil.
func (f *File) Lookup(off uint32) *Register {
	if i, ok := f.lookup(off); ok {
		return &f.block.Registers[i]
	}
	return nil
}

// Read returns the value a guest read would see (write-only fields read as zero,
// the register's Value hook applied) without the read's side effects, and whether
// a register is declared at off. Peeks and dumps use it.
func (f *File) Read(off uint32) (uint32, bool) {
	i, ok := f.lookup(off)
	if !ok {
		return 0, false
	}
	return f.readValue(i), true
}

func (f *File) readValue(i int) uint32 {
	v := f.vals[i] &^ f.rules[i].wo
	if h := f.block.Registers[i].Value; h != nil {
		v = h(v)
	}
	return v
}

// GuestRead is a guest load: the value Read gives, then clear-on-read fields
// cleared and the register's AfterRead hook run. ok is false for a hole.
func (f *File) GuestRead(off uint32) (uint32, bool) {
	i, ok := f.lookup(off)
	if !ok {
		return 0, false
	}
	v := f.readValue(i)
	f.vals[i] &^= f.rules[i].rc
	if h := f.block.Registers[i].AfterRead; h != nil {
		h(v)
	}
	return v, true
}

// GuestWrite is a guest store: the register's BeforeWrite hook may drop it, then
// each field's access rule applies and the AfterWrite hook runs. It returns the
// register's values before and after the write (equal when dropped); ok is false
// when no register is declared at off (the write is then ignored, as silicon
// ignores writes to holes). A hook may change the register again (a reset), so cur
// is the value the access rules produced.
func (f *File) GuestWrite(off, v uint32) (old, cur uint32, ok bool) {
	i, ok := f.lookup(off)
	if !ok {
		return 0, 0, false
	}
	r := &f.block.Registers[i]
	old = f.vals[i]
	if r.BeforeWrite != nil && !r.BeforeWrite(old, v) {
		return old, old, true
	}
	m := f.rules[i]
	cur = old&^m.rw | v&m.rw
	cur &^= v & m.w1c
	cur = cur&^m.wo | v&m.wo
	f.vals[i] = cur
	if r.AfterWrite != nil {
		r.AfterWrite(old, cur)
	}
	return old, cur, true
}

// Get is the hardware's view of a register value (no access rules).
func (f *File) Get(off uint32) uint32 {
	if i, ok := f.lookup(off); ok {
		return f.vals[i]
	}
	return 0
}

// Set is a hardware-side update of a register (no access rules).
func (f *File) Set(off, v uint32) {
	if i, ok := f.lookup(off); ok {
		f.vals[i] = v
	}
}

// GetField reads a named field of the register at off; 0 when either is unknown.
func (f *File) GetField(off uint32, name string) uint32 {
	r := f.Lookup(off)
	if r == nil {
		return 0
	}
	fd := r.Field(name)
	if fd == nil {
		return 0
	}
	return fd.Get(f.Get(off))
}

// SetField is a hardware-side update of one named field.
func (f *File) SetField(off uint32, name string, x uint32) {
	r := f.Lookup(off)
	if r == nil {
		return
	}
	if fd := r.Field(name); fd != nil {
		f.Set(off, fd.Set(f.Get(off), x))
	}
}

// RegName names the register at off for traces ("?" plus the offset when undeclared).
func (f *File) RegName(off uint32) string {
	if r := f.Lookup(off); r != nil {
		return r.Name
	}
	return fmt.Sprintf("+%#x", off)
}

// Format renders a register value with every field decoded, one field a line,
// highest bits first, as `mesonemu regs` prints it.
func Format(r *Register, v uint32) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s = 0x%08x\n", r.Name, v)
	for i := len(r.Fields) - 1; i >= 0; i-- {
		f := r.Fields[i]
		bits := fmt.Sprintf("[%d]", f.Lo)
		if f.Hi != f.Lo {
			bits = fmt.Sprintf("[%d:%d]", f.Hi, f.Lo)
		}
		fmt.Fprintf(&b, "  %-8s %-24s %-3s = %-6d (%#x)", bits, f.Name, f.Access, f.Get(v), f.Get(v))
		if f.Doc != "" {
			fmt.Fprintf(&b, "  %s", f.Doc)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
