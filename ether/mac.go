package ether

import (
	"fmt"
	"net"
)

// MAC is a 48-bit IEEE 802 MAC address.
type MAC [6]byte

// Broadcast is ff:ff:ff:ff:ff:ff.
var Broadcast = MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// ParseMAC parses a 48-bit address in any notation net.ParseMAC accepts
// ("00:1e:06:61:7a:39", "00-1e-06-61-7a-39", "001e.0661.7a39"). Longer EUI-64 or
// InfiniBand forms are refused.
func ParseMAC(s string) (MAC, error) {
	hw, err := net.ParseMAC(s)
	if err != nil {
		return MAC{}, fmt.Errorf("parse MAC address %q: %w", s, err)
	}
	if len(hw) != len(MAC{}) {
		return MAC{}, fmt.Errorf("parse MAC address %q: %d bytes, want 6", s, len(hw))
	}
	var m MAC
	copy(m[:], hw)
	return m, nil
}

// String formats the address as lower-case colon-separated hex.
func (m MAC) String() string { return net.HardwareAddr(m[:]).String() }

// IsMulticast reports whether the group bit (bit 0 of the first byte) is set;
// broadcast is a multicast address too.
func (m MAC) IsMulticast() bool { return m[0]&1 == 1 }

// IsBroadcast reports whether m is ff:ff:ff:ff:ff:ff.
func (m MAC) IsBroadcast() bool { return m == Broadcast }

// IsZero reports whether m is 00:00:00:00:00:00 (no address assigned).
func (m MAC) IsZero() bool { return m == MAC{} }
