package stmmac

import (
	"encoding/binary"
)

// Ethernet constants.
const (
	etherTypeIPv4    = 0x0800
	etherTypeIPv6    = 0x86dd
	etherTypeVLAN    = 0x8100
	etherTypeControl = 0x8808
	etherTypeMin     = 0x0600 // smaller values are 802.3 length fields
	ethHeaderLen     = 14
	vlanTagLen       = 4
	minRxFrame       = 64   // runt / undersize boundary, FCS included
	maxUntagged      = 1518 // giant boundary without JE / 2KPE, FCS included
	max2K            = 2000
	maxJumbo         = 9018
	minHeaderAndFCS  = ethHeaderLen + fcsLen
)

func isBroadcast(frame []byte) bool {
	return len(frame) >= 6 && frame[0]&frame[1]&frame[2]&frame[3]&frame[4]&frame[5] == 0xff
}

// etherType returns the frame's type/length field after an optional 802.1Q tag and the
// offset of the layer-3 header. ok is false when the frame is too short to say.
func etherType(frame []byte) (typ uint16, l3 int, vlan bool, ok bool) {
	if len(frame) < ethHeaderLen {
		return 0, 0, false, false
	}
	typ = binary.BigEndian.Uint16(frame[12:14])
	if typ != etherTypeVLAN {
		return typ, ethHeaderLen, false, true
	}
	if len(frame) < ethHeaderLen+vlanTagLen {
		return typ, ethHeaderLen, true, false
	}
	return binary.BigEndian.Uint16(frame[16:18]), ethHeaderLen + vlanTagLen, true, true
}
