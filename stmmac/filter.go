package stmmac

import (
	"hash/crc32"
	"math/bits"
)

// hashBin is the multicast/unicast hash bin of a destination address: the upper six
// bits of the bit-reversed CRC-32, as Linux's dwmac1000_set_filter computes them
// (bitrev32(~crc32_le(~0, addr, 6)) >> 26). Bins 0..31 are GMAC_HASH_LOW, 32..63
// GMAC_HASH_HIGH.
func hashBin(addr []byte) uint32 {
	return bits.Reverse32(crc32.ChecksumIEEE(addr[:6])) >> 26
}

func (c *MAC) hashMatch(addr []byte) bool {
	bin := hashBin(addr)
	table := c.macRegs.Get(offHashLow)
	if bin >= 32 {
		table = c.macRegs.Get(offHashHigh)
	}
	return table>>(bin&31)&1 != 0
}

// perfectMatch compares the destination with the enabled DA address registers;
// address 0 is always enabled, the others need AE and honour their byte masks (MBC).
func (c *MAC) perfectMatch(dst []byte) bool {
	for n := range macAddrRegs {
		off := offAddr0High + uint32(8*n)
		high, low := c.macRegs.Get(off), c.macRegs.Get(off+4)
		if n > 0 && (high&addrAE.Mask() == 0 || high&addrSA.Mask() != 0) {
			continue
		}
		regAddr := [6]byte{byte(low), byte(low >> 8), byte(low >> 16), byte(low >> 24), byte(high), byte(high >> 8)}
		var mask uint32
		if n > 0 {
			mask = addrMBC.Get(high)
		}
		match := true
		for i := range 6 {
			if mask>>i&1 == 0 && regAddr[i] != dst[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// addressFilter applies the DA filter of GMAC_FRAME_FILTER. pass says whether the
// frame goes on to the DMA; daFail is the RDES0 "DA filter fail" status (receive-all
// mode passes failing frames with it set). The SA filter is not modelled.
func (c *MAC) addressFilter(frame []byte) (pass, daFail bool) {
	ff := c.macRegs.Get(offFrameFilter)
	if ff&ffPR.Mask() != 0 {
		return true, false
	}
	dst := frame[:6]
	var match bool
	switch {
	case isBroadcast(frame):
		match = ff&ffDBF.Mask() == 0
	case dst[0]&1 != 0 && ff&ffPM.Mask() != 0:
		match = true
	default:
		hashMode := ffHUC.Mask()
		if dst[0]&1 != 0 {
			hashMode = ffHMC.Mask()
		}
		if ff&hashMode != 0 {
			match = c.hashMatch(dst) || (ff&ffHPF.Mask() != 0 && c.perfectMatch(dst))
		} else {
			match = c.perfectMatch(dst)
		}
		if ff&ffDAIF.Mask() != 0 {
			match = !match
		}
	}
	if ff&ffRA.Mask() != 0 {
		return true, !match
	}
	return match, !match
}

// controlFrameFilter applies PCF to MAC control frames (EtherType 0x8808): 0 drops
// them all, 1 forwards all but PAUSE, 2 forwards all, 3 forwards those that passed the
// address filter.
func (c *MAC) controlFrameFilter(frame []byte, addressPass bool) bool {
	switch ffPCF.Get(c.macRegs.Get(offFrameFilter)) {
	case 1:
		return len(frame) < 16 || frame[14] != 0 || frame[15] != 1
	case 2:
		return true
	case 3:
		return addressPass
	}
	return false
}
