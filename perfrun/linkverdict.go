package perfrun

import (
	"fmt"
	"io"

	"mesonemu/linkclass"
)

// Link classes of a run's verdict (--expect), shared with linktest.
const (
	ClassClean = linkclass.Clean
	ClassLossy = linkclass.Lossy
	ClassDead  = linkclass.Dead
)

// LinkVerdict is the class of the link a run found, from the counters.
type LinkVerdict struct {
	linkclass.Verdict
	// Retransmits are each host's TCP retransmits counter.
	BoardRetransmits uint64 `json:"board_retransmits"`
	PCRetransmits    uint64 `json:"pc_retransmits"`
}

// DirectionLoss is one direction of the cable: frames that went onto the wire
// and those the receiving MAC never took (bad FCS, lost start, or no clock or
// link to carry them).
type DirectionLoss = linkclass.DirectionLoss

// RealBoard is one of the commit's iperf3 runs on an Odroid-C1.
type RealBoard struct {
	What        string  `json:"what"`
	Driver      string  `json:"driver"`
	TxDelayNs   uint32  `json:"tx_delay_ns"`
	Mbps        float64 `json:"mbit_per_s"`
	Retransmits uint64  `json:"retransmits"`
	Seconds     int     `json:"seconds"`
}

// classify reads the wire's and both MACs' counters of the report.
func classify(r *Report) *LinkVerdict {
	const wire, pc, board = "rgmii wire", "pc nic", "board eth0 (stmmac)"
	tx := DirectionLoss{Sent: r.Counter(wire, "tx_frames")}
	tx.Lost = min(tx.Sent, r.Counter(pc, "rx_crc_errors")+r.Counter(pc, "rx_align_errors")+
		tx.Sent-min(tx.Sent, r.Counter(wire, "tx_at_far_end")))
	rx := DirectionLoss{Sent: r.Counter(wire, "rx_frames")}
	rx.Lost = min(rx.Sent, r.Counter(board, "rx_crc_errors")+rx.Sent-min(rx.Sent, r.Counter(wire, "rx_at_mac")))
	v := &LinkVerdict{Verdict: linkclass.Judge(tx, rx),
		BoardRetransmits: r.Counter("board tcp", "retransmits"), PCRetransmits: r.Counter("pc tcp", "retransmits")}
	return v
}

// writeLinkVerdict is the verdict's text line.
func writeLinkVerdict(w io.Writer, v *LinkVerdict) {
	if v == nil {
		return
	}
	fmt.Fprintf(w, "wire:     %s: %s\n", v.Class, v.Why)
}
