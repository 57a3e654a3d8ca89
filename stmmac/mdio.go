package stmmac

import "mesonemu/emu"

// mdioFrameBits is one Clause-22 management frame as the SMA sends it: 32 bits of
// preamble, then start, opcode, PHY and register address, turnaround and 16 data bits.
const mdioFrameBits = 64

// mdcDividers maps GMII_ADDR CR (5:2) to the CSR clock divider that makes MDC.
// Codes 6 and 7 are reserved; Assumption: they divide by 42 like code 0.
var mdcDividers = [16]uint64{42, 62, 16, 26, 102, 124, 42, 42, 4, 6, 8, 10, 12, 14, 16, 18}

// mdioMaster is the SMA: one management frame in flight at a time.
type mdioMaster struct {
	ev    *emu.Event
	phy   uint8
	reg   uint8
	write bool
	data  uint16
}

// mdioFrameTime is how long one frame takes at MDC = CSR clock / divider.
func (c *MAC) mdioFrameTime(cr uint32) emu.Time {
	div := mdcDividers[cr&0xf]
	return emu.Time(mdioFrameBits * div * uint64(emu.Second) / c.cfg.CSRClockHz)
}

// mdioStart follows a stored GMAC_MII_ADDR write: GB = 1 starts a frame.
func (c *MAC) mdioStart(cur uint32) {
	if cur&miiGB.Mask() == 0 {
		return
	}
	c.mdio.phy = uint8(miiPA.Get(cur))
	c.mdio.reg = uint8(miiGR.Get(cur))
	c.mdio.write = cur&miiGW.Mask() != 0
	c.mdio.data = uint16(c.macRegs.Get(offMIIData))
	c.mdio.ev = c.m.After(c.mdioFrameTime(miiCR.Get(cur)), c.mdioDoneFn)
}

// mdioDone performs the access on the bus when the frame's last bit has been clocked,
// then clears GB.
func (c *MAC) mdioDone() {
	c.mdio.ev = nil
	if c.mdio.write {
		c.mii.Write(c.mdio.phy, c.mdio.reg, c.mdio.data)
		c.counters.MDIOWrites++
	} else {
		c.macRegs.Set(offMIIData, uint32(c.mii.Read(c.mdio.phy, c.mdio.reg)))
		c.counters.MDIOReads++
	}
	c.macRegs.Set(offMIIAddr, c.macRegs.Get(offMIIAddr)&^miiGB.Mask())
}
