// Package clktest is a test helper for the guest clock code: a fake bus of registers.
// Guest side: it stands in for the bus in the guest's own tests.
//
// It is a test helper for the guest clock code: a fake emu.GuestBus
// that is a plain map of register addresses to values, with an access log.
package clktest

import (
	"fmt"
	"sync"

	"mesonemu/emu"
)

// Access is one logged register access.
type Access struct {
	Write bool
	Addr  uint32
	Val   uint32
}

func (a Access) String() string {
	dir := "R"
	if a.Write {
		dir = "W"
	}
	return fmt.Sprintf("%s %#08x = %#08x", dir, a.Addr, a.Val)
}

// FakeBus is an emu.GuestBus over a map: every preloaded address reads back what
// was last written; any other address is a bus error, as on the real bus.
type FakeBus struct {
	mu   sync.Mutex
	regs map[uint32]uint32
	log  []Access
}

var _ emu.GuestBus = (*FakeBus)(nil)

// New makes a fake bus holding regs (copied).
func New(regs map[uint32]uint32) *FakeBus {
	b := &FakeBus{regs: make(map[uint32]uint32, len(regs))}
	for a, v := range regs {
		b.regs[a] = v
	}
	return b
}

// Read32 reads a preloaded register.
func (b *FakeBus) Read32(addr uint32) (uint32, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.regs[addr]
	if !ok {
		return 0, &emu.BusError{Addr: addr, Why: "nothing at this address on the fake bus"}
	}
	b.log = append(b.log, Access{Addr: addr, Val: v})
	return v, nil
}

// Write32 writes a preloaded register.
func (b *FakeBus) Write32(addr uint32, v uint32) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.regs[addr]; !ok {
		return &emu.BusError{Addr: addr, Write: true, Why: "nothing at this address on the fake bus"}
	}
	b.regs[addr] = v
	b.log = append(b.log, Access{Write: true, Addr: addr, Val: v})
	return nil
}

// ReadRAM is not backed: clock code never touches RAM.
func (b *FakeBus) ReadRAM(addr uint32, p []byte) error {
	return &emu.BusError{Addr: addr, Why: "no RAM on the fake bus"}
}

// WriteRAM is not backed.
func (b *FakeBus) WriteRAM(addr uint32, p []byte) error {
	return &emu.BusError{Addr: addr, Write: true, Why: "no RAM on the fake bus"}
}

// Get returns a register's value without logging (the test's view, not the guest's).
func (b *FakeBus) Get(addr uint32) uint32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.regs[addr]
}

// Set changes a register without logging (hardware changing under the guest).
func (b *FakeBus) Set(addr, v uint32) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.regs[addr] = v
}

// Log returns the accesses so far.
func (b *FakeBus) Log() []Access {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Access(nil), b.log...)
}

// Writes returns the logged writes to addr, in order.
func (b *FakeBus) Writes(addr uint32) []uint32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []uint32
	for _, a := range b.log {
		if a.Write && a.Addr == addr {
			out = append(out, a.Val)
		}
	}
	return out
}

// ClearLog forgets the accesses so far.
func (b *FakeBus) ClearLog() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = nil
}
