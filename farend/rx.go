package farend

import "mesonemu/ether"

// DropCause is what became of a received frame.
type DropCause int

// Receive outcomes. Every frame handed to Receive ends in exactly one of them, so
// a frame path can prove conservation: sent = accepted + Σ drops by cause.
const (
	// Accepted: the frame is good and went (or will go, after RxDelay) to the
	// consumer; counted in rx_packets.
	Accepted DropCause = iota
	// DropAlign: the frame start was lost or nibbles were shifted
	// (rx_align_errors).
	DropAlign
	// DropRunt: shorter than 64 bytes with FCS (rx_length_errors,
	// rx_short_length_errors).
	DropRunt
	// DropGiant: longer than MaxFrameLen (rx_length_errors, rx_long_length_errors).
	DropGiant
	// DropCRC: the FCS does not match (rx_crc_errors).
	DropCRC
	// DropRingFull: the moderation ring was full (rx_missed_errors).
	DropRingFull
	// DropNoConsumer: no stack is attached (rx_dropped).
	DropNoConsumer
	numCauses
)

var causeNames = [numCauses]string{"accepted", "align", "runt", "giant", "crc", "ring full", "no consumer"}

func (c DropCause) String() string {
	if c < 0 || c >= numCauses {
		return "unknown"
	}
	return causeNames[c]
}

// Receive takes one frame off the cable (lock held): frameWithFCS as it arrived,
// and whether the line already showed a framing problem (the wire's
// Result.AlignmentError: a lost SFD or shifted nibbles). Checks run in the order
// a MAC meets the problems: framing, length, FCS. Receive does not keep
// frameWithFCS after it returns.
func (n *NIC) Receive(frameWithFCS []byte, alignError bool) DropCause {
	cause := n.classify(frameWithFCS, alignError)
	switch cause {
	case DropAlign:
		n.stats.RxAlignErrors++
	case DropRunt:
		n.stats.RxShortLengthErrors++
	case DropGiant:
		n.stats.RxLongLengthErrors++
	case DropCRC:
		n.stats.RxCRCErrors++
	}
	if cause != Accepted {
		return cause
	}
	frame := frameWithFCS[:len(frameWithFCS)-ether.FCSLen]
	if n.consumer == nil {
		n.stats.RxDropped++
		return DropNoConsumer
	}
	if n.cfg.RxDelay == 0 && n.cfg.RxTimer == 0 {
		n.countRx(frame)
		n.consumer(frame)
		return Accepted
	}
	if len(n.rxPending) >= n.cfg.RxRingSize {
		n.stats.RxMissedErrors++
		return DropRingFull
	}
	n.countRx(frame)
	n.rxPending = append(n.rxPending, append([]byte(nil), frame...))
	if !n.rxFlush.Pending() {
		wait := n.cfg.RxTimer
		if n.rxIRQSeen {
			interval := n.cfg.RxDelay
			if n.rxBulk {
				interval = n.cfg.RxBulkDelay
			}
			wait = max(wait, n.rxLastIRQ+interval-n.m.Now())
		}
		n.rxFlush = n.m.After(wait, n.flushRx)
	}
	return Accepted
}

func (n *NIC) classify(frameWithFCS []byte, alignError bool) DropCause {
	switch {
	case alignError:
		return DropAlign
	case len(frameWithFCS) < ether.MinFrameLen:
		return DropRunt
	case len(frameWithFCS) > n.cfg.MaxFrameLen:
		return DropGiant
	case !ether.CheckFCS(frameWithFCS):
		return DropCRC
	}
	return Accepted
}

// countRx counts a good frame. Assumption: rx_bytes counts the frame without
// its FCS, as drivers that strip the CRC (igb, e1000e by default) report it.
func (n *NIC) countRx(frame []byte) {
	n.stats.RxPackets++
	n.stats.RxBytes += uint64(len(frame))
}

// flushRx is the moderated interrupt: every waiting frame goes to the stack in
// arrival order.
func (n *NIC) flushRx() {
	n.rxLastIRQ, n.rxIRQSeen = n.m.Now(), true
	pending := n.rxPending
	n.rxBulk = n.cfg.RxBulkDelay > 0 && len(pending) >= n.cfg.RxBulkFrames
	n.rxPending = nil
	for _, f := range pending {
		if n.consumer == nil { // detached while the frame waited: it never reaches a stack
			n.stats.RxPackets--
			n.stats.RxBytes -= uint64(len(f))
			n.stats.RxDropped++
			continue
		}
		n.consumer(f)
	}
}

// RxPending is how many accepted frames wait for the moderation timer.
func (n *NIC) RxPending() int { return len(n.rxPending) }
