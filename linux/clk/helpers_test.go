package clk

import (
	"testing"

	"mesonemu/linux/clk/clktest"
)

const testBase = 0x1000

// newTestRegs puts one 32-bit register per value at testBase, testBase+4, ...
func newTestRegs(t *testing.T, vals ...uint32) (*clktest.FakeBus, *Regmap) {
	t.Helper()
	regs := map[uint32]uint32{}
	for i, v := range vals {
		regs[testBase+uint32(4*i)] = v
	}
	bus := clktest.New(regs)
	m, err := NewRegmap(bus, testBase, "test")
	if err != nil {
		t.Fatal(err)
	}
	return bus, m
}

func mustRegister(t *testing.T, fw *Framework, in Init, ops Ops) *Clock {
	t.Helper()
	c, err := fw.Register(in, ops)
	if err != nil {
		t.Fatalf("register %s: %v", in.Name, err)
	}
	return c
}

// spyOps is a root clock with programmable rounding that records what it is asked.
type spyOps struct {
	hwRate uint32                      // what the hardware runs at
	round  func(rate uint32) uint32    // .round_rate
	setTo  func(rate, p uint32) uint32 // the rate the hardware takes on set_rate (nil: round(rate))
	rounds []uint32
	sets   [][2]uint32
}

func (s *spyOps) RecalcRate(*HW, uint32) (uint32, error) { return s.hwRate, nil }

func (s *spyOps) RoundRate(_ *HW, rate uint32, _ *uint32) (uint32, error) {
	s.rounds = append(s.rounds, rate)
	return s.round(rate), nil
}

func (s *spyOps) SetRate(_ *HW, rate, parentRate uint32) error {
	s.sets = append(s.sets, [2]uint32{rate, parentRate})
	if s.setTo != nil {
		s.hwRate = s.setTo(rate, parentRate)
	} else {
		s.hwRate = s.round(rate)
	}
	return nil
}

// passOps is a child clock that records the parent rate set_rate receives.
type passOps struct {
	sets [][2]uint32
}

func (p *passOps) RecalcRate(_ *HW, parentRate uint32) (uint32, error) { return parentRate, nil }

func (p *passOps) RoundRate(hw *HW, rate uint32, parentRate *uint32) (uint32, error) {
	*parentRate = hw.Parent().RoundRate(rate)
	return *parentRate, nil
}

func (p *passOps) SetRate(_ *HW, rate, parentRate uint32) error {
	p.sets = append(p.sets, [2]uint32{rate, parentRate})
	return nil
}
