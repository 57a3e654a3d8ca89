// Package ether holds the Ethernet facts every frame-carrying model shares (FCS, sizes, timing).
// The medium both sides share: plain functions and constants, no device.
//
// It holds the Ethernet facts every frame-carrying model shares: the
// frame check sequence (CRC-32 as IEEE 802.3 appends it), frame size limits, the
// wire time of a frame at a line rate, and MAC addresses.
//
// It is hardware-neutral: the MAC model, the wire and the far-end NIC all use it,
// and it imports nothing but emu (for emu.Time).
package ether

// Sizes of the parts of a frame on the wire, in bytes (IEEE 802.3 clause 3-4).
const (
	PreambleLen    = 7 // 0x55 bytes before the SFD
	SFDLen         = 1 // start frame delimiter 0xd5
	PreambleSFDLen = PreambleLen + SFDLen
	HeaderLen      = 14 // destination, source, EtherType
	FCSLen         = 4  // CRC-32 frame check sequence
	IFGLen         = 12 // minimum inter-frame gap, in byte times

	// MinFrameLen is the shortest valid frame including the FCS; shorter ones are
	// runts. A transmitter pads its data to MinFrameLen-FCSLen bytes first.
	MinFrameLen = 64
	// MinFrameLenNoFCS is what a transmitter pads short frames to before the FCS.
	MinFrameLenNoFCS = MinFrameLen - FCSLen
	// MaxFrameLen is the longest untagged frame including the FCS (1500-byte MTU).
	MaxFrameLen = 1518
	// MaxVLANFrameLen is the longest 802.1Q-tagged frame including the FCS; most
	// NICs accept it by default, so it is the default giant threshold.
	MaxVLANFrameLen = 1522
	// MaxFrameLenNoFCS is the longest untagged frame a stack hands to a NIC.
	MaxFrameLenNoFCS = MaxFrameLen - FCSLen
)

// Bytes that delimit a frame on the wire.
const (
	PreambleByte = 0x55
	SFDByte      = 0xd5
)
