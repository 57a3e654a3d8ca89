package stmmac

// Normal descriptor bits (descs.h). The hardware keeps its own copy, as Linux does.
const (
	descOWN = 1 << 31

	// TDES0 status, written back.
	tdes0VLAN      = 1 << 7
	tdes0PayloadCE = 1 << 12
	tdes0Flushed   = 1 << 13
	tdes0Jabber    = 1 << 14
	tdes0ES        = 1 << 15
	tdes0IPHeader  = 1 << 16

	// TDES1 control.
	tdes1TBS1Mask  = 0x7ff
	tdes1TBS2Shift = 11
	tdes1DP        = 1 << 23
	tdes1TCH       = 1 << 24
	tdes1TER       = 1 << 25
	tdes1DC        = 1 << 26
	tdes1CICShift  = 27
	tdes1FS        = 1 << 29
	tdes1LS        = 1 << 30
	tdes1IC        = 1 << 31

	// RDES0 status, written whole on completion.
	rdes0PayloadCE  = 1 << 0
	rdes0CRC        = 1 << 1
	rdes0Watchdog   = 1 << 4
	rdes0FrameType  = 1 << 5
	rdes0IPCGiant   = 1 << 7
	rdes0LS         = 1 << 8
	rdes0FS         = 1 << 9
	rdes0VLAN       = 1 << 10
	rdes0Overflow   = 1 << 11
	rdes0DescError  = 1 << 14
	rdes0ES         = 1 << 15
	rdes0FLShift    = 16
	rdes0FLMax      = 0x3fff
	rdes0DAFilterFl = 1 << 30

	// RDES1 control.
	rdes1RBS1Mask  = 0x7ff
	rdes1RBS2Shift = 11
	rdes1RCH       = 1 << 24
	rdes1RER       = 1 << 25
	rdes1DIC       = 1 << 31

	descBufSizeMask = 0x7ff
	descBytes       = 16 // normal descriptor
	altDescBytes    = 32 // ATDS
)
