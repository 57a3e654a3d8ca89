package netstack

import (
	"fmt"
	"net"
	"net/netip"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv6"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// IPv6 is opt-in: a host gets gVisor's ipv6 protocol only when its config
// carries an IPv6 address, so an IPv4-only host's stack, and every frame it
// sends, stay what they were.

// ipv6Protocol is gVisor's IPv6 with NDP, configured for a deterministic
// point-to-point cable. Every one of these is gVisor's zero value, chosen on
// purpose and spelled out: no duplicate address detection (the address is
// usable at once, and no DAD probe with its random delay goes out), no router
// solicitations (there is no router on the cable), no MLD reports (nothing
// snoops multicast on a direct cable), no link-local or SLAAC addresses (each
// host has exactly the one address it was given). What IPv6 sends is then only
// what the test makes it send: neighbour solicitations and advertisements
// when a host first talks to the other, and the test's own packets.
func ipv6Protocol() stack.NetworkProtocolFactory {
	return ipv6.NewProtocolWithOptions(ipv6.Options{
		NDPConfigs:       ipv6.NDPConfigurations{MaxRtrSolicitations: 0},
		AutoGenLinkLocal: false,
		MLD:              ipv6.MLDOptions{Enabled: false},
		DADConfigs:       stack.DADConfigurations{DupAddrDetectTransmits: 0},
	})
}

func checkAddr6(cfg HostConfig) error {
	if !cfg.Addr6.IsValid() {
		return nil
	}
	a := cfg.Addr6.Addr()
	if !a.Is6() || a.Is4In6() || !a.IsGlobalUnicast() || cfg.Addr6.Bits() > 126 {
		return fmt.Errorf("host %s: IPv6 address %v is not a global unicast IPv6 address with a prefix up to /126", cfg.Name, cfg.Addr6)
	}
	return nil
}

// MulticastFilter is a card whose receive filter the host programs with the
// link-layer groups its addresses join, as Linux's ndo_set_rx_mode does. A
// card without one (the PC's) passes every multicast frame.
type MulticastFilter interface {
	SetMulticast(groups [][6]byte) error
}

// allNodesMAC is the Ethernet group of ff02::1 (RFC 2464: 33:33 and the
// address's last four bytes).
var allNodesMAC = [6]byte{0x33, 0x33, 0, 0, 0, 1}

// SolicitedNodeMAC is the Ethernet group of the solicited-node multicast
// address of a (ff02::1:ffXX:XXXX): neighbour solicitations for a go there.
func SolicitedNodeMAC(a netip.Addr) [6]byte {
	b := a.As16()
	return [6]byte{0x33, 0x33, 0xff, b[13], b[14], b[15]}
}

// IPv6Groups are the Ethernet groups a host with IPv6 address a joins: the
// all-nodes group and a's solicited-node group (Linux joins both for every
// address; a host here has one).
func IPv6Groups(a netip.Addr) [][6]byte {
	return [][6]byte{allNodesMAC, SolicitedNodeMAC(a)}
}

// addIPv6 gives the stack its IPv6 address and programs the card's filter
// for the groups the address joins; it returns the on-link route.
func addIPv6(s *stack.Stack, cfg HostConfig) (tcpip.Route, error) {
	pa := tcpip.ProtocolAddress{
		Protocol: ipv6.ProtocolNumber,
		AddressWithPrefix: tcpip.AddressWithPrefix{
			Address:   tcpip.AddrFrom16(cfg.Addr6.Addr().As16()),
			PrefixLen: cfg.Addr6.Bits(),
		},
	}
	if err := s.AddProtocolAddress(1, pa, stack.AddressProperties{}); err != nil {
		return tcpip.Route{}, fmt.Errorf("add IPv6 address: %s", err)
	}
	if mf, ok := cfg.NIC.(MulticastFilter); ok {
		if err := mf.SetMulticast(IPv6Groups(cfg.Addr6.Addr())); err != nil {
			return tcpip.Route{}, fmt.Errorf("program the multicast filter: %w", err)
		}
	}
	return tcpip.Route{Destination: pa.AddressWithPrefix.Subnet(), NIC: 1}, nil
}

// Addr6 is the host's IPv6 address; invalid when it has none.
func (h *Host) Addr6() netip.Addr {
	if !h.addr6.IsValid() {
		return netip.Addr{}
	}
	return h.addr6.Addr()
}

// HasIPv6 reports whether the host's stack speaks IPv6.
func (h *Host) HasIPv6() bool { return h.addr6.IsValid() }

// Network families a listener can take, as Go's net package names them:
// "tcp" (or "udp") is dual-stack on a host with IPv6 and IPv4 on one without;
// "tcp4" IPv4 only; "tcp6" IPv6 only (IPV6_V6ONLY).
type family int

const (
	familyAny family = iota
	family4
	family6
)

func parseFamily(network string) (family, error) {
	switch network {
	case "tcp", "udp", "":
		return familyAny, nil
	case "tcp4", "udp4":
		return family4, nil
	case "tcp6", "udp6":
		return family6, nil
	}
	return 0, fmt.Errorf("network %q: want tcp, tcp4 or tcp6 (udp, udp4, udp6)", network)
}

// listenEndpoint says which protocol a listening socket of family f opens on
// h, and whether it is IPv6-only. An IPv4-only host listens on IPv4 as
// before; a host with IPv6 listens dual-stack, as Linux's iperf3 does by
// default (an IPv6 socket with IPV6_V6ONLY off: gVisor then also takes IPv4).
func (h *Host) listenEndpoint(f family) (proto tcpip.NetworkProtocolNumber, v6only bool, err error) {
	switch {
	case f == family4 || (f == familyAny && !h.HasIPv6()):
		return ipv4.ProtocolNumber, false, nil
	case !h.HasIPv6():
		return 0, false, fmt.Errorf("host %s has no IPv6 address", h.Name)
	}
	return ipv6.ProtocolNumber, f == family6, nil
}

// listenAddr is the address a listener of protocol proto reports.
func (h *Host) listenAddr(proto tcpip.NetworkProtocolNumber) netip.Addr {
	if proto == ipv6.ProtocolNumber {
		return h.addr6.Addr()
	}
	return h.addr.Addr()
}

// headerLen is the IP header a packet to a carries: 20 bytes for IPv4, 40
// for IPv6.
func headerLen(a netip.Addr) int {
	if a.Is4() {
		return header.IPv4MinimumSize
	}
	return header.IPv6MinimumSize
}

// dialProto is the protocol of a socket that talks to remote; an IPv6 peer
// needs a host with IPv6.
func (h *Host) dialProto(remote tcpip.FullAddress) (tcpip.NetworkProtocolNumber, error) {
	if remote.Addr.BitLen() == header.IPv4AddressSizeBits {
		return ipv4.ProtocolNumber, nil
	}
	if !h.HasIPv6() {
		return 0, fmt.Errorf("host %s has no IPv6 address", h.Name)
	}
	return ipv6.ProtocolNumber, nil
}

// connMSS is the connection's MSS as Linux's tcp_info reports it: 1448 over
// IPv4, 20 bytes less over IPv6 (its header is 40 bytes, not 20).
func connMSS(c *Conn) uint64 {
	if a, ok := c.local.(*net.TCPAddr); ok && a.IP.To4() == nil {
		return mss - (header.IPv6MinimumSize - header.IPv4MinimumSize)
	}
	return mss
}
