package perfrun

import (
	"fmt"
	"io"
)

// Link classes of a run's verdict (--expect).
const (
	ClassClean = "clean" // no frame lost on the wire in either direction
	ClassLossy = "lossy" // some lost
	ClassDead  = "dead"  // frames were sent one way and none arrived
)

// LinkVerdict is the class of the link a run found, from the counters.
type LinkVerdict struct {
	Class     string        `json:"class"`
	Why       string        `json:"why"`
	BoardToPC DirectionLoss `json:"board_to_pc"`
	PCToBoard DirectionLoss `json:"pc_to_board"`
	// Retransmits are each host's TCP retransmits counter.
	BoardRetransmits uint64 `json:"board_retransmits"`
	PCRetransmits    uint64 `json:"pc_retransmits"`
}

// DirectionLoss is one direction of the cable: frames that went onto the wire
// and those the receiving MAC never took (bad FCS, lost start, or no clock or
// link to carry them).
type DirectionLoss struct {
	Sent uint64 `json:"frames_sent"`
	Lost uint64 `json:"frames_lost"`
}

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
	v := &LinkVerdict{BoardToPC: tx, PCToBoard: rx,
		BoardRetransmits: r.Counter("board tcp", "retransmits"), PCRetransmits: r.Counter("pc tcp", "retransmits")}
	switch {
	case tx.Sent == 0 && rx.Sent == 0:
		v.Class, v.Why = ClassDead, "no frame went onto the wire"
	case tx.Sent > 0 && tx.Lost == tx.Sent:
		v.Class, v.Why = ClassDead, fmt.Sprintf("every frame the board sent was lost on the wire (%d of %d)", tx.Lost, tx.Sent)
	case rx.Sent > 0 && rx.Lost == rx.Sent:
		v.Class, v.Why = ClassDead, fmt.Sprintf("every frame the PC sent was lost on the wire (%d of %d)", rx.Lost, rx.Sent)
	case tx.Lost+rx.Lost > 0:
		v.Class, v.Why = ClassLossy, fmt.Sprintf("frames lost on the wire: %d of the board's %d, %d of the PC's %d",
			tx.Lost, tx.Sent, rx.Lost, rx.Sent)
	default:
		v.Class, v.Why = ClassClean, "no frame lost on the wire in either direction"
	}
	return v
}

// writeLinkVerdict is the verdict's text line.
func writeLinkVerdict(w io.Writer, v *LinkVerdict) {
	if v == nil {
		return
	}
	fmt.Fprintf(w, "wire:     %s: %s\n", v.Class, v.Why)
}
