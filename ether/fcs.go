package ether

import (
	"encoding/binary"
	"hash/crc32"
)

// FCS is the frame check sequence of frame (the bytes from the destination address
// to the end of the payload): the IEEE CRC-32, which Ethernet sends least
// significant byte first.
func FCS(frame []byte) uint32 { return crc32.ChecksumIEEE(frame) }

// AppendFCS appends frame's FCS in wire order (little-endian) and returns the
// extended slice, as a transmitting MAC does after the last payload byte.
func AppendFCS(frame []byte) []byte {
	return binary.LittleEndian.AppendUint32(frame, FCS(frame))
}

// CheckFCS reports whether the last FCSLen bytes of frameWithFCS are the FCS of
// the bytes before them. Anything shorter than an FCS fails.
func CheckFCS(frameWithFCS []byte) bool {
	n := len(frameWithFCS) - FCSLen
	if n < 0 {
		return false
	}
	return FCS(frameWithFCS[:n]) == binary.LittleEndian.Uint32(frameWithFCS[n:])
}
