package stmmac

import (
	"testing"

	dwmac "mesonemu/stmmac"
)

// nsFrame is a 64-byte IPv6 frame to group dst (the payload does not matter
// to the MAC's destination filter).
func nsFrame(dst [6]byte) []byte {
	f := make([]byte, 60)
	copy(f, dst[:])
	copy(f[6:], []byte{0x02, 0, 0, 0, 0, 0x99})
	f[12], f[13] = 0x86, 0xdd
	return f
}

// The groups of 2001:2::2: all-nodes and its solicited-node group
// (ff02::1:ff00:2), and another host's solicited-node group.
var (
	allNodes   = [6]byte{0x33, 0x33, 0, 0, 0, 1}
	solicited2 = [6]byte{0x33, 0x33, 0xff, 0, 0, 2}
	solicited1 = [6]byte{0x33, 0x33, 0xff, 0, 0, 1}
)

// TestMulticastFilter: the real DWMAC model drops a neighbour solicitation's
// solicited-node frame until the driver has put its group in the hash, as
// Linux's dwmac1000_set_filter does; then it passes, while a group whose bin
// is not set (another host's) is still dropped, and the MAC is not
// promiscuous.
func TestMulticastFilter(t *testing.T) {
	if a, b, c := mcastBin(allNodes), mcastBin(solicited2), mcastBin(solicited1); a == c || b == c {
		t.Fatalf("bins %d %d %d: the test needs the third group in another bin", a, b, c)
	}
	for _, tc := range []struct {
		name   string
		groups [][6]byte
		want   map[[6]byte]dwmac.RxOutcome
	}{
		{"no list", nil, map[[6]byte]dwmac.RxOutcome{
			allNodes: dwmac.DroppedFiltered, solicited2: dwmac.DroppedFiltered, solicited1: dwmac.DroppedFiltered}},
		{"the address's groups", [][6]byte{allNodes, solicited2}, map[[6]byte]dwmac.RxOutcome{
			allNodes: dwmac.Delivered, solicited2: dwmac.Delivered, solicited1: dwmac.DroppedFiltered}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newHWRig(t, nil)
			r.loopback = false
			r.up(t)
			if err := r.drv.SetMulticast(tc.groups); err != nil {
				t.Fatal(err)
			}
			r.m.Lock()
			ff, hi, lo := r.mac.ReadReg(gmacFrameFilter), r.mac.ReadReg(gmacHashHigh), r.mac.ReadReg(gmacHashLow)
			r.m.Unlock()
			if ff&frameFilterPR != 0 {
				t.Fatalf("frame filter %#x is promiscuous", ff)
			}
			var wantHi, wantLo uint32
			for _, g := range tc.groups {
				if b := mcastBin(g); b >= 32 {
					wantHi |= 1 << (b - 32)
				} else {
					wantLo |= 1 << b
				}
			}
			if hi != wantHi || lo != wantLo || (len(tc.groups) > 0) != (ff&frameFilterHMC != 0) {
				t.Fatalf("filter %#x hash %#08x:%#08x, want HMC %v and %#08x:%#08x", ff, hi, lo, len(tc.groups) > 0, wantHi, wantLo)
			}
			delivered := 0
			for _, dst := range [][6]byte{allNodes, solicited2, solicited1} {
				got := r.receiveWire(nsFrame(dst))
				if got != tc.want[dst] {
					t.Errorf("frame to %x: %v, want %v", dst, got, tc.want[dst])
				}
				if got == dwmac.Delivered {
					delivered++
				}
			}
			r.runIdle(time10ms)
			if len(r.rx) != delivered {
				t.Fatalf("the driver received %d frames, want %d", len(r.rx), delivered)
			}
		})
	}
}

// TestMulticastListSurvivesReopen: Open reprograms the list, as __dev_open's
// dev_set_rx_mode does; a unicast address is refused.
func TestMulticastListSurvivesReopen(t *testing.T) {
	r := newHWRig(t, nil)
	r.loopback = false
	if err := r.drv.SetMulticast([][6]byte{solicited2}); err != nil {
		t.Fatal(err)
	}
	r.up(t)
	if got := r.receiveWire(nsFrame(solicited2)); got != dwmac.Delivered {
		t.Fatalf("after Open: %v", got)
	}
	if err := r.drv.Close(); err != nil {
		t.Fatal(err)
	}
	r.up(t)
	if got := r.receiveWire(nsFrame(solicited2)); got != dwmac.Delivered {
		t.Fatalf("after reopen: %v", got)
	}
	if err := r.drv.SetMulticast([][6]byte{{0x02, 0, 0, 0, 0, 1}}); err == nil {
		t.Fatal("a unicast address was taken as a group")
	}
}
