package realtek

import "fmt"

// MDIO is how the PHY driver reaches the PHY: the MAC driver's MDIO master
// (stmmac's mdio read/write), one Clause-22 transaction per call. It is called
// without the machine lock, from guest context.
type MDIO interface {
	ReadPHY(addr, reg int) (uint16, error)
	WritePHY(addr, reg int, val uint16) error
}

// Register access with Linux's semantics. Callers hold p.mu (the MDIO bus lock
// of Linux's paged accessors), except where noted.

func (p *PHY) read(reg int) (uint16, error) {
	v, err := p.bus.ReadPHY(p.cfg.Addr, reg)
	if err != nil {
		return 0, fmt.Errorf("mdio read phy %d reg %#x: %w", p.cfg.Addr, reg, err)
	}
	return v, nil
}

func (p *PHY) write(reg int, v uint16) error {
	if err := p.bus.WritePHY(p.cfg.Addr, reg, v); err != nil {
		return fmt.Errorf("mdio write phy %d reg %#x = %#04x: %w", p.cfg.Addr, reg, v, err)
	}
	return nil
}

// modifyChanged is __phy_modify_changed: read, replace the mask bits with set,
// and write only when the value changes; it reports whether it wrote.
func (p *PHY) modifyChanged(reg int, mask, set uint16) (bool, error) {
	old, err := p.read(reg)
	if err != nil {
		return false, err
	}
	v := old&^mask | set
	if v == old {
		return false, nil
	}
	return true, p.write(reg, v)
}

// modify is phy_modify.
func (p *PHY) modify(reg int, mask, set uint16) error {
	_, err := p.modifyChanged(reg, mask, set)
	return err
}

// selectPage is phy_select_page: save the current page (rtl821x_read_page reads
// register 0x1f) and switch only if it differs.
func (p *PHY) selectPage(page uint16) (oldPage uint16, err error) {
	oldPage, err = p.read(rtl821xPageSelect)
	if err != nil {
		return 0, fmt.Errorf("save page: %w", err)
	}
	if oldPage != page {
		if err := p.write(rtl821xPageSelect, page); err != nil {
			return 0, fmt.Errorf("select page %#x: %w", page, err)
		}
	}
	return oldPage, nil
}

// restorePage is phy_restore_page: always write the saved page back, and keep
// the operation's error in preference to the restore's.
func (p *PHY) restorePage(oldPage uint16, opErr error) error {
	err := p.write(rtl821xPageSelect, oldPage)
	if opErr != nil {
		return opErr
	}
	if err != nil {
		return fmt.Errorf("restore page %#x: %w", oldPage, err)
	}
	return nil
}

// modifyPagedChanged is phy_modify_paged_changed: save page, select page,
// read-modify-write (write skipped when unchanged), restore page.
func (p *PHY) modifyPagedChanged(page uint16, reg int, mask, set uint16) (bool, error) {
	old, err := p.selectPage(page)
	if err != nil {
		return false, err
	}
	changed, err := p.modifyChanged(reg, mask, set)
	return changed, p.restorePage(old, err)
}

// modifyPaged is phy_modify_paged.
func (p *PHY) modifyPaged(page uint16, reg int, mask, set uint16) error {
	_, err := p.modifyPagedChanged(page, reg, mask, set)
	return err
}

// readPaged is phy_read_paged.
func (p *PHY) readPaged(page uint16, reg int) (uint16, error) {
	old, err := p.selectPage(page)
	if err != nil {
		return 0, err
	}
	v, err := p.read(reg)
	return v, p.restorePage(old, err)
}

// writePaged is phy_write_paged.
func (p *PHY) writePaged(page uint16, reg int, v uint16) error {
	old, err := p.selectPage(page)
	if err != nil {
		return err
	}
	return p.restorePage(old, p.write(reg, v))
}
