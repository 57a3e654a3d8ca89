// Package link is a host's frame path below its gVisor stack, as stacked endpoints.
// Above the bus: between a stack and its card (the guest driver or the far-end NIC).
//
// It is a host's frame path below its gVisor stack, as small
// endpoints each wrapping the one below, the card at the bottom: the
// Ethernet endpoint the stack sees and the qdisc here, the Linux behaviour
// models in package linuxmodel. They pass whole frames, not gVisor packet
// buffers: every stage runs on the engine (its events, its virtual time) and
// the models read the frames' headers.
package link

import "errors"

// Endpoint is one stage of the path, or the card at its bottom: whole
// Ethernet frames without the FCS, which the hardware adds and checks. It is
// called from guest context (engine events, never with the machine lock held).
type Endpoint interface {
	// Transmit takes one frame: the Ethernet endpoint makes each frame anew,
	// so the endpoints on the way may keep it; the card copies it and may
	// then release it (ReleaseFrame), as it may one it refuses. ErrBusy: no room
	// now; the SetTxReady function is called when there is. Another error
	// means the frame is gone (the caller counts it).
	Transmit(frame []byte) error
	// SetTxReady installs the function called (from guest context) when there
	// is room again after ErrBusy.
	SetTxReady(func())
	// SetReceiver installs the function that gets every received frame, in
	// guest context; the slice is only valid during the call, unless the
	// endpoint GivesFrames.
	SetReceiver(func(frame []byte))
}

// FrameGiver is an endpoint that may hand its received frames over: when
// GivesFrames says so, the receiver may keep each slice (the card made it for
// this one call and never touches it again), so it need not copy it.
type FrameGiver interface {
	GivesFrames() bool
}

// GivesFrames reports whether e hands its received frames over.
func GivesFrames(e Endpoint) bool {
	g, ok := e.(FrameGiver)
	return ok && g.GivesFrames()
}

// TxCompleter is a card that reports when the frames it took are freed (the
// stmmac driver's TX clean); TCP Small Queues needs one.
type TxCompleter interface {
	SetTxCompletion(func(frames int))
}

// LockedSender is a card that also takes a frame from a hardware event, with
// the machine lock held: a timer of a model below the stack fires there.
type LockedSender interface {
	Endpoint
	SendLocked(frame []byte) error
}

// ErrClosed is returned by an endpoint or card that has been shut down.
var ErrClosed = errors.New("network card closed")

// ErrBusy is returned by an endpoint or card that has no room now.
var ErrBusy = errors.New("network card busy")
