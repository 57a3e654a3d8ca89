package farend

import (
	"bytes"
	"testing"

	"mesonemu/emu"
	"mesonemu/ether"
)

// TestPCProfilesHandOver: each profile's hand-over times for a burst of 8
// full frames 12 us apart (line rate) followed, 400 us later, by one more.
// r8169 hands each over as it arrives; igb throttles to one interrupt per
// 192 us (the first frame goes at once); e1000e does so at 50 us until an
// interrupt carries 7 or more frames, then at 250 us; the RTL8153 holds the
// first frame of a batch 85 us, which keeps its interrupts further apart
// than the xHCI's 40 us.
func TestPCProfilesHandOver(t *testing.T) {
	const us = emu.Microsecond
	arrivals := []emu.Time{0, 12 * us, 24 * us, 36 * us, 48 * us, 60 * us, 72 * us, 84 * us, 484 * us}
	for _, tc := range []struct {
		name string
		want []emu.Time
	}{
		{"r8169", arrivals},
		{"igb", []emu.Time{0, 192 * us, 192 * us, 192 * us, 192 * us, 192 * us, 192 * us, 192 * us, 484 * us}},
		{"e1000e", []emu.Time{0, 50 * us, 50 * us, 50 * us, 50 * us, 100 * us, 100 * us, 100 * us, 484 * us}},
		{"rtl8153", []emu.Time{85 * us, 85 * us, 85 * us, 85 * us, 85 * us, 85 * us, 85 * us, 85 * us, 569 * us}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LookupPCProfile(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			m, n := newNIC(t, p.Apply(Config{}))
			var got []emu.Time
			n.SetConsumer(func([]byte) { got = append(got, m.Now()) })
			for i, at := range arrivals {
				m.RunUntil(at)
				m.Lock()
				n.Receive(ether.AppendFCS(frameOf(1514, byte(i))), false)
				m.Unlock()
			}
			m.RunUntil(2 * emu.Millisecond)
			if len(got) != len(tc.want) {
				t.Fatalf("%d hand-overs, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("frame %d handed over at %d ns, want %d", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestE1000eBulkInterval: after an interrupt of 7 frames the next one waits
// 250 us; after one of fewer, 50 us.
func TestE1000eBulkInterval(t *testing.T) {
	p, _ := LookupPCProfile("e1000e")
	m, n := newNIC(t, p.Apply(Config{}))
	var got []emu.Time
	n.SetConsumer(func([]byte) { got = append(got, m.Now()) })
	recv := func(at emu.Time) {
		m.RunUntil(at)
		m.Lock()
		n.Receive(ether.AppendFCS(frameOf(1514, 1)), false)
		m.Unlock()
	}
	recv(0) // at once: no interrupt before
	for i := range 7 {
		recv(emu.Time(i+1) * emu.Microsecond) // 7 frames wait for the interrupt at 50 us
	}
	recv(60 * emu.Microsecond) // after a bulk interrupt: 250 us after it
	m.RunUntil(emu.Millisecond)
	want := []emu.Time{0, 50000, 50000, 50000, 50000, 50000, 50000, 50000, 300000}
	if len(got) != len(want) || got[len(got)-1] != want[len(want)-1] || got[1] != want[1] {
		t.Errorf("hand-overs at %v, want %v", got, want)
	}
}

func TestLookupPCProfile(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"r8169", true}, {"igb", true}, {"e1000e", true}, {"rtl8153", true}, {"ax88179", false}, {"", false}} {
		p, err := LookupPCProfile(tc.name)
		if (err == nil) != tc.ok || tc.ok && (p.Name != tc.name || p.Config.Profile != tc.name) {
			t.Errorf("%q: %+v, %v", tc.name, p, err)
		}
	}
	if !bytes.Equal([]byte(PCProfiles[0].Name), []byte(DefaultPCProfile)) {
		t.Errorf("the default profile %q is not the first", DefaultPCProfile)
	}
}
