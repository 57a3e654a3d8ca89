package clk

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// SummaryLayout picks the column layout of WriteSummary.
type SummaryLayout int

const (
	// SummaryV54 is /sys/kernel/debug/clk/clk_summary as drivers/clk/clk.c v5.4
	// prints it: enable, prepare and protect counts, rate, accuracy, phase and duty
	// cycle (in 1/100000), under a three-line header.
	SummaryV54 SummaryLayout = iota
	// SummaryLegacy is the older two-column-count layout (kernels before the
	// protect count and duty cycle columns, v4.15 and earlier), with the header
	// "   clock                         enable_cnt  prepare_cnt        rate   accuracy   phase".
	SummaryLegacy
)

// framework defaults for the columns this port does not model
const (
	defaultPhase     = 0
	defaultDutyScale = 50000 // 1/2 scaled by 100000
)

// walk visits the clock tree in clk_summary order: the root list, then the orphan
// list, each subtree depth-first, lists newest first as the kernel's hlists are.
func (fw *Framework) walk(visit func(c *Clock, level int)) {
	var sub func(c *Clock, level int)
	sub = func(c *Clock, level int) {
		visit(c, level)
		for _, ch := range c.children {
			sub(ch, level+1)
		}
	}
	for _, list := range [][]*Clock{fw.roots, fw.orphans} {
		for _, c := range list {
			sub(c, 0)
		}
	}
}

// WriteSummary writes the clock tree in the layout of clk_summary. Each clock is
// indented by three spaces per level below its root; orphans come after the roots.
func (fw *Framework) WriteSummary(w io.Writer, layout SummaryLayout) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	bw := bufio.NewWriter(w)
	switch layout {
	case SummaryV54:
		bw.WriteString("                                 enable  prepare  protect                                duty\n")
		bw.WriteString("   clock                          count    count    count        rate   accuracy phase  cycle\n")
		bw.WriteString(strings.Repeat("-", 93) + "\n")
	case SummaryLegacy:
		bw.WriteString("   clock                         enable_cnt  prepare_cnt        rate   accuracy   phase\n")
		bw.WriteString(strings.Repeat("-", 88) + "\n")
	default:
		return fmt.Errorf("clk_summary layout %d: %w", int(layout), ErrInvalid)
	}
	fw.walk(func(c *Clock, level int) {
		switch layout {
		case SummaryV54:
			fmt.Fprintf(bw, "%*s%-*s %7d %8d %8d %11d %10d %5d %6d\n",
				level*3+1, "", 30-level*3, c.name,
				c.enableCount, c.prepareCount, c.protectCount,
				getRateNolock(c), c.accuracy, defaultPhase, defaultDutyScale)
		case SummaryLegacy:
			fmt.Fprintf(bw, "%*s%-*s %11d %12d %11d %10d %-3d\n",
				level*3+1, "", 30-level*3, c.name,
				c.enableCount, c.prepareCount, getRateNolock(c), c.accuracy, defaultPhase)
		}
	})
	return bw.Flush()
}

// Summary is WriteSummary into a string.
func (fw *Framework) Summary(layout SummaryLayout) (string, error) {
	var b strings.Builder
	err := fw.WriteSummary(&b, layout)
	return b.String(), err
}

// ClockInfo is one clock in List, for JSON output.
type ClockInfo struct {
	Name         string `json:"name"`
	RateHz       uint32 `json:"rate_hz"`
	Parent       string `json:"parent"` // "" for a root or an orphan
	EnableCount  uint32 `json:"enable_count"`
	PrepareCount uint32 `json:"prepare_count"`
}

// List returns every clock in clk_summary order.
func (fw *Framework) List() []ClockInfo {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	var out []ClockInfo
	fw.walk(func(c *Clock, _ int) {
		info := ClockInfo{Name: c.name, RateHz: getRateNolock(c), EnableCount: c.enableCount, PrepareCount: c.prepareCount}
		if c.parent != nil {
			info.Parent = c.parent.name
		}
		out = append(out, info)
	})
	return out
}
