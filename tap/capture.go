package tap

import (
	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/pcap"
	"mesonemu/platform"
	"mesonemu/rgmiiwire"
)

// capture writes every frame that crossed the wire into a pcapng file. Its tap
// runs under the machine lock, so its fields need no lock of their own; the
// writer's buffer reaches the file from there too (acceptable: one write per
// 64 KiB).
type capture struct {
	w *pcap.Writer
	// wallOffset turns virtual time into Unix time: in real-time mode the
	// file's timestamps then line up with a capture on the host side.
	wallOffset             int64
	frames, badFCS, sfdErr uint64
	err                    error
}

// flags says what a receiver of this frame would see. The CRC flag is the FCS
// check itself, not the wire's report, so it matches what tshark computes.
func flags(dir platform.Direction, frame []byte, res rgmiiwire.Result) (f uint32, bad bool) {
	if dir == platform.TX {
		f = pcap.FlagOutbound // seen from the board
	} else {
		f = pcap.FlagInbound
	}
	if !ether.CheckFCS(frame) {
		f |= pcap.FlagCRCError
		bad = true
	}
	if res.SFDDamaged {
		f |= pcap.FlagSFDError
	}
	if res.PreambleDamaged {
		f |= pcap.FlagPreambleError
	}
	return f, bad
}

func (c *capture) tap(dir platform.Direction, at emu.Time, frame []byte, res rgmiiwire.Result) {
	if c.err != nil {
		return
	}
	f, bad := flags(dir, frame, res)
	if err := c.w.WriteFrame(int64(at)+c.wallOffset, frame, f); err != nil {
		c.err = err
		return
	}
	c.frames++
	if bad {
		c.badFCS++
	}
	if res.SFDDamaged {
		c.sfdErr++
	}
}
