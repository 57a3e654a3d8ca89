package link

import "sync"

// FrameBufSize is the size of a pooled frame buffer: any Ethernet frame up to
// a 1500-byte MTU with VLAN tags fits; a longer one is allocated on its own.
const FrameBufSize = 2048

// framePool keeps received frames' buffers for reuse. Each received frame
// used to be a fresh allocation (a card's copy, a backlog's copy), 1 GB over
// a 10 s run, and the Ethernet endpoint is done with it as soon as gVisor has
// copied it into its own buffer (buffer.MakeWithData copies).
var framePool = sync.Pool{New: func() any { return new([FrameBufSize]byte) }}

// NewFrame returns a copy of frame in a buffer from the pool, for a card or a
// backlog that gives its received frames up (FrameGiver).
func NewFrame(frame []byte) []byte {
	if len(frame) > FrameBufSize {
		return append([]byte(nil), frame...)
	}
	b := framePool.Get().(*[FrameBufSize]byte)[:len(frame)]
	copy(b, frame)
	return b
}

// ReleaseFrame puts a frame that was given up back into the pool; its owner
// must never touch it again. Frames not of the pool's size are left to the
// garbage collector.
func ReleaseFrame(b []byte) {
	if cap(b) == FrameBufSize {
		framePool.Put((*[FrameBufSize]byte)(b[:FrameBufSize]))
	}
}
