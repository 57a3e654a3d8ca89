package netstack

import (
	"errors"

	"mesonemu/emu"
	"mesonemu/farend"
)

// PCNIC is the in-process PC's network card: the far-end NIC model of the cable,
// seen as a FrameNIC by the PC's gVisor stack. Between the two it applies a
// Linux PC's receiver ACK policy (pcacks.go), which gVisor lacks.
type PCNIC struct {
	m    *emu.Machine
	nic  *farend.NIC
	done chan struct{}
	acks pcAcks
}

// NewPCNIC wraps the far end's NIC.
func NewPCNIC(m *emu.Machine, nic *farend.NIC) *PCNIC {
	p := &PCNIC{m: m, nic: nic, done: make(chan struct{})}
	p.acks.send = func(f []byte) { _ = nic.SendLocked(f) }
	return p
}

// Transmit implements FrameNIC. When the NIC's transmit queue is full it waits,
// as the PC's qdisc would hold the packet, for about one frame time.
func (p *PCNIC) Transmit(frame []byte) error {
	p.m.Lock()
	held := p.acks.hold(p.m, frame)
	p.m.Unlock()
	if held {
		return nil
	}
	for {
		err := p.nic.Send(frame)
		if !errors.Is(err, farend.ErrTxQueueFull) {
			return err
		}
		select {
		case <-p.done:
			return ErrClosed
		default:
		}
		p.m.Sleep(12 * emu.Microsecond)
	}
}

// SetReceiver implements FrameNIC. The far end calls fn from a hardware event
// with the machine lock held; the Endpoint's receive only copies and queues.
func (p *PCNIC) SetReceiver(fn func([]byte)) {
	p.m.Lock()
	p.nic.SetConsumer(fn)
	p.m.Unlock()
}

// Close releases blocked transmitters.
func (p *PCNIC) Close() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
}

// AckStats counts what the PC's receiver ACK policy (pcacks.go) did.
func (p *PCNIC) AckStats() PCAckStats {
	p.m.Lock()
	defer p.m.Unlock()
	return p.acks.stats()
}
