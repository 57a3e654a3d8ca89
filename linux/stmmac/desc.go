package stmmac

// Normal (16-byte) descriptors in ring mode, as Linux v5.4's descs.h, norm_desc.c,
// descs_com.h and ring_mode.c define and use them.

const descSize = 16 // four little-endian 32-bit words

// Word offsets inside a descriptor.
const (
	des0 = 0
	des1 = 4
	des2 = 8
	des3 = 12
)

// RDES0 (written back by the DMA).
const (
	rdes0PayloadCsumErr  = 1 << 0
	rdes0CRCError        = 1 << 1
	rdes0Dribbling       = 1 << 2
	rdes0MIIError        = 1 << 3
	rdes0RxWatchdog      = 1 << 4
	rdes0FrameType       = 1 << 5
	rdes0Collision       = 1 << 6
	rdes0IPCCsumError    = 1 << 7
	rdes0LastDescriptor  = 1 << 8
	rdes0FirstDescriptor = 1 << 9
	rdes0VLANTag         = 1 << 10
	rdes0OverflowError   = 1 << 11
	rdes0LengthError     = 1 << 12
	rdes0SAFilterFail    = 1 << 13
	rdes0DescriptorError = 1 << 14
	rdes0ErrorSummary    = 1 << 15
	rdes0FrameLenMask    = 0x3fff0000
	rdes0FrameLenShift   = 16
	rdes0DAFilterFail    = 1 << 30
	rdes0OWN             = 1 << 31
)

// RDES1 (written by the driver).
const (
	rdes1Buffer1SizeMask  = 0x7ff
	rdes1Buffer2SizeMask  = 0x3ff800
	rdes1Buffer2SizeShift = 11
	rdes1EndRing          = 1 << 25
	rdes1DisableIC        = 1 << 31
)

// TDES0 (written back by the DMA).
const (
	tdes0Deferred            = 1 << 0
	tdes0UnderflowError      = 1 << 1
	tdes0ExcessiveDeferral   = 1 << 2
	tdes0CollisionCountMask  = 0x78
	tdes0CollisionCountShift = 3
	tdes0VLANFrame           = 1 << 7
	tdes0ExcessiveCollisions = 1 << 8
	tdes0LateCollision       = 1 << 9
	tdes0NoCarrier           = 1 << 10
	tdes0LossCarrier         = 1 << 11
	tdes0ErrorSummary        = 1 << 15
	tdes0OWN                 = 1 << 31
)

// TDES1 (written by the driver).
const (
	tdes1Buffer1SizeMask  = 0x7ff
	tdes1Buffer2SizeMask  = 0x3ff800
	tdes1Buffer2SizeShift = 11
	tdes1EndRing          = 1 << 25
	tdes1FirstSegment     = 1 << 29
	tdes1LastSegment      = 1 << 30
	tdes1Interrupt        = 1 << 31
)

// bufSize2KiB is BUF_SIZE_2KiB; one normal-descriptor buffer holds at most 2047 bytes.
const bufSize2KiB = 2048

// rxDes1 is RDES1 as ndesc_init_rx_desc leaves it in ring mode: RBS1 = min(bufsize,
// 2047), RBS2 only for buffers of 2 KiB or more, RER on the last descriptor and DIC
// when RX interrupt mitigation (RIWT) is in use.
func rxDes1(bufSize int, last, disableIC bool) uint32 {
	v := uint32(min(bufSize, bufSize2KiB-1)) & rdes1Buffer1SizeMask
	if bufSize >= bufSize2KiB {
		b2 := min(bufSize-bufSize2KiB+1, bufSize2KiB-1)
		v |= uint32(b2<<rdes1Buffer2SizeShift) & rdes1Buffer2SizeMask
	}
	if last {
		v |= rdes1EndRing
	}
	if disableIC {
		v |= rdes1DisableIC
	}
	return v
}

// txLenBits is norm_set_tx_desc_len_on_ring: a length above 2047 bytes puts 2047 in
// TBS1 and the rest in TBS2.
func txLenBits(n int) uint32 {
	const max1 = bufSize2KiB - 1
	if n > max1 {
		return uint32((n-max1)<<tdes1Buffer2SizeShift)&tdes1Buffer2SizeMask | max1&tdes1Buffer1SizeMask
	}
	return uint32(n) & tdes1Buffer1SizeMask
}

// rxFrameLen is the FL field of RDES0 (FCS included).
func rxFrameLen(rdes0 uint32) int { return int(rdes0&rdes0FrameLenMask) >> rdes0FrameLenShift }
