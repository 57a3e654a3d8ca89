package stmmac

import (
	"fmt"

	"mesonemu/emu"
)

// MDIO timing of stmmac_mdio_read/write in v5.x: readl_poll_timeout(..., 100, 10000).
const (
	mdioPollInterval = 100 * emu.Microsecond
	mdioTimeout      = 10 * emu.Millisecond
)

// ReadPHY reads Clause-22 register reg of the PHY at addr through the GMII address
// and data registers (stmmac_mdio_read): wait for GB clear, start the read with GB
// set, wait for GB clear, read the data register.
func (d *Driver) ReadPHY(addr, reg int) (uint16, error) {
	v, err := d.miiValue(addr, reg)
	if err != nil {
		return 0, err
	}
	d.mdioMu.Lock()
	defer d.mdioMu.Unlock()
	if err := d.mdioWaitIdle(); err != nil {
		return 0, fmt.Errorf("stmmac mdio read phy %d reg %d: %w", addr, reg, err)
	}
	if err := d.wr(gmacMIIAddr, v); err != nil {
		return 0, fmt.Errorf("stmmac mdio read phy %d reg %d: %w", addr, reg, err)
	}
	if err := d.mdioWaitIdle(); err != nil {
		return 0, fmt.Errorf("stmmac mdio read phy %d reg %d: %w", addr, reg, err)
	}
	data, err := d.rd(gmacMIIData)
	if err != nil {
		return 0, fmt.Errorf("stmmac mdio read phy %d reg %d: %w", addr, reg, err)
	}
	return uint16(data), nil
}

// WritePHY writes val to Clause-22 register reg of the PHY at addr
// (stmmac_mdio_write): wait for GB clear, write the data register, start the write
// with GW|GB, wait for GB clear.
func (d *Driver) WritePHY(addr, reg int, val uint16) error {
	v, err := d.miiValue(addr, reg)
	if err != nil {
		return err
	}
	d.mdioMu.Lock()
	defer d.mdioMu.Unlock()
	if err := d.mdioWaitIdle(); err != nil {
		return fmt.Errorf("stmmac mdio write phy %d reg %d: %w", addr, reg, err)
	}
	if err := d.wr(gmacMIIData, uint32(val)); err != nil {
		return fmt.Errorf("stmmac mdio write phy %d reg %d: %w", addr, reg, err)
	}
	if err := d.wr(gmacMIIAddr, v|miiWrite); err != nil {
		return fmt.Errorf("stmmac mdio write phy %d reg %d: %w", addr, reg, err)
	}
	if err := d.mdioWaitIdle(); err != nil {
		return fmt.Errorf("stmmac mdio write phy %d reg %d: %w", addr, reg, err)
	}
	return nil
}

// miiValue is the GMII address word with GB set, for a read.
func (d *Driver) miiValue(addr, reg int) (uint32, error) {
	if addr < 0 || addr > 31 || reg < 0 || reg > 31 {
		return 0, fmt.Errorf("stmmac mdio: phy %d reg %d out of range 0..31", addr, reg)
	}
	v := uint32(miiBusy)
	v |= uint32(addr<<miiAddrShift) & miiAddrMask
	v |= uint32(reg<<miiRegShift) & miiRegMask
	v |= uint32(d.cfg.CSRClockRange<<miiClkCSRShift) & miiClkCSRMask
	return v, nil
}

// mdioWaitIdle polls GB every 100 us for up to 10 ms (-EBUSY in Linux).
func (d *Driver) mdioWaitIdle() error {
	ok, err := d.pollClear(gmacMIIAddr, miiBusy, mdioPollInterval, mdioTimeout)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("MII busy (GB) still set after %v", (mdioTimeout + mdioPollInterval).Duration())
	}
	return nil
}
