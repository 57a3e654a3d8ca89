package platform

import (
	"fmt"

	"mesonemu/emu"
	"mesonemu/rgmiiwire"
)

// Direction of a frame on the cable.
type Direction uint8

// Directions, named from the board's point of view.
const (
	TX Direction = iota // board -> far end
	RX                  // far end -> board
)

func (d Direction) String() string {
	if d == TX {
		return "tx"
	}
	return "rx"
}

// Frame is what an observer sees of one frame that crossed the wire. Before and
// After are only valid during the Tap call (the platform reuses the buffers); a
// tap copies what it keeps.
type Frame struct {
	Dir Direction
	At  emu.Time // virtual time the frame left the wire
	// Before is the frame as it entered the wire, After as it left it (FCS
	// included in both); they differ only where Wire.FrameDamaged.
	Before, After []byte
	Wire          rgmiiwire.Result
}

// Tap observes every frame that crossed the wire, in both directions. It runs
// with the machine lock held (a hardware event) and must not block.
type Tap func(f *Frame)

// crossing counts what happened to the frames of one direction, so that
// sent = delivered + drops by cause holds exactly.
type crossing struct {
	sent      uint64 // frames the sender put on its lines
	noClock   uint64 // the sender's RGMII clock is gated or has no source
	noLink    uint64 // the PHY has no link on the cable
	badTiming uint64 // no timing could be derived for the wire
	damaged   uint64 // the wire changed a bit
	sfdLost   uint64 // the receiver never saw a frame start
	delivered uint64 // handed to the receiver
}

// direction carries frames one way: through the PHY and the RGMII wire, to the
// observers, and into the receiver. TX and RX are the same path; they differ in
// which stage comes first (phyFirst: on RX the PHY takes the frame off the cable
// before the wire carries it to the MAC) and in who handles a frame whose start
// the wire destroyed: the far-end NIC counts it as an alignment error itself,
// while the MAC's receive path never sees it (dropLostSFD).
type direction struct {
	dir      Direction
	phyFirst bool
	wire     *rgmiiwire.Wire
	// timingOK: the wire holds a timing; timingErr: the wire refused the one the
	// registers and the board give (otherwise the sender's clock is off).
	timingOK, timingErr bool
	dropLostSFD         bool
	ctr                 crossing
	// deliver hands a frame that left the wire to the receiver.
	deliver func(frame []byte, alignErr bool)

	p      *Platform
	before []byte // Frame.Before's buffer, reused
	rec    Frame
}

// configure gives the wire its timing; a refusal is kept in *errp. Lock held.
func (d *direction) configure(t rgmiiwire.Timing, errp *error) {
	if err := d.wire.Configure(t); err != nil {
		*errp = fmt.Errorf("%s wire: %w", t.Direction, err)
		d.timingOK, d.timingErr = false, true
		return
	}
	d.timingOK, d.timingErr = true, false
}

// carry takes one frame from the sender to the receiver. Machine lock held.
func (d *direction) carry(frame []byte) {
	d.ctr.sent++
	if d.phyFirst && !d.p.phy.Link().Up {
		d.ctr.noLink++
		return
	}
	if !d.timingOK {
		if d.timingErr {
			d.ctr.badTiming++
		} else {
			d.ctr.noClock++
		}
		return
	}
	if !d.phyFirst && !d.p.phy.Link().Up {
		d.ctr.noLink++
		return
	}
	taps := d.p.taps
	if len(taps) > 0 {
		d.before = append(d.before[:0], frame...)
	}
	res := d.wire.Transmit(frame)
	if res.Changed() {
		d.ctr.damaged++
	}
	if len(taps) > 0 {
		d.rec = Frame{Dir: d.dir, At: d.p.m.Now(), Before: d.before, After: frame, Wire: res}
		for _, t := range taps {
			t(&d.rec)
		}
	}
	if d.dropLostSFD && res.AlignmentError() {
		d.ctr.sfdLost++
		return
	}
	d.ctr.delivered++
	d.deliver(frame, res.AlignmentError())
}
