// Package boot is the guest's power-on: Linux's probe order over the device tree.
// Guest side: it reaches the hardware only through the kernel's bus, time and interrupt lines.
//
// It is the guest's side of power-on: it brings the emulated board up in
// Linux's probe order — the clock controller's driver, the dwmac-meson8b glue
// (pre-fix or fixed), the stmmac driver, and the PHY driver on the MAC's MDIO bus —
// using nothing but the kernel (its bus, time and interrupt lines) and the device
// tree, as Linux reaches silicon. It never imports a hardware model.
package boot

import (
	"errors"
	"fmt"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/linux/clk"
	"mesonemu/linux/clk/meson"
	"mesonemu/linux/kernel"
	"mesonemu/linux/phy/realtek"
	"mesonemu/linux/stmmac"
	"mesonemu/linux/stmmac/dwmacmeson8b"
)

// DeviceTree is the part of the board's device tree the Ethernet path reads.
type DeviceTree struct {
	// Compatible of the ethernet node: "amlogic,meson8b-dwmac",
	// "amlogic,meson8m2-dwmac" or "amlogic,meson-gxbb-dwmac".
	Compatible string
	DWMACBase  uint32 // first reg entry
	PhyMode    string // "phy-mode"
	// TxDelayNs is "amlogic,tx-delay-ns"; nil when absent.
	TxDelayNs *uint32
	// MACIRQ is the ethernet node's "macirq" interrupt.
	MACIRQ  kernel.IRQ
	PHYAddr int // the ethernet-phy node's reg
	// PHYIRQ is the PHY node's interrupt (Odroid-C1: GPIOH_3); 0 when the node
	// has none and phylib polls.
	PHYIRQ kernel.IRQ
	MAC    ether.MAC
	// DMAStart, DMASize: the RAM the kernel may hand out for rings and buffers.
	DMAStart, DMASize uint32
}

// Options are the guest's build choices.
type Options struct {
	// Variant of the dwmac-meson8b glue driver.
	Variant dwmacmeson8b.Variant
	// M250Div overrides the variant's divider definition (tests of the fix).
	M250Div *dwmacmeson8b.DividerDef
	// PHYDelays picks the Realtek driver's config_init behaviour (v5.5 default).
	PHYDelays realtek.DelayPolicy
	// Stmmac tunes the ring driver; zero fields keep Linux's defaults.
	Stmmac func(*stmmac.Config)
	// Log receives kernel-log lines.
	Log func(string)
}

// Guest is the booted kernel's Ethernet side.
type Guest struct {
	Clocks *clk.Framework
	Meson  *meson.Clocks
	Glue   *dwmacmeson8b.Glue
	MAC    *stmmac.Driver
	PHY    *realtek.PHY
}

func socOf(compatible string) (meson.SoC, error) {
	c, err := dwmacmeson8b.ParseCompatible(compatible)
	if err != nil {
		return 0, err
	}
	switch c {
	case dwmacmeson8b.Meson8b:
		return meson.Meson8b, nil
	case dwmacmeson8b.Meson8m2:
		return meson.Meson8m2, nil
	default:
		return meson.GXBB, nil
	}
}

// Boot probes the drivers in Linux's order. It leaves the PHY state machine
// running; WaitLink waits for the link.
func Boot(k kernel.Kernel, dt DeviceTree, opts Options) (*Guest, error) {
	if k == nil || k.Bus() == nil || k.IRQName(dt.MACIRQ) == "" {
		return nil, errors.New("boot: no kernel, bus or MAC interrupt")
	}
	bus := k.Bus()
	chip, err := socOf(dt.Compatible)
	if err != nil {
		return nil, fmt.Errorf("boot: %w", err)
	}
	g := &Guest{Clocks: clk.New()}
	// 1. The clock controller (drivers/clk/meson/meson8b.c, CLK_OF_DECLARE: early).
	if g.Meson, err = meson.Register(g.Clocks, bus, chip); err != nil {
		return nil, fmt.Errorf("boot: clock controller: %w", err)
	}
	// 2. dwmac-meson8b: clocks "clkin0"/"clkin1" from the DT.
	clkin0 := g.Meson.MPLL2
	if chip == meson.GXBB {
		clkin0 = g.Meson.FClkDiv2
	}
	compat, _ := dwmacmeson8b.ParseCompatible(dt.Compatible)
	prg, err := compat.PrgEth0Addr()
	if err != nil {
		return nil, fmt.Errorf("boot: %w", err)
	}
	g.Glue, err = dwmacmeson8b.Probe(dwmacmeson8b.Config{
		Bus: bus, Clocks: g.Clocks, PrgEth0Addr: prg, Compatible: dt.Compatible,
		DevName: fmt.Sprintf("%x.ethernet", dt.DWMACBase),
		DT:      dwmacmeson8b.DT{PhyMode: dt.PhyMode, TxDelayNs: dt.TxDelayNs},
		ClkIn0:  clkin0, ClkIn1: g.Meson.MPLL2,
		Variant: opts.Variant, M250Div: opts.M250Div,
	})
	if err != nil {
		return nil, fmt.Errorf("boot: %w", err)
	}
	// 3. stmmac_dvr_probe, then ndo_open.
	cfg := stmmac.DefaultConfig(dt.DMAStart, dt.DMASize, dt.MAC)
	cfg.Base = dt.DWMACBase
	if opts.Stmmac != nil {
		opts.Stmmac(&cfg)
	}
	if g.MAC, err = stmmac.New(cfg, k, dt.MACIRQ); err != nil {
		return nil, fmt.Errorf("boot: stmmac: %w", err)
	}
	if err := g.MAC.Probe(); err != nil {
		return nil, fmt.Errorf("boot: stmmac probe: %w", err)
	}
	// 4. The PHY on the MAC's MDIO bus (stmmac_mdio_register, phylink connect).
	g.PHY, err = realtek.Probe(g.MAC, k, realtek.Config{
		Addr: dt.PHYAddr, Interface: dt.PhyMode, Delays: opts.PHYDelays, IRQ: dt.PHYIRQ, Log: opts.Log,
	})
	if err != nil {
		return nil, fmt.Errorf("boot: PHY: %w", err)
	}
	g.PHY.OnLink(func(up bool, speed int, fullDuplex bool) {
		if up {
			_ = g.MAC.LinkUp(speed, fullDuplex)
		} else {
			_ = g.MAC.LinkDown()
		}
	})
	if err := g.MAC.Open(); err != nil {
		return nil, fmt.Errorf("boot: stmmac open: %w", err)
	}
	if err := g.PHY.Attach(); err != nil {
		return nil, fmt.Errorf("boot: PHY attach: %w", err)
	}
	if err := g.PHY.Start(); err != nil {
		return nil, fmt.Errorf("boot: PHY start: %w", err)
	}
	return g, nil
}

// WaitLink waits (in guest time) for the PHY to report link.
func (g *Guest) WaitLink(timeout emu.Time) error {
	if err := g.PHY.WaitLink(timeout); err != nil {
		return fmt.Errorf("boot: %w", err)
	}
	return nil
}
