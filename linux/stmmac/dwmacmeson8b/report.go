package dwmacmeson8b

import "fmt"

// Clocks returns the four glue clocks.
func (g *Glue) Clocks() Clocks { return g.clocks }

// Variant is the driver variant that probed.
func (g *Glue) Variant() Variant { return g.variant }

// PhyMode is the PHY interface mode the glue was set up for.
func (g *Glue) PhyMode() PhyMode { return g.phyMode }

// TxDelayNs is the amlogic,tx-delay-ns value used (the default 2 when absent).
func (g *Glue) TxDelayNs() uint32 { return g.txDelayNs }

// PrgEth0 reads PRG_ETH0 back through the bus.
func (g *Glue) PrgEth0() (uint32, error) {
	v, err := g.regs.Read(prgEth0)
	if err != nil {
		return 0, fmt.Errorf("dwmac-meson8b: read PRG_ETH0: %w", err)
	}
	return v, nil
}

// M250DivField is PRG_ETH0[9:7] as read back through the bus: the m250_div
// register value, which is the divisor in both variants (ONE_BASED, and a table
// with val == div); 0 is the pass-through value ALLOW_ZERO accepts.
func (g *Glue) M250DivField() (uint32, error) {
	v, err := g.PrgEth0()
	if err != nil {
		return 0, err
	}
	return v >> prgEth0ClkM250DivShift & (1<<prgEth0ClkM250DivWidth - 1), nil
}

// Result is the outcome of the probe for reports and JSON.
type Result struct {
	Variant       string `json:"variant"`
	PhyMode       string `json:"phy_mode"`
	TxDelayNs     uint32 `json:"tx_delay_ns"`
	PrgEth0       uint32 `json:"prg_eth0"`
	M250Div       uint32 `json:"m250_div"` // PRG_ETH0[9:7]
	M250SelParent string `json:"m250_sel_parent"`
	M250SelHz     uint32 `json:"m250_sel_hz"`
	M250DivHz     uint32 `json:"m250_div_hz"`
	TxClockHz     uint32 `json:"tx_clock_hz"` // rgmii_tx_en
	Chain         string `json:"chain"`
}

// Result reads the programmed state back: PRG_ETH0 through the bus, the rates from
// the clock framework.
func (g *Glue) Result() (Result, error) {
	prg, err := g.PrgEth0()
	if err != nil {
		return Result{}, err
	}
	fw := g.fw
	r := Result{
		Variant:   g.variant.String(),
		PhyMode:   g.phyMode.String(),
		TxDelayNs: g.txDelayNs,
		PrgEth0:   prg,
		M250Div:   prg >> prgEth0ClkM250DivShift & (1<<prgEth0ClkM250DivWidth - 1),
		M250SelHz: fw.GetRate(g.clocks.M250Sel),
		M250DivHz: fw.GetRate(g.clocks.M250Div),
		TxClockHz: fw.GetRate(g.clocks.RGMIITxEn),
	}
	if p := fw.GetParent(g.clocks.M250Sel); p != nil {
		r.M250SelParent = p.Name()
	}
	r.Chain = chainString(r)
	return r, nil
}

// Chain is the one-line summary of the TX clock path, e.g.
// "mpll2 249999701 Hz -> m250_div /1 -> fixed_div2 -> 124999850 Hz".
func (g *Glue) Chain() (string, error) {
	r, err := g.Result()
	if err != nil {
		return "", err
	}
	return r.Chain, nil
}

func chainString(r Result) string {
	src := r.M250SelParent
	if src == "" {
		src = "(orphan)"
	}
	return fmt.Sprintf("%s %d Hz -> m250_div /%d -> fixed_div2 -> %d Hz", src, r.M250SelHz, r.M250Div, r.TxClockHz)
}
