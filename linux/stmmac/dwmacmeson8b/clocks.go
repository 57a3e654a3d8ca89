package dwmacmeson8b

import (
	"fmt"

	"mesonemu/linux/clk"
)

// Clocks are the four clocks the glue registers.
type Clocks struct {
	M250Sel   *clk.Clock // "<dev>#m250_sel": mux over clkin0 / clkin1, PRG_ETH0 bit 4
	M250Div   *clk.Clock // "<dev>#m250_div": divider, PRG_ETH0 bits 9:7
	FixedDiv2 *clk.Clock // "<dev>#fixed_div2": /2
	RGMIITxEn *clk.Clock // "<dev>#rgmii_tx_en": gate, PRG_ETH0 bit 10 (the RGMII TX clock)
}

// clkName is the driver's snprintf(clk_name, 32, "%s#%s", dev_name, suffix).
func clkName(dev, suffix string) string {
	n := dev + "#" + suffix
	if len(n) > maxClkName {
		n = n[:maxClkName]
	}
	return n
}

// registerClocks is meson8b_init_rgmii_tx_clk (v5.5): the mux parents are the
// names of the clkin0 / clkin1 clocks, every clock has CLK_SET_RATE_PARENT. On a
// failure the clocks registered so far are unregistered again (devm).
func (g *Glue) registerClocks(p *parsed) error {
	fw := g.fw
	reg := clk.Reg{Map: g.regs, Off: prgEth0}
	dev := p.cfg.DevName
	defs := []struct {
		suffix  string
		parents []string
		ops     clk.Ops
		out     **clk.Clock
	}{
		{"m250_sel", []string{p.cfg.ClkIn0.Name(), p.cfg.ClkIn1.Name()},
			&clk.Mux{Reg: reg, Shift: prgEth0ClkM250SelShift, Mask: p.selMask}, &g.clocks.M250Sel},
		{"m250_div", []string{clkName(dev, "m250_sel")},
			&clk.Divider{Reg: reg, Shift: prgEth0ClkM250DivShift, Width: prgEth0ClkM250DivWidth,
				Flags: p.div.Flags, Table: p.div.Table}, &g.clocks.M250Div},
		{"fixed_div2", []string{clkName(dev, "m250_div")},
			&clk.FixedFactor{Mult: 1, Div: 2}, &g.clocks.FixedDiv2},
		{"rgmii_tx_en", []string{clkName(dev, "fixed_div2")},
			&clk.Gate{Reg: reg, Bit: prgEth0RGMIITxClkEn}, &g.clocks.RGMIITxEn},
	}
	for _, d := range defs {
		c, err := fw.Register(clk.Init{Name: clkName(dev, d.suffix), ParentNames: d.parents, Flags: clk.SetRateParent}, d.ops)
		if err != nil {
			g.unregisterClocks()
			return fmt.Errorf("dwmac-meson8b: register %s: %w", d.suffix, err)
		}
		*d.out = c
	}
	return nil
}

// unregisterClocks drops the glue's clocks, children first (devm release order).
func (g *Glue) unregisterClocks() {
	for _, c := range []**clk.Clock{&g.clocks.RGMIITxEn, &g.clocks.FixedDiv2, &g.clocks.M250Div, &g.clocks.M250Sel} {
		if *c != nil {
			_ = g.fw.Unregister(*c)
			*c = nil
		}
	}
}
