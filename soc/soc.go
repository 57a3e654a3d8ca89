package soc

import (
	"fmt"

	"mesonemu/emu"
)

// SoC is one chip assembled on a machine: HHI and the glue block mapped at their
// real addresses, guest RAM, and the MAC interrupt line. The DWMAC is mapped by
// the stmmac package at Addrs().DWMACBase.
type SoC struct {
	m         *emu.Machine
	kind      Kind
	addrs     AddrMap
	hhi       *HHI
	glue      *Glue
	ram       *emu.RAM
	macIRQ    *emu.IRQ
	listeners []func()
}

// NewSoC assembles chip kind on m with DefaultRAMSize of RAM.
func NewSoC(m *emu.Machine, kind Kind) (*SoC, error) {
	return NewSoCWithRAM(m, kind, DefaultRAMSize)
}

// NewSoCWithRAM assembles chip kind on m with ramSize bytes of RAM at RAMBase
// (a multiple of 4 KiB between MinRAMSize and MaxRAMSize).
func NewSoCWithRAM(m *emu.Machine, kind Kind, ramSize uint32) (*SoC, error) {
	if m == nil {
		return nil, fmt.Errorf("new SoC: nil machine")
	}
	if !kind.Valid() {
		return nil, fmt.Errorf("new SoC: unknown kind %v", kind)
	}
	if ramSize < MinRAMSize || ramSize > MaxRAMSize || ramSize%4096 != 0 {
		return nil, fmt.Errorf("new %v: RAM size %#x: want a multiple of 4 KiB in [%#x, %#x]", kind, ramSize, MinRAMSize, MaxRAMSize)
	}
	s := &SoC{m: m, kind: kind, addrs: kind.Addrs()}
	var err error
	if s.hhi, err = NewHHI(kind, s.changed); err != nil {
		return nil, fmt.Errorf("new %v: %w", kind, err)
	}
	if s.glue, err = NewGlue(kind, s.changed); err != nil {
		return nil, fmt.Errorf("new %v: %w", kind, err)
	}
	bus := m.Bus()
	if err := bus.Map(s.addrs.HHIBase, s.addrs.HHISize, s.hhi); err != nil {
		return nil, fmt.Errorf("new %v: %w", kind, err)
	}
	if err := bus.Map(s.addrs.PRGEthBase, s.addrs.PRGEthSize, s.glue); err != nil {
		return nil, fmt.Errorf("new %v: %w", kind, err)
	}
	if s.ram, err = bus.AddRAM(s.addrs.RAMBase, ramSize); err != nil {
		return nil, fmt.Errorf("new %v: %w", kind, err)
	}
	s.macIRQ = m.NewIRQ(MACIRQName)
	return s, nil
}

// changed runs every listener; devices call it under the machine lock.
func (s *SoC) changed() {
	for _, fn := range s.listeners {
		fn()
	}
}

// OnChange registers fn to run after every guest write that changed a stored bit
// of HHI or the glue, i.e. anything that can move the TX clock or the MAC delays.
// fn runs with the machine lock held, inside the guest's bus access: it must not
// block or take the lock. Register listeners while assembling the machine, before
// it runs. Writes that leave the register unchanged do not fire.
func (s *SoC) OnChange(fn func()) {
	if fn != nil {
		s.listeners = append(s.listeners, fn)
	}
}

// Kind is the chip.
func (s *SoC) Kind() Kind { return s.kind }

// Machine is the machine the chip lives on.
func (s *SoC) Machine() *emu.Machine { return s.m }

// Addrs is the chip's address map.
func (s *SoC) Addrs() AddrMap { return s.addrs }

// HHI is the clock controller.
func (s *SoC) HHI() *HHI { return s.hhi }

// Glue is the PRG_ETH0 / PRG_ETH1 block.
func (s *SoC) Glue() *Glue { return s.glue }

// RAM is guest RAM (hardware view for DMA engines).
func (s *SoC) RAM() *emu.RAM { return s.ram }

// MACIRQ is the DWMAC's interrupt line ("macirq", GIC SPI 8) for the stmmac model.
func (s *SoC) MACIRQ() *emu.IRQ { return s.macIRQ }

// TXClock is the RGMII TX clock the registers currently produce.
func (s *SoC) TXClock() TXClock { return ComputeTXClock(s.hhi, s.glue) }

// MACTXDelay is the MAC TX delay under the default mechanism A.
func (s *SoC) MACTXDelay() Delay { return MACTXDelayA(s.TXClock(), s.glue.TXDLY()) }

// MACTXDelayB is the MAC TX delay under the alternative mechanism B.
func (s *SoC) MACTXDelayB() Delay { return MACTXDelayB(s.TXClock(), s.glue.TXDLY()) }

// MACRXDelay is the MAC RX delay from adj_enable / adj_setup.
func (s *SoC) MACRXDelay() Delay { return MACRXDelay(s.glue.RXAdjust()) }
