package linuxmodel

import (
	"fmt"

	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/emu"
	"mesonemu/netstack/link"
	"mesonemu/netstack/tcpseg"
)

// DelayedAcks is a Linux receiver's ACK policy as an endpoint on the card.
// gVisor ACKs once per batch of segments it processes, so how often it ACKs
// depends on how the host happened to schedule it; Linux ACKs when more than
// one full segment is unacknowledged (__tcp_ack_snd_check; RFC 5681 4.2) and
// otherwise waits for the delayed-ACK timer. So a pure cumulative ACK that
// acknowledges at most one MSS beyond the last ACK sent is held; the flow's
// next frame supersedes it (counted), or the timer sends it. Duplicate ACKs,
// SACK-bearing ACKs, window updates and anything with data or flags go at
// once. Not modelled: Linux's quick-ACK mode (every segment ACKed for the
// first few after a connection starts or goes idle).
type DelayedAcks struct {
	m    *emu.Machine
	card link.LockedSender
	mss  int // the receive MSS: the MTU with TCP timestamps
	// The rest is guarded by the machine lock (the timer is a hardware event).
	flows      map[tcpseg.FlowKey]*ackFlow
	superseded uint64 // held ACKs replaced by a later frame of the flow
	delayed    uint64 // held ACKs sent by the timer
}

// delayedAckTimeout is Linux's TCP_DELACK_MIN (HZ/25).
const delayedAckTimeout = 40 * emu.Millisecond

type ackFlow struct {
	lastAck uint32 // the last ACK number sent on the flow
	valid   bool
	held    []byte // a pure ACK waiting for the next segment or the timer
	heldAck uint32 // held's ACK number
	// timer sends held: one event per flow, queued anew for each held ACK
	// (a new event per ACK was two allocations a data frame pair).
	timer *emu.Event
}

// AckStats counts what the ACK policy did.
type AckStats struct {
	// Superseded: ACKs held back and then replaced by the flow's next frame,
	// which acknowledges at least as much (never sent, as on a Linux host).
	Superseded uint64
	// Delayed: ACKs held back and sent when the delayed-ACK timer expired.
	Delayed uint64
	// HeldAtEnd: ACKs still held when the counters were read.
	HeldAtEnd uint64
}

// NewDelayedAcks puts the policy on card, which must take a frame from the
// timer's hardware event (link.LockedSender); mtu is the host's IP MTU.
func NewDelayedAcks(m *emu.Machine, mtu uint32, card link.Endpoint) (*DelayedAcks, error) {
	c, ok := card.(link.LockedSender)
	if !ok {
		return nil, fmt.Errorf("delayed ACKs: the card (%T) cannot send from a timer", card)
	}
	mss := int(mtu) - header.IPv4MinimumSize - header.TCPMinimumSize - 12
	return &DelayedAcks{m: m, card: c, mss: mss}, nil
}

// Transmit implements link.Endpoint.
func (a *DelayedAcks) Transmit(frame []byte) error {
	a.m.Lock()
	held := a.hold(frame)
	a.m.Unlock()
	if held {
		return nil
	}
	return a.card.Transmit(frame)
}

// SetTxReady implements link.Endpoint.
func (a *DelayedAcks) SetTxReady(fn func()) { a.card.SetTxReady(fn) }

// SetReceiver implements link.Endpoint.
func (a *DelayedAcks) SetReceiver(fn func([]byte)) { a.card.SetReceiver(fn) }

// GivesFrames implements link.FrameGiver: received frames pass straight up.
func (a *DelayedAcks) GivesFrames() bool { return link.GivesFrames(a.card) }

// hold decides for one frame the host sends, machine lock held. true: the
// frame is held back and must not go to the card now.
func (a *DelayedAcks) hold(frame []byte) bool {
	seg, ok := tcpseg.Parse(frame)
	if !ok {
		return false
	}
	k, ack := seg.Key, seg.Ack
	if a.flows == nil {
		a.flows = map[tcpseg.FlowKey]*ackFlow{}
	}
	f := a.flows[k]
	if f == nil {
		f = &ackFlow{}
		a.flows[k] = f
	}
	if f.held != nil {
		// The new frame acknowledges at least as much (gVisor's ACK number
		// never goes back): the held ACK has nothing left to say.
		a.m.Cancel(f.timer)
		link.ReleaseFrame(f.held) // never sent: the frame is the path's
		f.held = nil
		a.superseded++
	}
	if seg.PureACK && f.valid && tcpseg.SeqAfter(ack, f.lastAck) && int(ack-f.lastAck) <= a.mss {
		f.held, f.heldAck = frame, ack // the path's to keep (link.Endpoint); the card releases it
		if f.timer == nil {
			f.timer = a.m.NewEvent(func() { a.timeout(f) })
		}
		a.m.Schedule(f.timer, a.m.Now()+delayedAckTimeout)
		return true
	}
	if seg.HasACK {
		f.lastAck, f.valid = ack, true
	}
	return false
}

// timeout is the delayed-ACK timer of a flow (hardware event, lock held).
func (a *DelayedAcks) timeout(f *ackFlow) {
	if f.held != nil {
		_ = a.card.SendLocked(f.held) // a full queue loses it, as a full ring would
		f.lastAck = f.heldAck
		f.held = nil
		a.delayed++
	}
}

// Stats reads the counters.
func (a *DelayedAcks) Stats() AckStats {
	a.m.Lock()
	defer a.m.Unlock()
	s := AckStats{Superseded: a.superseded, Delayed: a.delayed}
	for _, f := range a.flows {
		if f.held != nil {
			s.HeldAtEnd++
		}
	}
	return s
}

var _ link.Endpoint = (*DelayedAcks)(nil)
