package netstack

import "mesonemu/emu"

// The PC's receiver ACK policy. gVisor ACKs once per batch of segments it
// processes, so how often it ACKs depends on how the host happened to
// schedule it. A Linux PC ACKs when more than one full segment is
// unacknowledged (tcp_input.c, __tcp_ack_snd_check; RFC 5681 4.2: at least
// every second full-sized segment) and otherwise waits for the delayed-ACK
// timer. pcAcks gives the in-process PC that policy at its NIC: it holds a pure
// cumulative ACK that acknowledges at most one MSS beyond the last ACK sent;
// the flow's next frame supersedes it (counted), or the timer sends it.
// Duplicate ACKs, SACK-bearing ACKs, window updates and anything with data or
// flags go out at once, as Linux sends them. Not modelled: Linux's quick-ACK
// mode (every segment ACKed for the first few after a connection starts or
// goes idle).
const (
	// ackMSS is the PC's receive MSS: a 1500-byte MTU with TCP timestamps.
	ackMSS = 1448
	// delayedAckTimeout is Linux's TCP_DELACK_MIN (HZ/25).
	delayedAckTimeout = 40 * emu.Millisecond
)

type ackFlow struct {
	lastAck uint32 // the last ACK number sent on the flow
	valid   bool
	held    []byte // a pure ACK waiting for the next segment or the timer
	ev      *emu.Event
}

// pcAcks is guarded by the machine lock.
type pcAcks struct {
	// send transmits a held ACK when its timer expires (from a hardware
	// event, lock held).
	send       func([]byte)
	flows      map[flowKey]*ackFlow
	superseded uint64 // held ACKs replaced by a later frame of the flow
	delayed    uint64 // held ACKs sent by the timer
}

// PCAckStats counts what the PC's ACK policy did.
type PCAckStats struct {
	// Superseded: ACKs held back and then replaced by the flow's next frame,
	// which acknowledges at least as much (never sent, as on a Linux PC).
	Superseded uint64
	// Delayed: ACKs held back and sent when the delayed-ACK timer expired.
	Delayed uint64
	// HeldAtEnd: ACKs still held when the counters were read.
	HeldAtEnd uint64
}

// hold decides for one frame the PC's stack sends, machine lock held. true: the
// frame is held back and the caller must not send it.
func (a *pcAcks) hold(m *emu.Machine, frame []byte) bool {
	seg, ok := parseTCP(frame)
	if !ok {
		return false
	}
	k, ack := seg.key, seg.ack
	if a.flows == nil {
		a.flows = map[flowKey]*ackFlow{}
	}
	f := a.flows[k]
	if f == nil {
		f = &ackFlow{}
		a.flows[k] = f
	}
	if f.held != nil {
		// The new frame acknowledges at least as much (gVisor's ACK number
		// never goes back): the held ACK has nothing left to say.
		m.Cancel(f.ev)
		f.held, f.ev = nil, nil
		a.superseded++
	}
	if seg.pureACK && f.valid && seqAfter(ack, f.lastAck) && ack-f.lastAck <= ackMSS {
		f.held = append([]byte(nil), frame...)
		f.ev = m.After(delayedAckTimeout, func() {
			if f.held != nil {
				a.send(f.held)
				f.lastAck = ack
				f.held, f.ev = nil, nil
				a.delayed++
			}
		})
		return true
	}
	if seg.hasACK {
		f.lastAck, f.valid = ack, true
	}
	return false
}

// stats reads the counters, machine lock held.
func (a *pcAcks) stats() PCAckStats {
	s := PCAckStats{Superseded: a.superseded, Delayed: a.delayed}
	for _, f := range a.flows {
		if f.held != nil {
			s.HeldAtEnd++
		}
	}
	return s
}
