package stmmac

import "mesonemu/reg"

// updateIRQ recomputes the derived CSR5 bits (NIS, AIS, GLI) and drives the interrupt
// line: (NIS & NIE) | (AIS & AIE) | GLI. Call it after every state change.
func (c *MAC) updateIRQ() {
	st := c.dmaRegs.Get(offStatus) &^ reg.Masks(stNIS, stAIS, stGLI)
	en := c.dmaRegs.Get(offIntEnable)
	if st&en&stNormal != 0 {
		st |= stNIS.Mask()
	}
	if st&en&stAbnormal != 0 {
		st |= stAIS.Mask()
	}
	if c.macRegs.Get(offIntStatus)&^c.macRegs.Get(offIntMask)&intSources != 0 {
		st |= stGLI.Mask()
	}
	c.dmaRegs.Set(offStatus, st)
	level := st&en&reg.Masks(stNIS, stAIS) != 0 || st&stGLI.Mask() != 0
	if level && !c.irqLevel {
		c.counters.IRQAssertions++
	}
	c.irqLevel = level
	if c.irq != nil {
		c.irq.Set(level)
	}
}

// raise sets CSR5 source bits and updates the line.
func (c *MAC) raise(bits uint32) {
	c.dmaRegs.Set(offStatus, c.dmaRegs.Get(offStatus)|bits)
	c.updateIRQ()
}

// setTS and setRS write the CSR5 process-state fields.
func (c *MAC) setTS(code uint32) {
	c.dmaRegs.Set(offStatus, stTS.Set(c.dmaRegs.Get(offStatus), code))
}

func (c *MAC) setRS(code uint32) {
	c.dmaRegs.Set(offStatus, stRS.Set(c.dmaRegs.Get(offStatus), code))
}

// busError answers a DMA access outside RAM as silicon does: FBI with the error bits
// naming the access, and the offending channel stops (TPS or RPS) until the guest
// restarts it; the other channel keeps working.
func (c *MAC) busError(tx, read, descriptor bool) {
	var eb uint32
	if tx {
		eb |= ebTxDMA
	}
	if read {
		eb |= ebRead
	}
	if descriptor {
		eb |= ebDescriptor
	}
	st := stEB.Set(c.dmaRegs.Get(offStatus), eb) | stFBI.Mask()
	c.dmaRegs.Set(offStatus, st)
	if tx {
		c.counters.TxBusErrors++
		c.txHalt()
		c.raise(stTPS.Mask())
	} else {
		c.counters.RxBusErrors++
		c.rxHalt()
		c.raise(stRPS.Mask())
	}
}
