package clk

import (
	"fmt"
	"math"

	"mesonemu/emu"
)

// Regmap is the guest's window on one register block: Linux's readl/writel on an
// ioremapped base, or a syscon regmap. It is the only way clock code touches
// hardware, and it goes through emu.GuestBus, so `--trace regs` shows every access.
type Regmap struct {
	bus  emu.GuestBus
	base uint32
	name string
}

// NewRegmap maps the block called name at physical address base.
func NewRegmap(bus emu.GuestBus, base uint32, name string) (*Regmap, error) {
	if bus == nil {
		return nil, fmt.Errorf("regmap %s: no bus", name)
	}
	if base%4 != 0 {
		return nil, fmt.Errorf("regmap %s: base %#x not 32-bit aligned", name, base)
	}
	return &Regmap{bus: bus, base: base, name: name}, nil
}

// Base is the block's physical address.
func (m *Regmap) Base() uint32 { return m.base }

func (m *Regmap) addr(off uint32) (uint32, error) {
	a := uint64(m.base) + uint64(off)
	if a > math.MaxUint32 {
		return 0, fmt.Errorf("regmap %s: offset %#x leaves the 32-bit address space", m.name, off)
	}
	return uint32(a), nil
}

// Read is a 32-bit load of the register at off.
func (m *Regmap) Read(off uint32) (uint32, error) {
	a, err := m.addr(off)
	if err != nil {
		return 0, err
	}
	v, err := m.bus.Read32(a)
	if err != nil {
		return 0, fmt.Errorf("regmap %s read +%#x: %w", m.name, off, err)
	}
	return v, nil
}

// Write is a 32-bit store to the register at off.
func (m *Regmap) Write(off, v uint32) error {
	a, err := m.addr(off)
	if err != nil {
		return err
	}
	if err := m.bus.Write32(a, v); err != nil {
		return fmt.Errorf("regmap %s write +%#x: %w", m.name, off, err)
	}
	return nil
}

// WriteBits is the readl / modify / writel sequence of the basic clock types and
// of dwmac-meson8b's mask_bits: it replaces the bits in mask by val and always
// writes the word back, even when nothing changed.
func (m *Regmap) WriteBits(off, mask, val uint32) error {
	v, err := m.Read(off)
	if err != nil {
		return err
	}
	return m.Write(off, v&^mask|val&mask)
}

// UpdateBits is regmap_update_bits: like WriteBits, but the write is skipped when
// the new word equals the old one (what the Meson clock drivers use).
func (m *Regmap) UpdateBits(off, mask, val uint32) error {
	v, err := m.Read(off)
	if err != nil {
		return err
	}
	nv := v&^mask | val&mask
	if nv == v {
		return nil
	}
	return m.Write(off, nv)
}

// Reg names one register of a Regmap, as a `void __iomem *reg` does in the basic
// clock types.
type Reg struct {
	Map *Regmap
	Off uint32
}

func (r Reg) read() (uint32, error) {
	if r.Map == nil {
		return 0, fmt.Errorf("register +%#x: no regmap", r.Off)
	}
	return r.Map.Read(r.Off)
}

func (r Reg) write(v uint32) error {
	if r.Map == nil {
		return fmt.Errorf("register +%#x: no regmap", r.Off)
	}
	return r.Map.Write(r.Off, v)
}

func (r Reg) validate() error {
	if r.Map == nil {
		return fmt.Errorf("register +%#x: no regmap: %w", r.Off, ErrInvalid)
	}
	if r.Off%4 != 0 {
		return fmt.Errorf("register +%#x: not 32-bit aligned: %w", r.Off, ErrInvalid)
	}
	return nil
}
