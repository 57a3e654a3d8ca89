package netstack

import "mesonemu/netstack/link"

// FrameNIC is the card a host sits on: the bottom of its link path.
type FrameNIC = link.Endpoint

// The cards' errors (package link).
var (
	ErrClosed = link.ErrClosed
	ErrBusy   = link.ErrBusy
)
