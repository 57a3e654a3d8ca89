package soc

import "fmt"

// Names of the m250_sel inputs.
const (
	ParentMPLL2    = "mpll2"
	ParentFclkDiv2 = "fclk_div2"
)

// TXClock is the RGMII TX clock chain as the glue block produces it from its own
// bits and the HHI clocks: m250_sel -> m250_div -> fixed /2 -> gates.
// Rates are exact analog values in Hz.
type TXClock struct {
	// Parent is the m250_sel input in use: ParentMPLL2 or ParentFclkDiv2.
	Parent string
	// SelHz is the m250_sel output (the selected input; 0 when that input is gated).
	SelHz float64
	// SelHighPs is the high time of the m250_sel output in ps: one period of the
	// MPLL's input for MPLL2 (a pulse, UNCONFIRMED), half a period for fclk_div2
	// (a /2 divider has 50 % duty). Only mechanism B uses it.
	SelHighPs float64
	// Div is the effective m250_div divisor: the register value, 0 meaning bypass (1).
	Div int
	// DivOutHz is SelHz / Div.
	DivOutHz float64
	// RateHz is DivOutHz / 2: what the generator makes at 1000 Mbit/s when running.
	// The IP derives 25 / 2.5 MHz for 100 / 10 Mbit/s from it by itself.
	RateHz float64
	// TXHz is what reaches the TXC pin: RateHz when Enabled, else 0.
	TXHz float64
	// Enabled: rgmii_tx_clk_en (bit 10) and tx_and_phy_ref_clk (bit 12) are set and
	// the selected input is running.
	Enabled bool
	// RGMII is PRG_ETH0 bit 0 (0 means RMII: the RGMII TX clock is not used).
	RGMII bool
}

// String is a one-line description for logs and `mesonemu regs`.
func (c TXClock) String() string {
	state := "enabled"
	if !c.Enabled {
		state = "gated"
	}
	return fmt.Sprintf("%s %.4f MHz / %d / 2 = %.4f MHz (%s)", c.Parent, c.SelHz/1e6, c.Div, c.RateHz/1e6, state)
}

// ComputeTXClock derives the TX clock from the HHI and glue registers alone.
//
// m250_sel (bit 4) input. Meson8b / Meson8m2: 0 = MPLL2 (the boot loader leaves bit 4
// clear with MPLL2 at 500 MHz and m250_div 2, and that works); 1 = fclk_div2,
// ASSUMPTION: the S805 datasheet lists only MPLL2 as supported, the model takes the
// GX wiring. GXBB: 0 = fclk_div2, 1 = MPLL2 (the DT parent order clkin0, clkin1).
// m250_div value 0 bypasses the divider (divide by 1), UNCONFIRMED: Linux treats it
// as pass-through (CLK_DIVIDER_ALLOW_ZERO), silicon behaviour is undocumented.
func ComputeTXClock(h *HHI, g *Glue) TXClock {
	v := g.PRGEth0()
	useFclk := fldM250Sel.Get(v) == 1
	if g.Kind() == GXBB {
		useFclk = !useFclk
	}
	var c TXClock
	if useFclk {
		c.Parent = ParentFclkDiv2
		c.SelHz = h.FclkDiv2Hz()
		if c.SelHz > 0 {
			c.SelHighPs = 0.5e12 / c.SelHz
		}
	} else {
		c.Parent = ParentMPLL2
		c.SelHz = h.MPLL2Hz()
		if c.SelHz > 0 {
			c.SelHighPs = h.mpllPulsePs()
		}
	}
	c.Div = int(fldM250Div.Get(v))
	if c.Div == 0 {
		c.Div = 1
	}
	c.DivOutHz = c.SelHz / float64(c.Div)
	c.RateHz = c.DivOutHz / 2
	c.Enabled = fldRGMIITXClkEn.Get(v) == 1 && fldTXAndPHYRefClk.Get(v) == 1 && c.SelHz > 0
	if c.Enabled {
		c.TXHz = c.RateHz
	}
	c.RGMII = fldRGMIIMode.Get(v) == 1
	return c
}
