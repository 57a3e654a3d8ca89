// Package tcpseg reads Ethernet/IP/TCP headers for the code that watches frames below a stack.
// Above the bus: a helper of the network stacks.
//
// It is the one reader of Ethernet/IP/TCP headers for the code
// that watches frames below a stack (TCP Small Queues, the delayed-ACK policy,
// the bench's loss accounting).
package tcpseg

import (
	"encoding/binary"
	"net/netip"

	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// FlowKey names a TCP flow from the point of view of the frame's sender.
type FlowKey struct {
	Local, Remote netip.Addr // IPv4 or IPv6
	LPort, RPort  uint16
}

// Reverse is the same flow seen from the other end.
func (k FlowKey) Reverse() FlowKey {
	return FlowKey{Local: k.Remote, Remote: k.Local, LPort: k.RPort, RPort: k.LPort}
}

// Segment is what the link-layer models need of one TCP segment.
type Segment struct {
	Key      FlowKey
	Seq, Ack uint32
	Payload  int // bytes of data
	HasACK   bool
	// PureACK: only the ACK flag, no data, no SACK blocks.
	PureACK bool
}

const eth = header.EthernetMinimumSize

// Parse reads an Ethernet frame (bytes after the IP packet, padding or an
// FCS, are ignored); false when it is not an unfragmented IPv4/TCP segment,
// or an IPv6/TCP one without extension headers, whose headers agree with the
// frame's length.
func Parse(frame []byte) (Segment, bool) {
	if len(frame) < eth {
		return Segment{}, false
	}
	var seg Segment
	var tcp header.TCP
	switch binary.BigEndian.Uint16(frame[12:14]) {
	case uint16(header.IPv4ProtocolNumber):
		t, src, dst, ok := parseIPv4(frame)
		if !ok {
			return Segment{}, false
		}
		tcp, seg.Key.Local, seg.Key.Remote = t, netip.AddrFrom4(src), netip.AddrFrom4(dst)
	case uint16(header.IPv6ProtocolNumber):
		t, src, dst, ok := parseIPv6(frame)
		if !ok {
			return Segment{}, false
		}
		tcp, seg.Key.Local, seg.Key.Remote = t, netip.AddrFrom16(src), netip.AddrFrom16(dst)
	default:
		return Segment{}, false
	}
	off := int(tcp.DataOffset())
	if off < header.TCPMinimumSize || off > len(tcp) {
		return Segment{}, false
	}
	seg.Key.LPort, seg.Key.RPort = tcp.SourcePort(), tcp.DestinationPort()
	seg.Seq, seg.Ack = tcp.SequenceNumber(), tcp.AckNumber()
	seg.Payload = len(tcp) - off
	seg.HasACK = tcp.Flags()&header.TCPFlagAck != 0
	seg.PureACK = tcp.Flags() == header.TCPFlagAck && seg.Payload == 0 && !hasSACK(tcp[header.TCPMinimumSize:off])
	return seg, true
}

// parseIPv4 finds the TCP segment of an unfragmented IPv4 packet.
func parseIPv4(frame []byte) (tcp header.TCP, src, dst [4]byte, ok bool) {
	if len(frame) < eth+header.IPv4MinimumSize {
		return nil, src, dst, false
	}
	ip := header.IPv4(frame[eth:])
	if !ip.IsValid(len(frame)-eth) || ip.Protocol() != uint8(header.TCPProtocolNumber) || ip.FragmentOffset() != 0 || ip.More() {
		return nil, src, dst, false
	}
	ihl, total := int(ip.HeaderLength()), int(ip.TotalLength())
	if total < ihl+header.TCPMinimumSize {
		return nil, src, dst, false
	}
	return header.TCP(frame[eth+ihl : eth+total]), ip.SourceAddress().As4(), ip.DestinationAddress().As4(), true
}

// parseIPv6 finds the TCP segment of an IPv6 packet whose next header is TCP.
func parseIPv6(frame []byte) (tcp header.TCP, src, dst [16]byte, ok bool) {
	if len(frame) < eth+header.IPv6MinimumSize {
		return nil, src, dst, false
	}
	ip := header.IPv6(frame[eth:])
	payload := int(ip.PayloadLength())
	if !ip.IsValid(len(frame)-eth) || ip.NextHeader() != uint8(header.TCPProtocolNumber) || payload < header.TCPMinimumSize {
		return nil, src, dst, false
	}
	end := eth + header.IPv6MinimumSize + payload
	return header.TCP(frame[eth+header.IPv6MinimumSize : end]), ip.SourceAddress().As16(), ip.DestinationAddress().As16(), true
}

// hasSACK reports whether TCP options carry SACK blocks (kind 5).
func hasSACK(opts []byte) bool {
	for i := 0; i < len(opts); {
		switch kind := opts[i]; {
		case kind == 0: // end of options
			return false
		case kind == 1: // no-op
			i++
		case i+1 >= len(opts) || opts[i+1] < 2:
			return false // malformed: let it through as it is
		case kind == 5:
			return true
		default:
			i += int(opts[i+1])
		}
	}
	return false
}

// SeqAfter reports a > b in sequence space.
func SeqAfter(a, b uint32) bool { return int32(a-b) > 0 }
