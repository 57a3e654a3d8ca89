package realtek

import "fmt"

// The RTL8211F entry of drivers/net/phy/realtek.c: config_init, config_intr and
// ack_interrupt, with read_page/write_page on register 0x1f.

// ConfigInit is rtl8211f_config_init: program the RGMII delays through page
// 0xd08 as the configured kernel version does (docs/reference/rtl8211f.md §5).
func (p *PHY) ConfigInit() error {
	p.lock()
	defer p.unlock()
	return p.configInit()
}

func (p *PHY) configInit() error {
	tx, rx, touchRX, ok := delayBits(p.cfg.Interface, p.cfg.Delays)
	if p.cfg.Delays == DelaysV55 {
		// v5.5: one phy_modify_paged on the TX bit for every mode.
		if err := p.modifyPaged(rtl8211fDelayPage, rtl8211fTXDelayReg, rtl8211fTXDelay, tx); err != nil {
			return fmt.Errorf("rtl8211f config_init: TX delay: %w", err)
		}
		return nil
	}
	if !ok {
		return nil // v5.6: "the rest of the modes imply leaving delay as is"
	}
	changed, err := p.modifyPagedChanged(rtl8211fDelayPage, rtl8211fTXDelayReg, rtl8211fTXDelay, tx)
	if err != nil {
		return fmt.Errorf("rtl8211f config_init: TX delay: %w", err)
	}
	if changed {
		p.logf("%s 2ns TX delay (and changing the value from pin-strapping RXD1 or the bootloader)", onOff(tx != 0))
	}
	if touchRX {
		changed, err = p.modifyPagedChanged(rtl8211fDelayPage, rtl8211fRXDelayReg, rtl8211fRXDelay, rx)
		if err != nil {
			return fmt.Errorf("rtl8211f config_init: RX delay: %w", err)
		}
		if changed {
			p.logf("%s 2ns RX delay (and changing the value from pin-strapping RXD0 or the bootloader)", onOff(rx != 0))
		}
	}
	return nil
}

// delayBits maps a phy-mode to the delay bits a kernel version writes
// (docs/reference/rtl8211f.md §5). ok is false for non-RGMII modes; touchRX is false in v5.5,
// which never writes the RX bit.
func delayBits(mode string, policy DelayPolicy) (tx, rx uint16, touchRX, ok bool) {
	switch mode {
	case "rgmii":
		return 0, 0, policy == DelaysV56, true
	case "rgmii-id":
		return rtl8211fTXDelay, rtl8211fRXDelay, policy == DelaysV56, true
	case "rgmii-txid":
		return rtl8211fTXDelay, 0, policy == DelaysV56, true
	case "rgmii-rxid":
		return 0, rtl8211fRXDelay, policy == DelaysV56, true
	}
	return 0, 0, false, false
}

func onOff(on bool) string {
	if on {
		return "Enabling"
	}
	return "Disabling"
}

// ConfigIntr is rtl8211f_config_intr: INER (page 0xa42 reg 0x12) = link-status
// change when interrupts are enabled, 0 otherwise.
func (p *PHY) ConfigIntr(enable bool) error {
	p.lock()
	defer p.unlock()
	return p.configIntr(enable)
}

func (p *PHY) configIntr(enable bool) error {
	var v uint16
	if enable {
		v = rtl8211fINERLinkStat
	}
	if err := p.writePaged(rtl8211fINERPage, rtl821xINER, v); err != nil {
		return fmt.Errorf("rtl8211f config_intr: %w", err)
	}
	return nil
}

// AckInterrupt is rtl8211f_ack_interrupt: read INSR (page 0xa43 reg 0x1d),
// which clears it and releases the interrupt line.
func (p *PHY) AckInterrupt() error {
	p.lock()
	defer p.unlock()
	return p.ackInterrupt()
}

func (p *PHY) ackInterrupt() error {
	if _, err := p.readPaged(rtl8211fINSRPage, rtl8211fINSR); err != nil {
		return fmt.Errorf("rtl8211f ack_interrupt: %w", err)
	}
	return nil
}
