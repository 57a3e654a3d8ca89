package stmmac

import (
	"encoding/binary"
	"testing"

	"mesonemu/emu"
)

// FuzzGuestProgramming drives the model with arbitrary register writes, RAM writes
// (descriptors), received frames and passing time. Whatever the sequence, the model
// must not panic and every call must return (time is bounded per operation).
func FuzzGuestProgramming(f *testing.F) {
	seed := func(ops ...[9]byte) []byte {
		var b []byte
		for _, op := range ops {
			b = append(b, op[:]...)
		}
		return b
	}
	op := func(kind byte, a, v uint32) (o [9]byte) {
		o[0] = kind
		binary.LittleEndian.PutUint32(o[1:], a)
		binary.LittleEndian.PutUint32(o[5:], v)
		return o
	}
	f.Add(seed(op(0, offTxBase, 0), op(0, offMACConfig, linuxCfg1000), op(1, 0, descOWN), op(1, 4, tdes1FS|tdes1TCH),
		op(0, offOpMode, opST.Mask()|opSR.Mask()), op(3, 0, 50000)))
	f.Add(seed(op(0, offBusMode, 1), op(0, offOpMode, opFTF.Mask()|opST.Mask()), op(2, 0, 1500), op(0, offMIIAddr, 0x11), op(3, 0, 1<<20)))
	f.Add(seed(op(0, offRxBase, 0x100), op(1, 0x100, descOWN), op(1, 0x104, 0x7ff|rdes1RER), op(1, 0x108, 0xffff0000),
		op(0, offMACConfig, cfgRE.Mask()), op(0, offOpMode, opSR.Mask()|opFEF.Mask()), op(2, 0, 9000)))
	f.Fuzz(func(t *testing.T, prog []byte) {
		m := emu.NewMachine(3)
		if _, err := m.Bus().AddRAM(0, 64<<10); err != nil {
			t.Fatal(err)
		}
		c := New(m, m.NewIRQ("macirq"), nil, Config{})
		if err := m.Bus().Map(macBase, Size, c); err != nil {
			t.Fatal(err)
		}
		frame := make([]byte, 20000)
		for i := range frame {
			frame[i] = byte(i)
		}
		for len(prog) >= 9 {
			kind, a, v := prog[0]%4, binary.LittleEndian.Uint32(prog[1:]), binary.LittleEndian.Uint32(prog[5:])
			prog = prog[9:]
			switch kind {
			case 0:
				_ = m.Bus().Write32(macBase+(a&0xfffc), v)
				_, _ = m.Bus().Read32(macBase + (v & 0x1ffc))
			case 1:
				_ = m.Bus().Write32(a&0xfffc, v)
			case 2:
				m.Lock()
				c.Receive(frame[:a%uint32(len(frame))])
				m.Unlock()
			case 3:
				m.Advance(emu.Time(v % (10 * uint32(emu.Millisecond))))
			}
		}
		m.Advance(emu.Millisecond)
	})
}
