package stmmac

import "fmt"

// LinkUp is what phylink does in v5.4 when the PHY reports link: mac_config
// (stmmac_mac_config: speed bits PS/FES, duplex DM, then plat->fix_mac_speed) and
// mac_link_up (stmmac_mac_set: TE|RE). Pause (flow control) is not negotiated.
func (d *Driver) LinkUp(speedMbps int, fullDuplex bool) error {
	var speed uint32
	switch speedMbps {
	case 1000:
		speed = linkSpeed1000
	case 100:
		speed = linkSpeed100
	case 10:
		speed = linkSpeed10
	default:
		// stmmac_mac_config returns without touching the MAC for other speeds.
		return fmt.Errorf("stmmac link up: unsupported speed %d Mbit/s", speedMbps)
	}
	ctrl, err := d.rd(gmacControl)
	if err != nil {
		return fmt.Errorf("stmmac link up: %w", err)
	}
	ctrl = ctrl&^linkSpeedMask | speed
	if d.cfg.FixMACSpeed != nil {
		if err := d.cfg.FixMACSpeed(speedMbps); err != nil {
			return fmt.Errorf("stmmac link up: fix_mac_speed(%d): %w", speedMbps, err)
		}
	}
	if fullDuplex {
		ctrl |= linkDuplex
	} else {
		ctrl &^= linkDuplex
	}
	if err := d.wr(gmacControl, ctrl); err != nil {
		return fmt.Errorf("stmmac link up: %w", err)
	}
	if err := d.macSet(true); err != nil {
		return fmt.Errorf("stmmac link up: %w", err)
	}
	d.setCarrier(true)
	return nil
}

// LinkDown is phylink's mac_link_down: stmmac_mac_set(false) clears TE|RE.
func (d *Driver) LinkDown() error {
	d.setCarrier(false)
	if err := d.macSet(false); err != nil {
		return fmt.Errorf("stmmac link down: %w", err)
	}
	return nil
}

// SetLink is LinkUp or LinkDown, shaped for a PHY driver's link-change callback.
func (d *Driver) SetLink(up bool, speedMbps int, fullDuplex bool) error {
	if up {
		return d.LinkUp(speedMbps, fullDuplex)
	}
	return d.LinkDown()
}

// Carrier reports netif_carrier_ok: open and link up.
func (d *Driver) Carrier() bool {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	return d.open && d.carrier
}

// setCarrier is netif_carrier_on/off. A queue that was woken while the carrier was
// off stays as it is; Xmit checks the carrier first.
func (d *Driver) setCarrier(on bool) {
	d.txMu.Lock()
	d.carrier = on
	d.txMu.Unlock()
}
