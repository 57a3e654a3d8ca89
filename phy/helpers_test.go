package phy

import (
	"testing"

	"mesonemu/emu"
	"mesonemu/mdio"
	"mesonemu/reg"
)

// rig is a PHY on an MDIO bus at address 0, accessed as the MAC would: one
// locked bus transaction per access.
type rig struct {
	t   *testing.T
	m   *emu.Machine
	p   *RTL8211F
	bus *mdio.Bus
	irq *emu.IRQ
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	m := emu.NewMachine(1)
	irq := m.NewIRQ("phy")
	cfg.IRQ = irq
	p, err := New(m, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	bus := &mdio.Bus{}
	bus.Attach(0, p)
	return &rig{t: t, m: m, p: p, bus: bus, irq: irq}
}

// bit16 is a field's mask as the 16-bit MDIO value shows it.
func bit16(f reg.Field) uint16 { return uint16(f.Mask()) }

func (r *rig) rd(reg uint8) uint16 {
	r.m.Lock()
	defer r.m.Unlock()
	return r.bus.Read(0, reg)
}

func (r *rig) wr(reg uint8, v uint16) {
	r.m.Lock()
	defer r.m.Unlock()
	r.bus.Write(0, reg, v)
}

// paged reads register reg on page, restoring page 0 afterwards.
func (r *rig) paged(page uint16, reg uint8) uint16 {
	r.wr(regPAGSR, page)
	v := r.rd(reg)
	r.wr(regPAGSR, 0)
	return v
}

func (r *rig) writePaged(page uint16, reg uint8, v uint16) {
	r.wr(regPAGSR, page)
	r.wr(reg, v)
	r.wr(regPAGSR, 0)
}

// locked reads the model under the machine lock, as the tests do between runs.
func locked[T any](r *rig, read func() T) T {
	r.m.Lock()
	defer r.m.Unlock()
	return read()
}

func (r *rig) link() LinkState { return locked(r, r.p.Link) }
func (r *rig) irqLevel() bool  { return locked(r, r.irq.Level) }

func (r *rig) now() emu.Time { return r.m.VirtualNow() }

func (r *rig) setCable(on bool) {
	r.m.Lock()
	defer r.m.Unlock()
	r.p.SetCable(on)
}
