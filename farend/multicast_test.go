package farend

import (
	"testing"

	"mesonemu/ether"
)

// TestPassesIPv6Groups: the PC's NIC model has no destination filter (the
// in-process PC is one host on a direct cable), so the board's neighbour
// solicitation to the PC's solicited-node group and frames to all-nodes
// reach the PC's stack, as a NIC whose driver joined those groups passes them.
func TestPassesIPv6Groups(t *testing.T) {
	_, n := newNIC(t, Config{})
	var got int
	n.SetConsumer(func([]byte) { got++ })
	for _, dst := range [][6]byte{{0x33, 0x33, 0xff, 0, 0, 1}, {0x33, 0x33, 0, 0, 0, 1}} {
		f := frameOf(86, 0)
		copy(f, dst[:])
		f[12], f[13] = 0x86, 0xdd
		if c := n.Receive(ether.AppendFCS(f), false); c != Accepted {
			t.Fatalf("frame to %x: %v", dst, c)
		}
	}
	if got != 2 {
		t.Fatalf("the stack got %d frames, want 2", got)
	}
}
