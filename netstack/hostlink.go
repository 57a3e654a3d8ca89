package netstack

import (
	"errors"
	"sync"

	"mesonemu/netstack/link"
	"mesonemu/netstack/linuxmodel"
)

// Link is a host's link path as NewHost composes it, top to bottom:
//
//	link.Ethernet → [linuxmodel SmallQueues.Admit] → link.Qdisc →
//	linuxmodel.Softnet (CPU, backlog) → [SmallQueues.Free | linuxmodel.DelayedAcks] → NIC
//
// The bracketed endpoints are in it when HostConfig asks for them.
type Link struct {
	eth     *link.Ethernet
	tsq     *linuxmodel.SmallQueues // nil: not in the path
	qdisc   *link.Qdisc
	softnet *linuxmodel.Softnet
	acks    *linuxmodel.DelayedAcks // nil: not in the path
	mu      sync.Mutex
	// droppedAtClose: what the queues still held when the path closed.
	droppedAtClose uint64
}

func newLink(cfg HostConfig, settle func()) (*Link, error) {
	if cfg.NIC == nil {
		return nil, errors.New("no NIC")
	}
	l := &Link{}
	card := cfg.NIC
	if cfg.DelayedAcks {
		a, err := linuxmodel.NewDelayedAcks(cfg.Machine, cfg.MTU, card)
		if err != nil {
			return nil, err
		}
		l.acks, card = a, a
	}
	if cfg.SmallQueues != linuxmodel.TSQOff {
		tsq, err := linuxmodel.NewSmallQueues(cfg.Machine, cfg.MTU, cfg.SmallQueues)
		if err != nil {
			return nil, err
		}
		l.tsq = tsq
		free, err := tsq.Free(card)
		if err != nil {
			return nil, err
		}
		card = free
	}
	l.softnet = linuxmodel.NewSoftnet(cfg.Machine, cfg.CPU, card)
	l.qdisc = link.NewQdisc(l.softnet)
	var top link.Endpoint = l.qdisc
	if l.tsq != nil {
		top = l.tsq.Admit(top)
	}
	l.eth = link.NewEthernet(top, cfg.MTU, cfg.MAC, settle)
	return l, nil
}

// LinkStats counts what the path's queues did with frames, so that nothing a
// stack sends or a card receives disappears without a counter.
type LinkStats struct {
	TxQueued, TxSent, TxDroppedAtClose, TxErrors  uint64
	RxQueued, RxDelivered, RxBacklogDrops, RxRunt uint64
}

// Stats returns the path's counters.
func (l *Link) Stats() LinkStats {
	sn := l.softnet.Stats()
	l.mu.Lock()
	defer l.mu.Unlock()
	return LinkStats{
		TxQueued: l.eth.Queued(), TxSent: sn.TxSent, TxDroppedAtClose: l.droppedAtClose,
		TxErrors: sn.TxErrors + l.qdisc.Errors(),
		RxQueued: sn.RxQueued, RxDelivered: sn.RxDelivered, RxBacklogDrops: sn.RxBacklogDrops, RxRunt: sn.RxRunt,
	}
}

// InFlight is how many frames the path holds: sent ones not yet on the card
// (TSQ, the qdisc, the core) and received ones in the backlog.
func (l *Link) InFlight() (tx, rx int) {
	if l.tsq != nil {
		tx = l.tsq.Held()
	}
	tx += l.qdisc.Len()
	core, rx := l.softnet.Queued()
	return tx + core, rx
}

// SmallQueueStats reports what TCP Small Queues did (zero when not in the path).
func (l *Link) SmallQueueStats() linuxmodel.SmallQueueStats {
	if l.tsq == nil {
		return linuxmodel.SmallQueueStats{}
	}
	return l.tsq.Stats()
}

// AckStats reports what the delayed-ACK policy did (zero when not in the path).
func (l *Link) AckStats() linuxmodel.AckStats {
	if l.acks == nil {
		return linuxmodel.AckStats{}
	}
	return l.acks.Stats()
}

// Close closes the path top to bottom; what its queues still held is counted
// as dropped at close. Called once, by Host.Close.
func (l *Link) Close() {
	l.eth.Close()
	n := 0
	if l.tsq != nil {
		n += l.tsq.Close()
	}
	n += l.qdisc.Close()
	n += l.softnet.Close()
	l.mu.Lock()
	l.droppedAtClose += uint64(n)
	l.mu.Unlock()
}
