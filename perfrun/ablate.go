package perfrun

import (
	"fmt"
	"strings"
	"time"

	"mesonemu/emu"
	"mesonemu/linux/stmmac"
	"mesonemu/netstack"
	"mesonemu/netstack/linuxmodel"
	"mesonemu/sim"
)

// Ablation is one timing mechanism of the model switched off, or set to the
// alternative Linux documents, so that a run shows how much that mechanism
// moves the result (compare --ablate, run --ablate).
type Ablation struct {
	Name string // the --ablate value
	What string // what changes, with the value the model otherwise uses
	sim  func(*sim.Options)
	// board and pc change a host's configuration before it is made.
	board, pc func(*netstack.HostConfig)
}

// pcModerationAlt is igb's interrupt rate for bulk traffic with its default
// dynamic moderation (InterruptThrottleRate 3: 4000 interrupts/s).
const pcModerationAlt = 250 * emu.Microsecond

// Ablations lists every mechanism compare --ablate switches, one at a time.
var Ablations = []Ablation{
	{Name: "tx-coalescing", What: "board TX interrupt on every frame (tx_coal_frames 1) instead of the kernel tree's coalescing",
		sim: stmmacTuning(func(c *stmmac.Config) { c.TxCoalFrames = 1 })},
	{Name: "rx-watchdog", What: "board RX interrupt on every frame (riwt_off) instead of the RX watchdog",
		sim: stmmacTuning(func(c *stmmac.Config) { c.RIWTOff = true })},
	{Name: "bql", What: "no byte queue limits on the board's TX queue (v5.5's stmmac has BQL)",
		sim: stmmacTuning(func(c *stmmac.Config) { c.BQL = false })},
	{Name: "rx-cleans-tx", What: "board RX interrupt schedules only the RX NAPI (v5.6) instead of TX NAPI too (v5.5's stmmac_napi_check)",
		sim: stmmacTuning(func(c *stmmac.Config) { c.RxIRQLeavesTx = true })},
	{Name: "napi-budget", What: "board NAPI poll takes the whole RX ring instead of 64 frames (NAPI_POLL_WEIGHT)",
		sim: stmmacTuning(func(c *stmmac.Config) {
			n := max(c.RxRingSize, stmmac.DefaultRxRingSize, c.NetdevBudget)
			c.NAPIBudget, c.NetdevBudget = n, n
		})},
	{Name: "cpu-cost", What: "board CPU costs nothing (no per-packet and per-byte time)",
		board: func(h *netstack.HostConfig) { h.CPU = nil }},
	{Name: "tsq", What: "TCP Small Queues never hold the board's frames back (they still measure the path RTT)",
		board: func(h *netstack.HostConfig) { h.SmallQueues = linuxmodel.TSQMeasureOnly }},
	{Name: "pc-acks", What: "PC ACKs as gVisor does (each batch) instead of Linux's every-second-segment and 40 ms timer",
		pc: func(h *netstack.HostConfig) { h.DelayedAcks = false }},
	{Name: "pc-moderation", What: "PC NIC interrupt moderation 250 us (igb's bulk rate, 4000 interrupts/s) instead of none",
		sim: func(o *sim.Options) {
			if o.FarEnd.RxDelay == 0 {
				o.FarEnd.RxDelay = pcModerationAlt
			}
		}},
	{Name: "board-rack", What: "board TCP without RACK-TLP (tcp_recovery 0): a lost retransmission waits for the RTO",
		board: boardTCP(func(c *netstack.TCPConfig) { c.RACK = false })},
	{Name: "board-sack", What: "board TCP without SACK (tcp_sack 0: NewReno recovery)",
		board: boardTCP(func(c *netstack.TCPConfig) { c.SACK = false })},
	{Name: "board-rto", What: "board TCP min RTO 1 s (RFC 6298 2.4) instead of Linux's TCP_RTO_MIN 200 ms",
		board: boardTCP(func(c *netstack.TCPConfig) { c.MinRTO = time.Second })},
}

// AblationNames lists the --ablate values.
func AblationNames() []string {
	names := make([]string, len(Ablations))
	for i, a := range Ablations {
		names[i] = a.Name
	}
	return names
}

// LookupAblation finds an ablation by name; "" and "none" are the model as it is.
func LookupAblation(name string) (Ablation, error) {
	if name == "" || name == "none" {
		return Ablation{Name: "none", What: "the model as it is"}, nil
	}
	for _, a := range Ablations {
		if a.Name == name {
			return a, nil
		}
	}
	return Ablation{}, fmt.Errorf("ablate %q: want none or one of %s", name, strings.Join(AblationNames(), ", "))
}

// stmmacTuning adds a change to the guest's stmmac configuration after any
// the options already make.
func stmmacTuning(change func(*stmmac.Config)) func(*sim.Options) {
	return func(o *sim.Options) {
		before := o.Stmmac
		o.Stmmac = func(c *stmmac.Config) {
			if before != nil {
				before(c)
			}
			change(c)
		}
	}
}

// boardTCP changes the board's TCP configuration.
func boardTCP(change func(*netstack.TCPConfig)) func(*netstack.HostConfig) {
	return func(h *netstack.HostConfig) {
		c := netstack.LinuxTCP()
		if h.TCP != nil {
			c = *h.TCP
		}
		change(&c)
		h.TCP = &c
	}
}
