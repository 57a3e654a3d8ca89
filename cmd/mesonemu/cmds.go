package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"mesonemu/capture"
	"mesonemu/linktest"
	"mesonemu/perfrun"
	"mesonemu/sim"
	"mesonemu/soc/clk"
)

func (f *flags) boot(stderr io.Writer) (*sim.Sim, error) {
	so, err := f.simOptions()
	if err != nil {
		return nil, err
	}
	if f.trace == "regs" {
		so.Trace = stderr
	}
	return sim.New(so)
}

// bootDescribed boots the board and describes what the guest chose.
func (f *flags) bootDescribed(stderr io.Writer) (*sim.Sim, sim.Description, error) {
	s, err := f.boot(stderr)
	if err != nil {
		return nil, sim.Description{}, err
	}
	d, err := s.Describe()
	return s, d, err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cmdDescribe prints `clk` (the clock summary) or `regs` (decoded registers).
func cmdDescribe(cmd string, f *flags, stdout, stderr io.Writer) error {
	s, d, err := f.bootDescribed(stderr)
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

func (f *flags) linkOptions() (linktest.Options, error) {
	o := linktest.Options{Frames: f.frames, Size: f.size, Payload: f.payload, Direction: f.direction}
	if err := o.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	return o, nil
}

func cmdLinktest(f *flags, stdout, stderr io.Writer) error {
	so, err := f.simOptions()
	if err != nil {
		return err
	}
	lo, err := f.linkOptions()
	if err != nil {
		return err
	}
	if f.trace == "regs" {
		so.Trace = stderr
	}
	capt, err := f.openCapture(so.Board)
	if err != nil {
		return err
	}
	if capt != nil {
		lo.Taps = append(lo.Taps, capt.Tap)
	}
	r, err := linktest.Run(so, lo)
	if err := f.closeCapture(capt, stderr, err); err != nil {
		return err
	}
	if f.json {
		return writeJSON(stdout, r)
	}
	fmt.Fprintf(stdout, "linktest: %s, driver %s, phy-mode %s, tx-delay %d ns, %d Mbit/s, seed %d\n", r.Board, r.Driver, r.PhyMode, r.TxDelayNs, r.Speed, r.Seed)
	fmt.Fprintf(stdout, "%d frames of %d bytes (+4 FCS), %s payload, per direction\n", lo.Frames, r.Size, r.Payload)
	for _, d := range []*linktest.DirResult{r.TX, r.RX} {
		if d == nil {
			continue
		}
		name := map[string]string{"tx": "TX (board -> PC)", "rx": "RX (PC -> board)"}[d.Direction]
		fmt.Fprintf(stdout, "\n%s\n", name)
		fmt.Fprintf(stdout, "  sent %d, received %d, lost %d\n", d.Sent, d.Received, d.Sent-d.Received)
		for _, x := range d.Drops {
			fmt.Fprintf(stdout, "    %-52s %d\n", x.Cause, x.Count)
		}
		fmt.Fprintf(stdout, "  measured loss  %.4f %%\n  predicted loss %.4f %% (%s)\n", 100*d.MeasuredLoss, 100*d.PredictedLoss, sigmaNote(d))
		fmt.Fprintf(stdout, "  timing budget:\n%s\n", indent(d.Budget.String(), "    "))
	}
	fmt.Fprintf(stdout, "\n%.3f s of virtual time in %.2f s\n", r.VirtualSecs, r.WallSecs)
	return nil
}

func sigmaNote(d *linktest.DirResult) string {
	if d.PredictedLoss == 0 || d.PredictedLoss == 1 {
		return "exact"
	}
	return fmt.Sprintf("measured is %+.1f binomial sigma from it", d.Sigmas)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

func cmdRun(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	o, err := f.perfOptions()
	if err != nil {
		return err
	}
	if f.trace == "regs" {
		o.Sim.Trace = stderr
	}
	if f.tap != "" {
		return usagef("--tap: use `mesonemu --tap NAME iperf3 ...` (the board's iperf3 against your host)")
	}
	o.Output = stdout
	capt, err := f.openCapture(o.Sim.Board)
	if err != nil {
		return err
	}
	if capt != nil {
		o.Taps = append(o.Taps, capt.Tap)
	}
	res, rep, err := perfrun.Run(ctx, o)
	if err := f.closeCapture(capt, stderr, err); err != nil {
		return err
	}
	if !f.json {
		return nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return err
	}
	extra, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	// iperf3's own JSON object, with one more top-level key.
	raw = bytes.TrimSuffix(bytes.TrimSpace(raw), []byte("}"))
	var out bytes.Buffer
	out.Write(raw)
	out.WriteString(`,"mesonemu":`)
	out.Write(extra)
	out.WriteString("}")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
		return err
	}
	pretty.WriteByte('\n')
	_, err = stdout.Write(pretty.Bytes())
	return err
}

// openCapture starts the --pcap file of an in-process run (timestamps in
// virtual time since power-on).
func (f *flags) openCapture(boardName string) (*capture.Capture, error) {
	if f.pcap == "" {
		return nil, nil
	}
	c, err := capture.Create(f.pcap, boardName+" rgmii", "mesonemu "+boardName+" RGMII wire, virtual time", 0)
	if err != nil {
		return nil, usagef("--pcap: %v", err)
	}
	return c, nil
}

// closeCapture finishes the file after the run (the machine has stopped) and
// reports it; runErr, the run's own error, wins.
func (f *flags) closeCapture(c *capture.Capture, stderr io.Writer, runErr error) error {
	if c == nil {
		return runErr
	}
	err := c.Close()
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pcap: %d frames written to %s, %d with a bad FCS, %d with a lost SFD\n", c.Frames, f.pcap, c.BadFCS, c.SFDErrors)
	return nil
}
