package soc

import (
	"fmt"

	"mesonemu/emu"
)

// Glue is the PRG_ETH0 / PRG_ETH1 block: the Ethernet glue between the DWMAC and the
// RGMII pins. It is an emu.Device; TXClock and the delay functions read its bits.
type Glue struct{ regDevice }

var _ emu.Device = (*Glue)(nil)

// NewGlue makes the glue block of chip k at its boot-loader hand-over state.
// onChange (may be nil) runs after every guest write that changed a stored bit,
// with the machine lock held.
func NewGlue(k Kind, onChange func()) (*Glue, error) {
	b := GlueBlock(k)
	if b == nil {
		return nil, fmt.Errorf("PRG_ETH glue for %v: unknown SoC kind", k)
	}
	return &Glue{newRegDevice(k, "prg_eth0", b, onChange)}, nil
}

// PRGEth0 is the current PRG_ETH0 value.
func (g *Glue) PRGEth0() uint32 { return g.regs.Get(PRGEth0Off) }

// RGMIIMode reports PRG_ETH0 bit 0 (1 RGMII, 0 RMII).
func (g *Glue) RGMIIMode() bool { return fldRGMIIMode.Get(g.PRGEth0()) == 1 }

// TXDLY is the 2-bit TX delay tap count (bits 6:5).
func (g *Glue) TXDLY() uint32 { return fldTXDLY.Get(g.PRGEth0()) }

// RXAdjust reports adj_enable (bit 13) and adj_setup (bit 14).
func (g *Glue) RXAdjust() (enable, setup bool) {
	v := g.PRGEth0()
	return fldADJEnable.Get(v) == 1, fldADJSetup.Get(v) == 1
}
