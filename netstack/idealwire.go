package netstack

import (
	"mesonemu/emu"
	"mesonemu/ether"
)

// IdealWire joins two FrameNICs with a perfect full-duplex Ethernet cable: frames
// are serialised at the line rate in virtual time (preamble, SFD, FCS and the
// inter-frame gap counted) and arrive after a fixed latency, never corrupted.
// It is the reference the emulated path is measured against.
type IdealWire struct {
	A, B *IdealPort
}

// IdealPort is one end of an IdealWire.
type IdealPort struct {
	m        *emu.Machine
	peer     *IdealPort
	rateMbps int64
	latency  emu.Time
	lineFree emu.Time
	ring     int // TX ring: at most this many frames on their way
	inFlight int
	full     bool // a Transmit was refused: call ready when a slot frees
	recv     func([]byte)
	ready    func()
}

// NewIdealWire makes a cable at rateMbps with a one-way latency; each end holds
// up to ring frames in flight before Transmit says ErrBusy, like a NIC's TX ring.
func NewIdealWire(m *emu.Machine, rateMbps int, latency emu.Time, ring int) *IdealWire {
	mk := func() *IdealPort {
		return &IdealPort{m: m, rateMbps: int64(rateMbps), latency: latency, ring: ring}
	}
	w := &IdealWire{A: mk(), B: mk()}
	w.A.peer, w.B.peer = w.B, w.A
	return w
}

// Transmit implements FrameNIC.
func (p *IdealPort) Transmit(frame []byte) error {
	p.m.Lock()
	defer p.m.Unlock()
	return p.sendLocked(frame)
}

// sendLocked is Transmit with the machine lock held. The port does not offer
// it as link.LockedSender (a test wraps it for Linux's delayed ACKs).
func (p *IdealPort) sendLocked(frame []byte) error {
	buf := append([]byte(nil), frame...)
	if p.inFlight >= p.ring {
		p.full = true
		return ErrBusy
	}
	p.inFlight++
	start := max(p.m.Now(), p.lineFree)
	// Short frames are padded to 60 bytes; the FCS follows.
	p.lineFree = start + ether.WireTime(max(len(buf), ether.MinFrameLenNoFCS)+ether.FCSLen, int(p.rateMbps))
	ev := p.m.NewGuestEvent(func() {
		p.m.Lock()
		p.inFlight--
		wake := p.full
		p.full = false
		r := p.peer.recv
		p.m.Unlock()
		if r != nil {
			r(buf)
		}
		if wake && p.ready != nil {
			p.ready()
		}
	})
	p.m.Schedule(ev, p.lineFree+p.latency)
	return nil
}

// SetTxReady implements FrameNIC.
func (p *IdealPort) SetTxReady(fn func()) { p.ready = fn }

// SetReceiver implements FrameNIC.
func (p *IdealPort) SetReceiver(fn func([]byte)) {
	p.m.Lock()
	p.recv = fn
	p.m.Unlock()
}
