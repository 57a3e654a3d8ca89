package rgmiiwire

import "mesonemu/ether"

// The frame as it crosses the wire is the preamble, the SFD, then the frame bytes
// including the FCS. Line k's sample sequence is bit k of successive nibbles: the
// low nibble of each byte first (the rising edge at 1000 Mbit/s), then the high
// nibble (the falling edge). Sample j lies in wire byte j/2.
//
// Assumption: the data lines are idle low (0) before and after a frame. GMII
// leaves TXD undefined while TX_EN is low; driving 0 is what MACs commonly do, and
// it decides only the first sample's setup-side neighbour and the last sample's
// hold-side neighbour.

// wireByte is byte i of the wire stream for frame (preamble, SFD, frame); idle
// outside it.
func wireByte(frame []byte, i int) byte {
	switch {
	case i < 0:
		return 0
	case i < ether.PreambleLen:
		return ether.PreambleByte
	case i < ether.PreambleSFDLen:
		return ether.SFDByte
	case i-ether.PreambleSFDLen < len(frame):
		return frame[i-ether.PreambleSFDLen]
	}
	return 0
}

// nibbleAt is nibble j of the wire stream (all four lines' sample j).
func nibbleAt(frame []byte, j int) byte {
	return wireByte(frame, j>>1) >> (uint(j&1) * 4) & 0xf
}

// sampleBit is line k's bit in sample j of the wire stream.
func sampleBit(frame []byte, j, k int) byte {
	return nibbleAt(frame, j) >> uint(k) & 1
}

// samplesPerLine is the number of samples each line carries for a frame of
// frameLenWithFCS bytes.
func samplesPerLine(frameLenWithFCS int) int {
	return 2 * (ether.PreambleSFDLen + frameLenWithFCS)
}
