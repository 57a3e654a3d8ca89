package phy

import (
	"encoding/binary"
	"testing"

	"mesonemu/emu"
)

// FuzzMDIO drives the RTL8211F with what a guest driver (or a broken one) can
// send over MDIO: any register on any page, any value, reads with side effects,
// soft and pin resets, cable changes and passing time, against any straps and
// partner. Whatever the sequence, it must not panic, the page select keeps 12
// bits, and the link the wire and the MAC see is coherent: down with speed 0, or
// up at 10, 100 or 1000 Mbit/s.
//
// Input: byte 0 picks straps and partner; then 4-byte operations: kind, register,
// value (uint16).
func FuzzMDIO(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0x40, 0x12, 3, 0, 0x10, 0x27}) // BMCR AN restart, wait
	f.Add([]byte{3, 0, 0x1f, 0x08, 0x0d, 0, 0x11, 0x00, 0x01, 0, 0x15, 0x08, 0x00, 3, 0, 0, 0xff})
	f.Add([]byte{0x55, 0, 0, 0x00, 0x80, 1, 1, 0, 0, 4, 0, 0, 0, 3, 0, 0xff, 0xff, 5, 0, 0, 0})
	f.Add([]byte{0xff, 0, 0, 0x00, 0x08, 0, 0, 0x00, 0x04, 3, 0, 0xff, 0xff, 2, 0x13, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := Config{
			TXDelayStrap: data[0]&1 != 0, RXDelayStrap: data[0]&2 != 0, CableUnplugged: data[0]&4 != 0,
			Partner: Partner{Modes: Modes(data[0] >> 3 & 0x3f), MaxSpeed: []int{0, 10, 100, 1000}[data[0]>>6]},
		}
		r := newRig(t, cfg)
		changes := 0
		r.m.Lock()
		r.p.OnChange(func() { changes++ })
		r.m.Unlock()
		defer func() {
			// OnChange fires only on a change: at most a few times per operation.
			if changes > 4*500+4 {
				t.Errorf("%d link/delay change callbacks", changes)
			}
		}()
		data = data[1:]
		for ops := 0; len(data) >= 4 && ops < 500; ops++ {
			kind, reg, v := data[0]%6, data[1]%32, binary.LittleEndian.Uint16(data[2:])
			data = data[4:]
			switch kind {
			case 0:
				r.wr(reg, v)
			case 1:
				r.rd(reg)
			case 2:
				r.m.Lock()
				r.p.SetCable(v&1 != 0)
				r.m.Unlock()
			case 3:
				r.m.Advance(emu.Time(v) * emu.Millisecond / 4)
			case 4:
				r.m.Lock()
				r.p.PinReset()
				r.m.Unlock()
			case 5:
				r.m.Lock()
				_ = r.p.Dump()
				_ = r.p.RegName(reg)
				r.m.Unlock()
			}
			r.m.Lock()
			l, page := r.p.Link(), r.p.Page()
			r.m.Unlock()
			if l.Up && l.Speed != 10 && l.Speed != 100 && l.Speed != 1000 || !l.Up && l.Speed != 0 {
				t.Fatalf("link %+v", l)
			}
			if page > 0xfff {
				t.Fatalf("page select %#x wider than 12 bits", page)
			}
		}
		r.m.Advance(10 * emu.Second)
	})
}
