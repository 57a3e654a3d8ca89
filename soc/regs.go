package soc

import (
	"fmt"
	"strings"

	"mesonemu/reg"
)

// regDevice is a block of a chip whose guest accesses are its register table's
// (reg.File's access rules), and that tells its owner when a write changed a
// stored bit: the HHI and the glue.
type regDevice struct {
	kind     Kind
	name     string
	regs     *reg.File
	onChange func()
}

func newRegDevice(k Kind, name string, b *reg.Block, onChange func()) regDevice {
	return regDevice{kind: k, name: name, regs: reg.NewFile(b), onChange: onChange}
}

// Name is the block's name on the bus.
func (d *regDevice) Name() string { return d.name }

// RegName names a register for bus traces.
func (d *regDevice) RegName(off uint32) string { return d.regs.RegName(off) }

// ReadReg is a guest load.
func (d *regDevice) ReadReg(off uint32) uint32 {
	v, _ := d.regs.GuestRead(off)
	return v
}

// WriteReg is a guest store with the table's access rules.
func (d *regDevice) WriteReg(off, v uint32) {
	old, cur, ok := d.regs.GuestWrite(off, v)
	if ok && old != cur && d.onChange != nil {
		d.onChange()
	}
}

// Regs is the register file (hardware view, for dumps and tests).
func (d *regDevice) Regs() *reg.File { return d.regs }

// Kind is the chip this block belongs to.
func (d *regDevice) Kind() Kind { return d.kind }

// RegValue is one register with its absolute address and current value.
type RegValue struct {
	Device string // bus name of the block: "hhi" or "prg_eth0"
	Addr   uint32
	Reg    *reg.Register
	Value  uint32
}

// Format renders the register with every field decoded (reg.Format), headed by its
// address.
func (r RegValue) Format() string {
	return fmt.Sprintf("0x%08x %s.", r.Addr, r.Device) + reg.Format(r.Reg, r.Value)
}

// Registers lists every declared HHI and glue register with its current value, HHI
// first, in table order.
func (s *SoC) Registers() []RegValue {
	var out []RegValue
	add := func(dev string, base uint32, f *reg.File) {
		b := f.Block()
		for i := range b.Registers {
			r := &b.Registers[i]
			out = append(out, RegValue{Device: dev, Addr: base + r.Offset, Reg: r, Value: f.Get(r.Offset)})
		}
	}
	add(s.hhi.Name(), s.addrs.HHIBase, s.hhi.Regs())
	add(s.glue.Name(), s.addrs.PRGEthBase, s.glue.Regs())
	return out
}

// Register finds one register by its table name ("PRG_ETH0", "HHI_MPLL_CNTL9").
func (s *SoC) Register(name string) (RegValue, bool) {
	for _, r := range s.Registers() {
		if r.Reg.Name == name {
			return r, true
		}
	}
	return RegValue{}, false
}

// FormatRegisters decodes the named registers (all of them when names is empty),
// field by field, followed by the TX clock and the delays they produce: the body
// of `mesonemu regs`. Unknown names are an error listing the valid ones.
func (s *SoC) FormatRegisters(names ...string) (string, error) {
	all := s.Registers()
	var pick []RegValue
	if len(names) == 0 {
		pick = all
	}
	for _, n := range names {
		r, ok := s.Register(n)
		if !ok {
			valid := make([]string, len(all))
			for i, v := range all {
				valid[i] = v.Reg.Name
			}
			return "", fmt.Errorf("unknown register %q (valid: %s)", n, strings.Join(valid, ", "))
		}
		pick = append(pick, r)
	}
	var b strings.Builder
	for _, r := range pick {
		b.WriteString(r.Format())
	}
	h := s.hhi
	fmt.Fprintf(&b, "fixed_pll %.3f Hz, fclk_div2 %.3f Hz, mpll2 %.3f Hz\n", h.FixedPLLHz(), h.FclkDiv2Hz(), h.MPLL2Hz())
	fmt.Fprintf(&b, "rgmii tx clock: %v\n", s.TXClock())
	fmt.Fprintf(&b, "mac tx delay (mechanism A): %s\n", s.MACTXDelay().Why)
	fmt.Fprintf(&b, "mac rx delay: %s\n", s.MACRXDelay().Why)
	return b.String(), nil
}
