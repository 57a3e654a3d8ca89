package tcpseg

import (
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/netstack/internal/frametest"
)

// TestParse: what the parser reads from a frame, and what it refuses.
func TestParse(t *testing.T) {
	board := FlowKey{Local: frametest.Board, Remote: frametest.PC, LPort: 40000, RPort: 5201}
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
		{name: "not IPv4", b: make([]byte, 60)},
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
	f.Fuzz(func(t *testing.T, b []byte) {
		if seg, ok := Parse(b); ok && (seg.Payload < 0 || seg.Payload > len(b)) {
			t.Fatalf("payload %d in a %d-byte frame", seg.Payload, len(b))
		}
	})
}
