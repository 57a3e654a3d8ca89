// Package capture records what crosses the emulated cable as pcapng (the tshark view).
// Outside the bus: it watches the wire between the hardware models, touching neither side.
//
// It records the frames that cross the emulated cable into a pcapng
// file (package pcap), flagging each the way a receiver would see it. It is a
// platform.Tap, so it works the same for the main job, linktest and TAP runs.
package capture

import (
	"fmt"
	"os"

	"mesonemu/ether"
	"mesonemu/pcap"
	"mesonemu/platform"
)

// Capture writes every frame that crossed the wire. Its Tap runs under the
// machine lock, so its fields need no lock of their own; the writer's buffer
// reaches the file from there too (one write per 64 KiB).
type Capture struct {
	f *os.File
	w *pcap.Writer
	// wallOffset turns virtual time into the file's timestamps (0: virtual
	// time since power-on; in real-time mode the Unix time of power-on, so the
	// file lines up with a capture on the host side).
	wallOffset int64
	// Frames, BadFCS and SFDErrors count what was written.
	Frames, BadFCS, SFDErrors uint64
	err                       error
}

// Create opens path and writes the file header. name labels the interface.
func Create(path, name, comment string, wallOffset int64) (*Capture, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("pcap: %w", err)
	}
	w, err := pcap.NewWriter(f, name, comment)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Capture{f: f, w: w, wallOffset: wallOffset}, nil
}

// Flags says what a receiver of this frame would see. The CRC flag is the FCS
// check itself, not the wire's report, so it matches what tshark computes.
func Flags(fr *platform.Frame) (f uint32, bad bool) {
	if fr.Dir == platform.TX {
		f = pcap.FlagOutbound // seen from the board
	} else {
		f = pcap.FlagInbound
	}
	if !ether.CheckFCS(fr.After) {
		f |= pcap.FlagCRCError
		bad = true
	}
	if fr.Wire.SFDDamaged {
		f |= pcap.FlagSFDError
	}
	if fr.Wire.PreambleDamaged {
		f |= pcap.FlagPreambleError
	}
	return f, bad
}

// Tap is the platform.Tap that records a frame.
func (c *Capture) Tap(fr *platform.Frame) {
	if c.err != nil {
		return
	}
	f, bad := Flags(fr)
	if err := c.w.WriteFrame(int64(fr.At)+c.wallOffset, fr.After, f); err != nil {
		c.err = err
		return
	}
	c.Frames++
	if bad {
		c.BadFCS++
	}
	if fr.Wire.SFDDamaged {
		c.SFDErrors++
	}
}

// Close flushes and closes the file; it reports the first write error. Call it
// with the machine stopped or its lock held.
func (c *Capture) Close() error {
	err := c.err
	if err == nil {
		err = c.w.Flush()
	}
	if cerr := c.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("pcap: %w", cerr)
	}
	return err
}
