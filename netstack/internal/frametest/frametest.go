// Package frametest builds the Ethernet/IPv4/TCP frames the link models' tests use.
// Above the bus: a test helper of the network stacks.
//
// It builds the Ethernet/IPv4/TCP frames the link models'
// tests feed them.
package frametest

import (
	"encoding/binary"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// The two hosts' addresses in the tests.
var (
	Board = [4]byte{198, 18, 0, 2}
	PC    = [4]byte{198, 18, 0, 1}
)

// TCP builds an Ethernet/IPv4/TCP frame from src to dst with the ACK flag and
// a timestamp option's worth of option space, as Linux sends.
func TCP(src, dst [4]byte, sport, dport uint16, seq, ack uint32, payload int) []byte {
	const tcpLen = header.TCPMinimumSize + 12
	f := make([]byte, header.EthernetMinimumSize+header.IPv4MinimumSize+tcpLen+payload)
	binary.BigEndian.PutUint16(f[12:], uint16(header.IPv4ProtocolNumber))
	ip := header.IPv4(f[header.EthernetMinimumSize:])
	ip.Encode(&header.IPv4Fields{
		TotalLength: uint16(header.IPv4MinimumSize + tcpLen + payload), TTL: 64,
		Protocol: uint8(header.TCPProtocolNumber),
		SrcAddr:  tcpip.AddrFrom4(src), DstAddr: tcpip.AddrFrom4(dst),
	})
	ip.SetChecksum(^ip.CalculateChecksum())
	putTCP(ip[header.IPv4MinimumSize:], sport, dport, seq, ack)
	return f
}

// putTCP writes the TCP header: ACK, a timestamp option's worth of space.
func putTCP(b []byte, sport, dport uint16, seq, ack uint32) {
	header.TCP(b).Encode(&header.TCPFields{
		SrcPort: sport, DstPort: dport, SeqNum: seq, AckNum: ack,
		DataOffset: header.TCPMinimumSize + 12, Flags: header.TCPFlagAck, WindowSize: 65535,
	})
}

// Data is a full-sized data segment from the board to the PC's iperf3 port.
func Data(seq uint32) []byte { return TCP(Board, PC, 40000, 5201, seq, 1, 1448) }

// Ack is the PC's pure ACK of the board's flow.
func Ack(ack uint32) []byte { return TCP(PC, Board, 5201, 40000, 1, ack, 0) }

// WithSACK puts one SACK block into a frame's option space (NOP, NOP, kind 5,
// length 10, one left/right edge pair), as a receiver that saw a hole sends.
func WithSACK(f []byte) []byte {
	opts := f[header.EthernetMinimumSize+header.IPv4MinimumSize+header.TCPMinimumSize:]
	copy(opts, []byte{1, 1, 5, 10, 0, 0, 0x10, 0, 0, 0, 0x20, 0})
	return f
}

// The two hosts' IPv6 addresses in the tests (RFC 5180's range).
var (
	Board6 = [16]byte{0x20, 0x01, 0, 2, 14: 0, 15: 2}
	PC6    = [16]byte{0x20, 0x01, 0, 2, 14: 0, 15: 1}
)

// TCP6 is TCP over IPv6: the same segment behind a 40-byte IPv6 header.
func TCP6(src, dst [16]byte, sport, dport uint16, seq, ack uint32, payload int) []byte {
	const tcpLen = header.TCPMinimumSize + 12
	f := make([]byte, header.EthernetMinimumSize+header.IPv6MinimumSize+tcpLen+payload)
	binary.BigEndian.PutUint16(f[12:], uint16(header.IPv6ProtocolNumber))
	ip := header.IPv6(f[header.EthernetMinimumSize:])
	ip.Encode(&header.IPv6Fields{
		PayloadLength: uint16(tcpLen + payload), TransportProtocol: header.TCPProtocolNumber, HopLimit: 64,
		SrcAddr: tcpip.AddrFrom16(src), DstAddr: tcpip.AddrFrom16(dst),
	})
	putTCP(ip[header.IPv6MinimumSize:], sport, dport, seq, ack)
	return f
}
