package meson

import (
	"fmt"

	"mesonemu/linux/clk"
)

// Parm is struct parm: a register field [Shift+Width-1 : Shift] at offset Off. A
// zero Width means the chip does not have the field (MESON_PARM_APPLICABLE).
type Parm struct {
	Off   uint32
	Shift uint8
	Width uint8
}

func (p Parm) applicable() bool { return p.Width != 0 }

func (p Parm) mask() uint32 {
	if p.Width >= 32 {
		return ^uint32(0)
	}
	return uint32(1)<<p.Width - 1
}

func (p Parm) validate(name string) error {
	if int(p.Shift)+int(p.Width) > 32 || p.Off%4 != 0 {
		return fmt.Errorf("field %s (+%#x, shift %d, width %d): %w", name, p.Off, p.Shift, p.Width, clk.ErrInvalid)
	}
	return nil
}

// read is meson_parm_read.
func (p Parm) read(m *clk.Regmap) (uint32, error) {
	v, err := m.Read(p.Off)
	if err != nil {
		return 0, err
	}
	return v >> p.Shift & p.mask(), nil
}

// write is meson_parm_write: regmap_update_bits on the field.
func (p Parm) write(m *clk.Regmap, val uint32) error {
	return m.UpdateBits(p.Off, p.mask()<<p.Shift, val<<p.Shift)
}
