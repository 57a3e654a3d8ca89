package clk

import (
	"fmt"
	"strings"
)

// Flags are the framework-level clock flags of include/linux/clk-provider.h, with
// the same bit values.
type Flags uint32

// Framework flags. Only the ones listed here are accepted by Register.
const (
	SetRateGate       Flags = 1 << 0  // CLK_SET_RATE_GATE: rate is fixed while prepared
	SetParentGate     Flags = 1 << 1  // CLK_SET_PARENT_GATE: reparent only while unprepared
	SetRateParent     Flags = 1 << 2  // CLK_SET_RATE_PARENT: propagate rate requests upwards
	IgnoreUnused      Flags = 1 << 3  // CLK_IGNORE_UNUSED: accepted; clk_disable_unused is not ported
	GetRateNoCache    Flags = 1 << 6  // CLK_GET_RATE_NOCACHE: GetRate recalculates first
	SetRateNoReparent Flags = 1 << 7  // CLK_SET_RATE_NO_REPARENT: a mux keeps its parent
	SetRateUngate     Flags = 1 << 10 // CLK_SET_RATE_UNGATE: enable around set_rate
	IsCritical        Flags = 1 << 11 // CLK_IS_CRITICAL: enabled at registration, never disabled
)

const knownFlags = SetRateGate | SetParentGate | SetRateParent | IgnoreUnused |
	GetRateNoCache | SetRateNoReparent | SetRateUngate | IsCritical

var flagNames = []struct {
	f    Flags
	name string
}{
	{SetRateGate, "CLK_SET_RATE_GATE"},
	{SetParentGate, "CLK_SET_PARENT_GATE"},
	{SetRateParent, "CLK_SET_RATE_PARENT"},
	{IgnoreUnused, "CLK_IGNORE_UNUSED"},
	{GetRateNoCache, "CLK_GET_RATE_NOCACHE"},
	{SetRateNoReparent, "CLK_SET_RATE_NO_REPARENT"},
	{SetRateUngate, "CLK_SET_RATE_UNGATE"},
	{IsCritical, "CLK_IS_CRITICAL"},
}

// String lists the flags by their Linux names, as debugfs clk_flags does.
func (f Flags) String() string {
	if f == 0 {
		return "0"
	}
	var parts []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			parts = append(parts, n.name)
			f &^= n.f
		}
	}
	if f != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(f)))
	}
	return strings.Join(parts, "|")
}
