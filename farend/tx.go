package farend

import (
	"errors"

	"mesonemu/emu"
	"mesonemu/ether"
)

// Send errors. Each is also counted (tx_dropped, tx_errors, tx_carrier_errors).
var (
	ErrTxQueueFull  = errors.New("far-end NIC: transmit queue full")
	ErrFrameTooLong = errors.New("far-end NIC: frame longer than the maximum frame size")
	ErrNoLink       = errors.New("far-end NIC: no link")
	ErrNoCable      = errors.New("far-end NIC: nothing attached to the cable (no sink)")
)

// Send queues a frame from the PC's stack (no FCS) for transmission. It takes the
// machine lock: call it from the stack's goroutines, never from a hardware event
// (use SendLocked there). The NIC copies frame.
func (n *NIC) Send(frame []byte) error {
	n.m.Lock()
	defer n.m.Unlock()
	return n.SendLocked(frame)
}

// SendLocked is Send for callers that hold the machine lock. The frame is padded
// to 60 bytes if shorter (as NIC hardware does), gets its FCS, and waits for the
// line: it leaves when the previous frame and its inter-frame gap are done, and
// reaches the sink when its last FCS bit has been sent.
func (n *NIC) SendLocked(frame []byte) error {
	switch {
	case n.cfg.SpeedMbps == 0:
		n.stats.TxCarrierErrors++
		return ErrNoLink
	case n.sink == nil:
		n.stats.TxCarrierErrors++
		return ErrNoCable
	case len(frame) > n.cfg.MaxFrameLen-ether.FCSLen:
		n.stats.TxErrors++
		return ErrFrameTooLong
	case n.txQueued >= n.cfg.TxQueueLen:
		n.stats.TxDropped++
		return ErrTxQueueFull
	}
	size := max(len(frame), ether.MinFrameLenNoFCS)
	buf := make([]byte, size, size+ether.FCSLen)
	copy(buf, frame)
	buf = ether.AppendFCS(buf)

	speed := n.cfg.SpeedMbps
	start := max(n.m.Now(), n.lineFreeAt)
	lastBit := start + ether.BitTime(int64(ether.PreambleSFDLen+len(buf))*8, speed)
	n.lineFreeAt = start + ether.WireTime(len(buf), speed)
	n.txQueued++
	stackLen := uint64(len(frame))
	n.m.At(lastBit, func() {
		n.txQueued--
		// Assumption: tx_bytes counts what the stack handed over, without padding
		// or FCS, like Linux's skb->len accounting.
		n.stats.TxPackets++
		n.stats.TxBytes += stackLen
		n.sink(buf)
	})
	return nil
}

// TxQueued is how many frames wait for the line or are being sent (lock held).
func (n *NIC) TxQueued() int { return n.txQueued }

// LineFreeAt is when the transmitter can start the next frame (lock held).
func (n *NIC) LineFreeAt() emu.Time { return n.lineFreeAt }
