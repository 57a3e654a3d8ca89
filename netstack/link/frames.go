package link

import "sync"

// FrameBufSize is the size of a pooled frame buffer: any Ethernet frame up to
// a 1500-byte MTU with VLAN tags fits; a longer one is allocated on its own.
const FrameBufSize = 2048

// framePool keeps frames' buffers for reuse. Each frame used to be a fresh
// allocation, 2 GB over a 10 s run: the Ethernet endpoint's frame for each
// packet sent, kept by the path until the card copies it, and the card's or
// the backlog's copy of each frame received, which the Ethernet endpoint is
// done with once gVisor has copied it (buffer.MakeWithData copies).
var framePool = sync.Pool{New: func() any { return new([FrameBufSize]byte) }}

// AllocFrame returns a frame of n bytes, from the pool when it fits; the
// caller writes all n.
func AllocFrame(n int) []byte {
	if n > FrameBufSize {
		return make([]byte, n)
	}
	return framePool.Get().(*[FrameBufSize]byte)[:n]
}

// NewFrame returns a copy of frame in a buffer from the pool, for a card or a
// backlog that gives its received frames up (FrameGiver).
func NewFrame(frame []byte) []byte {
	b := AllocFrame(len(frame))
	copy(b, frame)
	return b
}

// ReleaseFrame puts a frame back into the pool: one received that was given
// up, or one sent that a card has copied or refused for good (a frame sent
// belongs to the path, see Endpoint). Its owner never touches it again.
// Frames not of the pool's size are left to the garbage collector.
func ReleaseFrame(b []byte) {
	if cap(b) == FrameBufSize {
		framePool.Put((*[FrameBufSize]byte)(b[:FrameBufSize]))
	}
}
