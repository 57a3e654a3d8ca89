package netstack

import (
	"errors"

	"mesonemu/emu"
	"mesonemu/farend"
	"mesonemu/netstack/link"
)

// PCNIC is the in-process PC's network card: the far-end NIC model of the cable
// (its interrupt moderation included) as the bottom of the PC's link path.
// Frames the far end hands over in one hardware event reach the stack in one
// guest event, as one NAPI poll would.
type PCNIC struct {
	m       *emu.Machine
	nic     *farend.NIC
	recv    func([]byte)
	ready   func()
	rxq     [][]byte   // frames the far end handed over (machine lock)
	rxEv    *emu.Event // hands rxq to the stack, in guest context
	retryEv *emu.Event
	closed  bool
}

// txRetry is how long a full far-end queue makes the PC's qdisc wait: about
// one full frame's time at 1 Gbit/s.
const txRetry = 12 * emu.Microsecond

// NewPCNIC wraps the far end's NIC.
func NewPCNIC(m *emu.Machine, nic *farend.NIC) *PCNIC {
	p := &PCNIC{m: m, nic: nic}
	p.rxEv = m.NewGuestEvent(p.deliver)
	p.retryEv = m.NewGuestEvent(func() {
		if p.ready != nil {
			p.ready()
		}
	})
	m.Lock()
	nic.SetConsumer(p.consume)
	m.Unlock()
	return p
}

// Transmit implements FrameNIC.
func (p *PCNIC) Transmit(frame []byte) error {
	p.m.Lock()
	defer p.m.Unlock()
	if p.closed {
		link.ReleaseFrame(frame)
		return ErrClosed
	}
	err := p.nic.SendLocked(frame)
	if errors.Is(err, farend.ErrTxQueueFull) {
		p.m.Schedule(p.retryEv, p.m.Now()+txRetry)
		return ErrBusy // the frame stays the caller's, to offer again
	}
	link.ReleaseFrame(frame) // the far end copied it, or it is lost
	return err
}

// SendLocked implements link.LockedSender: a frame from a hardware event
// (the delayed-ACK timer), machine lock held. A full queue refuses it.
func (p *PCNIC) SendLocked(frame []byte) error {
	err := p.nic.SendLocked(frame)
	link.ReleaseFrame(frame) // copied, or lost
	return err
}

// SetTxReady implements FrameNIC.
func (p *PCNIC) SetTxReady(fn func()) { p.ready = fn }

// GivesFrames implements link.FrameGiver: consume copied each frame, and
// deliver hands each copy up once.
func (p *PCNIC) GivesFrames() bool { return true }

// SetReceiver implements FrameNIC.
func (p *PCNIC) SetReceiver(fn func([]byte)) {
	p.m.Lock()
	p.recv = fn
	p.m.Unlock()
}

// consume is the far end's consumer, called from a hardware event (lock
// held): the stack side runs later, as a guest event of its own.
func (p *PCNIC) consume(frame []byte) {
	if p.closed {
		return
	}
	p.rxq = append(p.rxq, link.NewFrame(frame))
	if !p.rxEv.Pending() {
		p.m.Schedule(p.rxEv, p.m.Now())
	}
}

func (p *PCNIC) deliver() {
	p.m.Lock()
	frames, fn := p.rxq, p.recv
	p.rxq = nil
	p.m.Unlock()
	for _, f := range frames {
		if fn != nil {
			fn(f)
		}
	}
}

// Close refuses further frames.
func (p *PCNIC) Close() {
	p.m.Lock()
	p.closed = true
	p.m.Cancel(p.retryEv)
	p.m.Unlock()
}

var _ link.LockedSender = (*PCNIC)(nil)
