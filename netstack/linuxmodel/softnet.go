package linuxmodel

import (
	"errors"
	"sync"

	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/emu"
	"mesonemu/netstack/internal/fifo"
	"mesonemu/netstack/link"
)

// DefaultBacklog is net.core.netdev_max_backlog, Linux's default.
const DefaultBacklog = 1000

// Softnet is the host's one core between the qdisc and the card: frames take
// turns on it one at a time, each for its CPU cost (none with a nil CPU, but
// still as an engine event of its own). A sent frame, once processed, goes to
// the card; a busy card keeps it here until the card has room. A received
// frame waits in the per-CPU backlog (more than DefaultBacklog are dropped and
// counted), then passes the core and goes up.
type Softnet struct {
	m     *emu.Machine
	cpu   *CPU
	lower link.Endpoint
	given bool // the card gives its received frames: no copy

	mu         sync.Mutex
	up         func([]byte)
	ready      func()
	closed     bool
	tx         []byte // in the core, or refused by a busy card
	txCharged  bool   // tx's CPU work is done
	nicBusy    bool   // the card said ErrBusy; wait for its TxReady
	refused    bool   // Transmit said ErrBusy: call ready when tx leaves
	backlog    fifo.Queue[[]byte]
	rxBusy     bool // the head of the backlog is in the core
	txEv, rxEv *emu.Event
	readyEv    *emu.Event
	stats      SoftnetStats
}

// SoftnetStats counts what passed the core, so that nothing a stack sends or
// a card receives disappears without a counter.
type SoftnetStats struct {
	TxSent, TxErrors                      uint64
	RxQueued, RxDelivered, RxBacklogDrops uint64
	RxRunt                                uint64 // shorter than an Ethernet header
}

// NewSoftnet puts the core on the card; cpu may be nil.
func NewSoftnet(m *emu.Machine, cpu *CPU, card link.Endpoint) *Softnet {
	s := &Softnet{m: m, cpu: cpu, lower: card, given: link.GivesFrames(card)}
	s.txEv = m.NewGuestEvent(s.txDone)
	s.rxEv = m.NewGuestEvent(s.rxDone)
	s.readyEv = m.NewGuestEvent(s.txReady)
	card.SetReceiver(s.receive)
	card.SetTxReady(func() {
		m.Lock()
		m.Schedule(s.readyEv, m.Now())
		m.Unlock()
	})
	return s
}

// Transmit implements link.Endpoint: the core takes one frame at a time.
func (s *Softnet) Transmit(frame []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return link.ErrClosed
	case s.tx != nil:
		s.refused = true
		return link.ErrBusy
	}
	s.tx, s.txCharged = frame, false
	done := s.cpu.reserve(s.m.Now(), len(frame))
	s.m.Lock()
	s.m.Schedule(s.txEv, done)
	s.m.Unlock()
	return nil
}

// txDone: the core has finished the frame; hand it to the card.
func (s *Softnet) txDone() {
	s.mu.Lock()
	f := s.tx
	if f == nil || s.closed {
		s.mu.Unlock()
		return
	}
	s.txCharged = true
	s.mu.Unlock()
	// The card is called without s.mu: its TX completion may come back
	// through the endpoints above to Transmit.
	err := s.lower.Transmit(f)
	s.mu.Lock()
	switch {
	case errors.Is(err, link.ErrBusy):
		s.nicBusy = true // f stays, charged, until the card has room
		s.mu.Unlock()
		return
	case err != nil:
		s.stats.TxErrors++
	default:
		s.stats.TxSent++
	}
	s.tx = nil
	ready := s.refused && s.ready != nil
	s.refused = false
	fn := s.ready
	s.mu.Unlock()
	if ready {
		fn()
	}
}

// txReady: the card has room again.
func (s *Softnet) txReady() {
	s.mu.Lock()
	resend := s.nicBusy && s.tx != nil && s.txCharged
	s.nicBusy = false
	s.mu.Unlock()
	if resend {
		s.txDone()
	}
}

// SetTxReady implements link.Endpoint.
func (s *Softnet) SetTxReady(fn func()) {
	s.mu.Lock()
	s.ready = fn
	s.mu.Unlock()
}

// SetReceiver implements link.Endpoint.
func (s *Softnet) SetReceiver(fn func([]byte)) {
	s.mu.Lock()
	s.up = fn
	s.mu.Unlock()
}

// receive is the card's receive callback: copy into the backlog (a pooled
// buffer; no copy when the card gives its frames), never block. A frame
// without a whole Ethernet header never gets that far in Linux
// (eth_type_trans in the driver), so it takes no backlog slot.
func (s *Softnet) receive(frame []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(frame) < header.EthernetMinimumSize:
		s.stats.RxRunt++
		return
	case s.closed || s.backlog.Len() >= DefaultBacklog:
		s.stats.RxBacklogDrops++
		return
	}
	if !s.given {
		frame = link.NewFrame(frame)
	}
	s.backlog.Push(frame)
	s.stats.RxQueued++
	s.pumpRxLocked()
}

func (s *Softnet) pumpRxLocked() {
	if s.closed || s.rxBusy || s.backlog.Len() == 0 {
		return
	}
	s.rxBusy = true
	done := s.cpu.reserve(s.m.Now(), len(s.backlog.Live()[0]))
	s.m.Lock()
	s.m.Schedule(s.rxEv, done)
	s.m.Unlock()
}

// rxDone: the core has finished the oldest received frame; it goes up.
func (s *Softnet) rxDone() {
	s.mu.Lock()
	if s.closed || s.backlog.Len() == 0 {
		s.mu.Unlock()
		return
	}
	f := s.backlog.PopFront(1)[0]
	s.rxBusy = false
	s.stats.RxDelivered++
	up := s.up
	s.mu.Unlock()
	if up != nil {
		up(f)
	}
	s.mu.Lock()
	s.pumpRxLocked()
	s.mu.Unlock()
}

// GivesFrames implements link.FrameGiver: the backlog's frames are its own
// (the card's given ones or its copies), and each goes up once.
func (s *Softnet) GivesFrames() bool { return true }

// Stats returns the core's counters.
func (s *Softnet) Stats() SoftnetStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Queued is how many sent frames the core holds (one at most) and how many
// received frames wait in its backlog.
func (s *Softnet) Queued() (tx, rx int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tx != nil {
		tx = 1
	}
	return tx, s.backlog.Len()
}

// Close stops the core's events and returns how many sent frames it still
// held (one at most).
func (s *Softnet) Close() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0
	}
	s.closed = true
	n := 0
	if s.tx != nil {
		n = 1
	}
	s.m.Lock()
	s.m.Cancel(s.txEv)
	s.m.Cancel(s.rxEv)
	s.m.Cancel(s.readyEv)
	s.m.Unlock()
	return n
}

var _ link.Endpoint = (*Softnet)(nil)
