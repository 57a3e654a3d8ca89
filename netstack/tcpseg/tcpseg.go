// Package tcpseg is the one reader of Ethernet/IPv4/TCP headers for the code
// that watches frames below a stack (TCP Small Queues, the delayed-ACK policy,
// the bench's loss accounting).
package tcpseg

import (
	"encoding/binary"

	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// FlowKey names a TCP flow from the point of view of the frame's sender.
type FlowKey struct {
	Local, Remote [4]byte
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

// Parse reads an Ethernet frame (bytes after the IP packet, padding or an
// FCS, are ignored); false when it is not an unfragmented IPv4/TCP segment
// whose headers agree with the frame's length.
func Parse(frame []byte) (Segment, bool) {
	const eth = header.EthernetMinimumSize
	if len(frame) < eth+header.IPv4MinimumSize || binary.BigEndian.Uint16(frame[12:14]) != uint16(header.IPv4ProtocolNumber) {
		return Segment{}, false
	}
	ip := header.IPv4(frame[eth:])
	if !ip.IsValid(len(frame)-eth) || ip.Protocol() != uint8(header.TCPProtocolNumber) || ip.FragmentOffset() != 0 || ip.More() {
		return Segment{}, false
	}
	ihl, total := int(ip.HeaderLength()), int(ip.TotalLength())
	if total < ihl+header.TCPMinimumSize {
		return Segment{}, false
	}
	tcp := header.TCP(frame[eth+ihl : eth+total])
	off := int(tcp.DataOffset())
	if off < header.TCPMinimumSize || off > len(tcp) {
		return Segment{}, false
	}
	var seg Segment
	seg.Key.Local, seg.Key.Remote = ip.SourceAddress().As4(), ip.DestinationAddress().As4()
	seg.Key.LPort, seg.Key.RPort = tcp.SourcePort(), tcp.DestinationPort()
	seg.Seq, seg.Ack = tcp.SequenceNumber(), tcp.AckNumber()
	seg.Payload = len(tcp) - off
	seg.HasACK = tcp.Flags()&header.TCPFlagAck != 0
	seg.PureACK = tcp.Flags() == header.TCPFlagAck && seg.Payload == 0 && !hasSACK(tcp[header.TCPMinimumSize:off])
	return seg, true
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
