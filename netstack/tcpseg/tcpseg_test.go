package tcpseg

import (
	"net/netip"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/netstack/internal/frametest"
)

// TestParse: what the parser reads from a frame, and what it refuses.
func TestParse(t *testing.T) {
	board := FlowKey{Local: netip.AddrFrom4(frametest.Board), Remote: netip.AddrFrom4(frametest.PC), LPort: 40000, RPort: 5201}
	board6 := FlowKey{Local: netip.AddrFrom16(frametest.Board6), Remote: netip.AddrFrom16(frametest.PC6), LPort: 40000, RPort: 5201}
	data6 := frametest.TCP6(frametest.Board6, frametest.PC6, 40000, 5201, 7, 1, 1428)
	udp6 := frametest.TCP6(frametest.Board6, frametest.PC6, 40000, 5201, 7, 1, 100)
	udp6[header.EthernetMinimumSize+6] = uint8(header.UDPProtocolNumber)
	data := frametest.Data(7)
	frag := frametest.Data(7)
	header.IPv4(frag[header.EthernetMinimumSize:]).SetFlagsFragmentOffset(header.IPv4FlagMoreFragments, 0)
	for _, c := range []struct {
		name   string
		b      []byte
		want   Segment
		wantOK bool
	}{
		{name: "data segment", b: data, wantOK: true,
			want: Segment{Key: board, Seq: 7, Ack: 1, Payload: 1448, HasACK: true}},
		{name: "pure ACK", b: frametest.Ack(9), wantOK: true,
			want: Segment{Key: board.Reverse(), Seq: 1, Ack: 9, HasACK: true, PureACK: true}},
		{name: "ACK with SACK blocks", b: frametest.WithSACK(frametest.Ack(9)), wantOK: true,
			want: Segment{Key: board.Reverse(), Seq: 1, Ack: 9, HasACK: true}},
		{name: "with its FCS", b: append(frametest.Data(7), 1, 2, 3, 4), wantOK: true,
			want: Segment{Key: board, Seq: 7, Ack: 1, Payload: 1448, HasACK: true}},
		{name: "cut short", b: data[:64]},
		{name: "a fragment", b: frag},
		{name: "not IP", b: make([]byte, 60)},
		{name: "IPv6 data segment", b: data6, wantOK: true,
			want: Segment{Key: board6, Seq: 7, Ack: 1, Payload: 1428, HasACK: true}},
		{name: "IPv6 pure ACK", b: frametest.TCP6(frametest.PC6, frametest.Board6, 5201, 40000, 1, 9, 0), wantOK: true,
			want: Segment{Key: board6.Reverse(), Seq: 1, Ack: 9, HasACK: true, PureACK: true}},
		{name: "IPv6 cut short", b: data6[:100]},
		{name: "IPv6, not TCP", b: udp6},
	} {
		got, ok := Parse(c.b)
		if ok != c.wantOK || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.wantOK)
		}
	}
}

// FuzzParseTCP: any bytes parse or are refused without a panic, and what
// parses fits in the bytes there.
func FuzzParseTCP(f *testing.F) {
	f.Add(frametest.Data(1))
	f.Add(frametest.Ack(1))
	f.Add(frametest.Data(1)[:64])
	f.Add(frametest.TCP6(frametest.Board6, frametest.PC6, 1, 2, 3, 4, 5))
	f.Fuzz(func(t *testing.T, b []byte) {
		if seg, ok := Parse(b); ok && (seg.Payload < 0 || seg.Payload > len(b)) {
			t.Fatalf("payload %d in a %d-byte frame", seg.Payload, len(b))
		}
	})
}
