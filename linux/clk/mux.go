package clk

import (
	"fmt"
	"math/bits"
)

// MuxFlags are the CLK_MUX_* flags, with Linux's bit values.
type MuxFlags uint8

// Mux flags.
const (
	MuxIndexOne     MuxFlags = 1 << 0 // register value = index + 1
	MuxIndexBit     MuxFlags = 1 << 1 // register value = 1 << index
	MuxHiwordMask   MuxFlags = 1 << 2 // write-enable mask in the upper 16 bits
	MuxReadOnly     MuxFlags = 1 << 3 // registered with clk_mux_ro_ops
	MuxRoundClosest MuxFlags = 1 << 4 // determine_rate picks the closest parent
)

// Mux is struct clk_mux. The selector is read as (reg >> Shift) & Mask and written
// by clearing Mask << Shift and or-ing index << Shift: Mask is the unshifted field
// mask. Passing an already-shifted mask (dwmac-meson8b until Dec 2020: shift 4,
// mask 0x10) really makes the mux read and clear bit 8; that is reproduced.
type Mux struct {
	Reg   Reg
	Shift uint8
	Mask  uint32
	Flags MuxFlags
	Table []uint32 // register value per parent index; nil: none
}

// muxRO is clk_mux_ro_ops: .get_parent only (no rounding, no set_parent).
type muxRO struct{ m *Mux }

func (m *Mux) selectOps() Ops {
	if m.Flags&MuxReadOnly != 0 {
		return &muxRO{m}
	}
	return m
}

// Validate refuses layouts that would shift out of the register.
func (m *Mux) Validate() error {
	if err := m.Reg.validate(); err != nil {
		return err
	}
	if m.Mask == 0 || m.Shift >= 32 || bits.Len32(m.Mask)+int(m.Shift) > 32 {
		return fmt.Errorf("mux field shift %d mask %#x: %w", m.Shift, m.Mask, ErrInvalid)
	}
	if m.Flags&MuxHiwordMask != 0 && bits.Len32(m.Mask)+int(m.Shift) > 16 {
		return fmt.Errorf("mux value exceeds LOWORD field: %w", ErrInvalid)
	}
	return nil
}

// valToIndex is clk_mux_val_to_index: the parent index, or -EINVAL.
func (m *Mux) valToIndex(numParents int, val uint32) int {
	if m.Table != nil {
		for i := 0; i < numParents && i < len(m.Table); i++ {
			if m.Table[i] == val {
				return i
			}
		}
		return -int(ErrInvalid)
	}
	if val != 0 && m.Flags&MuxIndexBit != 0 {
		val = uint32(bits.TrailingZeros32(val)) // ffs(val) - 1
	}
	if val != 0 && m.Flags&MuxIndexOne != 0 {
		val--
	}
	if val >= uint32(numParents) {
		return -int(ErrInvalid)
	}
	return int(val)
}

// indexToVal is clk_mux_index_to_val (the value is not masked, as in Linux).
func (m *Mux) indexToVal(index uint8) (uint32, error) {
	if m.Table != nil {
		if int(index) >= len(m.Table) {
			return 0, fmt.Errorf("mux index %d beyond its table: %w", index, ErrInvalid)
		}
		return m.Table[index], nil
	}
	val := uint32(index)
	if m.Flags&MuxIndexBit != 0 {
		val = shl(uint32(index))
	}
	if m.Flags&MuxIndexOne != 0 {
		val++
	}
	return val, nil
}

// GetParent is clk_mux_get_parent. Its u8 return turns -EINVAL into 234, an index
// no clock has, so the framework leaves the mux an orphan.
func (m *Mux) GetParent(hw *HW) (uint8, error) {
	v, err := m.Reg.read()
	if err != nil {
		return 0, err
	}
	idx := m.valToIndex(hw.NumParents(), v>>m.Shift&m.Mask)
	return uint8(idx), nil
}

// SetParent is clk_mux_set_parent.
func (m *Mux) SetParent(_ *HW, index uint8) error {
	val, err := m.indexToVal(index)
	if err != nil {
		return err
	}
	var v uint32
	if m.Flags&MuxHiwordMask != 0 {
		v = m.Mask << (m.Shift + 16)
	} else {
		if v, err = m.Reg.read(); err != nil {
			return err
		}
		v &^= m.Mask << m.Shift
	}
	return m.Reg.write(v | val<<m.Shift)
}

// DetermineRate is clk_mux_determine_rate with the mux's own flags.
func (m *Mux) DetermineRate(hw *HW, req *RateRequest) error {
	return MuxDetermineRate(hw, req, m.Flags&MuxRoundClosest != 0)
}

func (r *muxRO) Validate() error { return r.m.Validate() }

func (r *muxRO) GetParent(hw *HW) (uint8, error) { return r.m.GetParent(hw) }

// muxIsBetter is mux_is_better_rate.
func muxIsBetter(rate, now, best uint32, closest bool) bool {
	if closest {
		return absLong(now-rate) < absLong(best-rate)
	}
	return now <= rate && now > best
}

// MuxDetermineRate is clk_mux_determine_rate_flags. With CLK_SET_RATE_NO_REPARENT
// the current parent answers. Otherwise every parent is asked (rounded with
// CLK_SET_RATE_PARENT, else at its current rate) and the best one wins: without
// closest, the fastest rate not above the request; the first strictly better one
// is kept, so ties go to the lower index. No candidate: ErrInvalid, which makes
// the whole upstream walk see 0.
func MuxDetermineRate(hw *HW, req *RateRequest, closest bool) error {
	c := hw.core()
	fw := c.fw
	if c.flags&SetRateNoReparent != 0 {
		var best uint32
		switch {
		case c.flags&SetRateParent != 0:
			preq := *req
			if err := c.parent.hwOrNil().DetermineRate(&preq); err != nil {
				return err
			}
			best = preq.Rate
		case c.parent != nil:
			best = getRateNolock(c.parent)
		default:
			best = getRateNolock(c)
		}
		req.BestParentRate = best
		req.Rate = best
		return nil
	}

	var bestParent *Clock
	var best uint32
	for i := range c.parentNames {
		parent := fw.parentByIndex(c, i)
		if parent == nil {
			continue
		}
		var now uint32
		if c.flags&SetRateParent != 0 {
			preq := *req
			if err := fw.roundNolock(parent, &preq); err != nil {
				fw.note(err)
				continue
			}
			now = preq.Rate
		} else {
			now = getRateNolock(parent)
		}
		if muxIsBetter(req.Rate, now, best, closest) {
			bestParent = parent
			best = now
		}
	}
	if bestParent == nil {
		return fmt.Errorf("%s: no parent can give %d Hz: %w", c.name, req.Rate, ErrInvalid)
	}
	req.BestParent = hwOf(bestParent)
	req.BestParentRate = best
	req.Rate = best
	return nil
}

func (c *Clock) hwOrNil() *HW {
	if c == nil {
		return nil
	}
	return hwOf(c)
}
