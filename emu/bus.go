package emu

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"
)

// Device is a block of 32-bit registers mapped on the bus. Offsets are relative to
// the block's base. Both methods run with the machine lock held and must accept any
// offset and value: a guest can write anything.
type Device interface {
	// Name is the block's name in traces and error messages ("prg_eth0").
	Name() string
	ReadReg(off uint32) uint32
	WriteReg(off uint32, v uint32)
}

// RegNamer is implemented by devices that can name their registers for traces.
type RegNamer interface {
	RegName(off uint32) string
}

// BusError is what an access to an unmapped or misaligned address produces: on the
// ARM core it is an external abort; here the access fails and the machine goes on.
type BusError struct {
	Addr  uint32
	Write bool
	Why   string
}

func (e *BusError) Error() string {
	dir := "read from"
	if e.Write {
		dir = "write to"
	}
	return fmt.Sprintf("bus error: %s 0x%08x: %s", dir, e.Addr, e.Why)
}

type mapping struct {
	base, size uint32
	dev        Device
}

// Bus is the physical address space: device register blocks and guest RAM.
type Bus struct {
	m     *Machine
	maps  []mapping
	ram   *RAM
	trace io.Writer
}

func newBus(m *Machine) *Bus { return &Bus{m: m} }

// Map places a device at [base, base+size). Overlapping mappings are refused.
func (b *Bus) Map(base, size uint32, dev Device) error {
	if size == 0 || uint64(base)+uint64(size) > 1<<32 {
		return fmt.Errorf("map %s at %#x size %#x: range outside the 32-bit address space", dev.Name(), base, size)
	}
	b.m.mu.Lock()
	defer b.m.mu.Unlock()
	for _, mp := range b.maps {
		if base < mp.base+mp.size && mp.base < base+size {
			return fmt.Errorf("map %s at %#x: overlaps %s at %#x", dev.Name(), base, mp.dev.Name(), mp.base)
		}
	}
	if b.ram != nil && base < b.ram.base+uint32(len(b.ram.mem)) && b.ram.base < base+size {
		return fmt.Errorf("map %s at %#x: overlaps RAM", dev.Name(), base)
	}
	b.maps = append(b.maps, mapping{base, size, dev})
	sort.Slice(b.maps, func(i, j int) bool { return b.maps[i].base < b.maps[j].base })
	return nil
}

// AddRAM gives the machine size bytes of guest RAM at base.
func (b *Bus) AddRAM(base, size uint32) (*RAM, error) {
	if size == 0 || uint64(base)+uint64(size) > 1<<32 {
		return nil, fmt.Errorf("RAM at %#x size %#x: outside the 32-bit address space", base, size)
	}
	b.m.mu.Lock()
	defer b.m.mu.Unlock()
	if b.ram != nil {
		return nil, fmt.Errorf("RAM already present at %#x", b.ram.base)
	}
	for _, mp := range b.maps {
		if base < mp.base+mp.size && mp.base < base+size {
			return nil, fmt.Errorf("RAM at %#x overlaps %s", base, mp.dev.Name())
		}
	}
	b.ram = &RAM{base: base, mem: make([]byte, size)}
	return b.ram, nil
}

// RAM is the machine's guest RAM (hardware view, lock held). Nil before AddRAM.
func (b *Bus) RAM() *RAM { return b.ram }

// SetTrace makes every MMIO register access print one line to w
// ("W 0xc1108140 prg_eth0.PRG_ETH0 = 0x000074c1"); nil turns tracing off.
// RAM accesses are not traced.
func (b *Bus) SetTrace(w io.Writer) {
	b.m.mu.Lock()
	b.trace = w
	b.m.mu.Unlock()
}

func (b *Bus) find(addr uint32) (mapping, bool) {
	// A handful of mappings: a linear scan beats a tree here.
	for _, mp := range b.maps {
		if addr >= mp.base && addr-mp.base < mp.size {
			return mp, true
		}
	}
	return mapping{}, false
}

func (b *Bus) traceAccess(dir byte, addr uint32, mp mapping, v uint32) {
	name := fmt.Sprintf("+%#x", addr-mp.base)
	if n, ok := mp.dev.(RegNamer); ok {
		name = n.RegName(addr - mp.base)
	}
	fmt.Fprintf(b.trace, "%c 0x%08x %s.%s = 0x%08x\n", dir, addr, mp.dev.Name(), name, v)
}

// Read32 is a guest 32-bit load from a device register or RAM.
func (b *Bus) Read32(addr uint32) (uint32, error) {
	if addr%4 != 0 {
		return 0, &BusError{Addr: addr, Why: "unaligned 32-bit access"}
	}
	b.m.Lock()
	defer b.m.Unlock()
	if b.ram != nil {
		if p, ok := b.ram.slice(addr, 4); ok {
			return binary.LittleEndian.Uint32(p), nil
		}
	}
	mp, ok := b.find(addr)
	if !ok {
		return 0, &BusError{Addr: addr, Why: "no device or RAM at this address"}
	}
	v := mp.dev.ReadReg(addr - mp.base)
	if b.trace != nil {
		b.traceAccess('R', addr, mp, v)
	}
	return v, nil
}

// Write32 is a guest 32-bit store to a device register or RAM.
func (b *Bus) Write32(addr uint32, v uint32) error {
	if addr%4 != 0 {
		return &BusError{Addr: addr, Write: true, Why: "unaligned 32-bit access"}
	}
	b.m.Lock()
	defer b.m.Unlock()
	if b.ram != nil {
		if p, ok := b.ram.slice(addr, 4); ok {
			binary.LittleEndian.PutUint32(p, v)
			return nil
		}
	}
	mp, ok := b.find(addr)
	if !ok {
		return &BusError{Addr: addr, Write: true, Why: "no device or RAM at this address"}
	}
	if b.trace != nil {
		b.traceAccess('W', addr, mp, v)
	}
	mp.dev.WriteReg(addr-mp.base, v)
	return nil
}

// ReadRAM copies guest RAM at addr into p (the guest CPU reading memory).
func (b *Bus) ReadRAM(addr uint32, p []byte) error { return b.copyRAM(addr, p, false) }

// WriteRAM copies p into guest RAM at addr (the guest CPU writing memory).
func (b *Bus) WriteRAM(addr uint32, p []byte) error { return b.copyRAM(addr, p, true) }

// copyRAM copies between p and the len(p) bytes of guest RAM at addr: into RAM
// when write. An access that leaves RAM is a bus error.
func (b *Bus) copyRAM(addr uint32, p []byte, write bool) error {
	b.m.Lock()
	defer b.m.Unlock()
	if b.ram != nil {
		if s, ok := b.ram.slice(addr, len(p)); ok {
			if write {
				copy(s, p)
			} else {
				copy(p, s)
			}
			return nil
		}
	}
	return &BusError{Addr: addr, Write: write, Why: fmt.Sprintf("%d bytes not inside RAM", len(p))}
}

// RAM is guest memory as the DMA engines see it. Its methods are for hardware code
// (machine lock held); the guest goes through the Bus.
type RAM struct {
	base uint32
	mem  []byte
}

// Base and Size describe the RAM's place in the address space.
func (r *RAM) Base() uint32 { return r.base }

// Size is the RAM size in bytes.
func (r *RAM) Size() uint32 { return uint32(len(r.mem)) }

func (r *RAM) slice(addr uint32, n int) ([]byte, bool) {
	if r == nil || n < 0 || addr < r.base {
		return nil, false
	}
	off := uint64(addr - r.base)
	if off+uint64(n) > uint64(len(r.mem)) {
		return nil, false
	}
	return r.mem[off : off+uint64(n)], true
}

// Slice returns the n bytes at addr for direct DMA access, or false when any of
// them lies outside RAM (the DMA engine then signals a bus error).
func (r *RAM) Slice(addr uint32, n int) ([]byte, bool) { return r.slice(addr, n) }

// Read32 reads a little-endian word for a DMA engine.
func (r *RAM) Read32(addr uint32) (uint32, bool) {
	p, ok := r.slice(addr, 4)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(p), true
}

// Write32 writes a little-endian word for a DMA engine.
func (r *RAM) Write32(addr uint32, v uint32) bool {
	p, ok := r.slice(addr, 4)
	if !ok {
		return false
	}
	binary.LittleEndian.PutUint32(p, v)
	return true
}

// GuestBus is all that guest-side code (drivers, the clock framework port) may
// use to reach hardware: 32-bit loads and stores, and CPU copies to and from RAM.
// *Bus implements it; tests may wrap it.
type GuestBus interface {
	Read32(addr uint32) (uint32, error)
	Write32(addr uint32, v uint32) error
	ReadRAM(addr uint32, p []byte) error
	WriteRAM(addr uint32, p []byte) error
}

var _ GuestBus = (*Bus)(nil)
