package dwmacmeson8b

import (
	"fmt"

	"mesonemu/linux/clk"
)

// Glue is a probed dwmac-meson8b instance.
type Glue struct {
	fw        *clk.Framework
	regs      *clk.Regmap
	clocks    Clocks
	compat    Compatible
	variant   Variant
	phyMode   PhyMode
	txDelayNs uint32
	clkDone   bool // rgmii_tx_en prepared and enabled by the probe
}

// Probe runs meson8b_dwmac_probe (v5.5) up to stmmac_dvr_probe: validate the DT
// inputs, register the four clocks, set the PHY mode, then init_prg_eth. On any
// error the clocks are unregistered again and the error is returned; registers
// already written stay written, as on real hardware.
func Probe(cfg Config) (*Glue, error) {
	p, err := parse(cfg)
	if err != nil {
		return nil, err
	}
	regs, err := clk.NewRegmap(cfg.Bus, cfg.PrgEth0Addr, "prg_eth0")
	if err != nil {
		return nil, fmt.Errorf("dwmac-meson8b: %w", err)
	}
	g := &Glue{fw: cfg.Clocks, regs: regs, compat: p.compat, variant: cfg.Variant,
		phyMode: p.phyMode, txDelayNs: p.txDelayNs}
	if err := g.registerClocks(p); err != nil {
		return nil, err
	}
	if err := g.setPhyMode(); err != nil {
		g.release()
		return nil, err
	}
	if err := g.initPrgEth(); err != nil {
		g.release()
		return nil, err
	}
	return g, nil
}

// release is the devm teardown after a failed probe.
func (g *Glue) release() {
	if g.clkDone {
		_ = g.fw.DisableUnprepare(g.clocks.RGMIITxEn)
		g.clkDone = false
	}
	g.unregisterClocks()
}

// maskBits is meson8b_dwmac_mask_bits: readl, replace the masked bits, writel.
func (g *Glue) maskBits(mask, value uint32) error {
	if err := g.regs.WriteBits(prgEth0, mask, value); err != nil {
		return fmt.Errorf("dwmac-meson8b: PRG_ETH0: %w", err)
	}
	return nil
}

// setPhyMode is meson8b_set_phy_mode: bit 0 set for RGMII, clear for RMII.
func (g *Glue) setPhyMode() error {
	if g.phyMode.isRGMII() {
		return g.maskBits(prgEth0RGMIIMode, prgEth0RGMIIMode)
	}
	return g.maskBits(prgEth0RGMIIMode, 0)
}

// txDelayField is the TXDLY value v5.5 programs: tx_delay_ns >> 1 for rgmii and
// rgmii-rxid (the MAC adds the TX delay), 0 for rgmii-id and rgmii-txid (the PHY
// does) and for rmii.
func (g *Glue) txDelayField() uint32 {
	switch g.phyMode {
	case RGMII, RGMIIRXID:
		return TxDelaySteps(g.txDelayNs)
	}
	return 0
}

// initPrgEth is meson8b_init_prg_eth (v5.5).
func (g *Glue) initPrgEth() error {
	txdly := g.txDelayField() << prgEth0TxDlyShift // masked to two bits by maskBits
	if g.phyMode.isRGMII() {
		// only relevant for RMII mode -> disable in RGMII mode
		if err := g.maskBits(prgEth0InvertedRMIIClk, 0); err != nil {
			return err
		}
		if err := g.maskBits(prgEth0TxDlyMask, txdly); err != nil {
			return err
		}
		// The IP block derives 25 / 2.5 MHz from this for 100 / 10 Mbit/s.
		if err := g.fw.SetRate(g.clocks.RGMIITxEn, rgmiiTxHz); err != nil {
			return fmt.Errorf("dwmac-meson8b: failed to set RGMII TX clock: %w", err)
		}
		if err := g.fw.PrepareEnable(g.clocks.RGMIITxEn); err != nil {
			return fmt.Errorf("dwmac-meson8b: failed to enable the RGMII TX clock: %w", err)
		}
		g.clkDone = true
	} else {
		// invert internal clk_rmii_i to generate 25/2.5 tx_rx_clk
		if err := g.maskBits(prgEth0InvertedRMIIClk, prgEth0InvertedRMIIClk); err != nil {
			return err
		}
		// TX clock delay cannot be configured in RMII mode
		if err := g.maskBits(prgEth0TxDlyMask, 0); err != nil {
			return err
		}
	}
	// enable TX_CLK and PHY_REF_CLK generator
	return g.maskBits(prgEth0TxAndPhyRefClk, prgEth0TxAndPhyRefClk)
}
