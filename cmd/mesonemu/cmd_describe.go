package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"mesonemu/linux/clk"
	"mesonemu/sim"
)

func init() {
	register(func(e *env) *cobra.Command {
		return newDescribeCmd(e, "clk", "clock summary in the layout of Linux's clk_summary, then the MAC TX delay")
	})
	register(func(e *env) *cobra.Command {
		return newDescribeCmd(e, "regs", "PRG_ETH0 and HHI_MPLL_CNTL9 with every field decoded")
	})
}

// describeOpts are the options of clk and regs.
type describeOpts struct {
	setting
	stmmacTuning
	out  outputFlags
	json bool
}

func newDescribeCmd(e *env, name, short string) *cobra.Command {
	f := &describeOpts{stmmacTuning: defaultTuning}
	c := &cobra.Command{Use: name, Short: short, Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return f.run(name, e) }}
	f.setting.add(c.Flags(), true)
	if name == "clk" { // regs shows two registers the driver's tuning does not touch
		f.stmmacTuning.add(c.Flags())
	}
	f.out.addTrace(c.Flags())
	addJSON(c.Flags(), &f.json)
	return c
}

// run prints `clk` (the clock summary) or `regs` (decoded registers).
func (f *describeOpts) run(cmd string, e *env) error {
	stdout := e.stdout
	so, err := f.simOptions(f.stmmacTuning, defaultSeed)
	if err != nil {
		return err
	}
	if err := f.out.check(); err != nil {
		return err
	}
	s, d, err := bootDescribed(so, f.out.trace == "regs", e.stderr)
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(stdout, d)
	}
	if cmd == "regs" {
		fmt.Fprintf(stdout, "%s (%s), driver %s, phy-mode %s, tx-delay %d ns\n\n", d.Board, d.SoC, d.Driver, d.PhyMode, d.TxDelayNs)
		fmt.Fprintln(stdout, d.RegisterText("PRG_ETH0"))
		fmt.Fprintln(stdout, d.RegisterText("HHI_MPLL_CNTL9"))
		return nil
	}
	sum, err := s.Guest.Clocks.Summary(clk.SummaryV54)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, sum)
	fmt.Fprintf(stdout, "\n%s (%s), driver %s, phy-mode %s, tx-delay %d ns\n", d.Board, d.SoC, d.Driver, d.PhyMode, d.TxDelayNs)
	st := d.Stmmac
	fmt.Fprintf(stdout, "stmmac: Linux %s tuning, RIWT 0x%02x (%.0f us), RX watchdog read as %s; board CPU %.2f us per packet\n",
		st.Tree, st.RIWT, st.RIWTMicros, st.RXWatchdog, st.CPUPerPacketNs/1000)
	fmt.Fprintf(stdout, "clock chain: %s\n", d.ClockChain)
	fmt.Fprintf(stdout, "effective MAC TX delay: %.0f ps\n  because %s%s\n", d.EffectiveTX, d.EffectiveWhy, phaseNote(d))
	fmt.Fprintf(stdout, "PHY TX delay: %s; predicted loss of 1514-byte frames: TX %.3g, RX %.3g\n", onOff(d.PHYTXDelay), d.PredictedTX, d.PredictedRX)
	return nil
}

func onOff(b bool) string {
	if b {
		return "on (2 ns)"
	}
	return "off"
}

// phaseNote explains delays of a whole or half TX clock period.
func phaseNote(d sim.Description) string {
	if d.TXClockHz <= 0 {
		return ""
	}
	period := 1e12 / d.TXClockHz
	switch r := d.EffectiveTX / period; {
	case d.EffectiveTX == 0:
		return ""
	case abs(r-1) < 0.001:
		return "\n  = one full TX clock cycle: the same phase as no delay at all"
	case abs(r-0.5) < 0.001:
		return "\n  = half a TX clock cycle: the PHY samples the other nibble"
	}
	return ""
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
