package stmmac

import (
	"testing"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/linux/kernel"
)

const (
	testRAMBase = 0x01000000
	testRAMSize = 4 << 20
)

var testMAC = ether.MAC{0x00, 0x1e, 0x06, 0x61, 0x7a, 0x39}

// fakeRig is a machine with RAM, the fake MAC at DefaultBase and a driver on it.
type fakeRig struct {
	m   *emu.Machine
	ram *emu.RAM
	irq *emu.IRQ
	mac *fakeMAC
	drv *Driver
	rx  [][]byte
}

func newFakeRig(t testing.TB, edit func(*Config)) *fakeRig {
	t.Helper()
	m := emu.NewMachine(1)
	ram, err := m.Bus().AddRAM(testRAMBase, testRAMSize)
	if err != nil {
		t.Fatal(err)
	}
	irq := m.NewIRQ("macirq")
	f := newFakeMAC(ram, irq)
	if err := m.Bus().Map(DefaultBase, 0x2000, f); err != nil {
		t.Fatal(err)
	}
	r := &fakeRig{m: m, ram: ram, irq: irq, mac: f}
	r.drv = newTestDriver(t, m, irq, testRAMBase, testRAMSize, edit, &r.rx)
	return r
}

// newTestDriver is a driver on m whose rings and buffers go in the size bytes of
// RAM at base, configured by edit (may be nil), keeping what it receives in *rx.
func newTestDriver(t testing.TB, m *emu.Machine, irq *emu.IRQ, base, size uint32, edit func(*Config), rx *[][]byte) *Driver {
	t.Helper()
	cfg := DefaultConfig(base, size, testMAC)
	if edit != nil {
		edit(&cfg)
	}
	d, err := New(cfg, kernel.New(m, m.Bus(), irq), 1)
	if err != nil {
		t.Fatal(err)
	}
	d.SetReceiver(func(b []byte) { *rx = append(*rx, append([]byte(nil), b...)) })
	return d
}

// up probes and opens the driver and brings the link up at 1000 full.
func (r *fakeRig) up(t testing.TB) {
	t.Helper()
	openAt1000(t, r.drv, nil)
}

// openAt1000 probes and opens d and brings its link up at 1000 Mbit/s full duplex,
// once hwLinkUp (may be nil) has brought up the hardware's side of the link.
func openAt1000(t testing.TB, d *Driver, hwLinkUp func()) {
	t.Helper()
	if err := d.Probe(); err != nil {
		t.Fatal(err)
	}
	if err := d.Open(); err != nil {
		t.Fatal(err)
	}
	if hwLinkUp != nil {
		hwLinkUp()
	}
	if err := d.LinkUp(1000, true); err != nil {
		t.Fatal(err)
	}
}

// lock runs f with the machine lock held, as hardware-side code runs.
func (r *fakeRig) lock(f func()) {
	r.m.Lock()
	defer r.m.Unlock()
	f()
}

// testFrame is a frame of n bytes whose content identifies seq.
func testFrame(n, seq int) []byte {
	f := make([]byte, n)
	copy(f, testMAC[:]) // to us, so that a MAC's address filter passes it
	copy(f[6:], []byte{0x02, 0, 0, 0, 0, 2})
	f[12], f[13] = 0x88, 0xb5 // local experimental EtherType
	for i := 14; i < n; i++ {
		f[i] = byte(seq*7 + i)
	}
	return f
}

// stat reads one ethtool counter or fails the test.
func stat(t testing.TB, d *Driver, name string) uint64 {
	t.Helper()
	v, err := d.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// wantStats compares named counters.
func wantStats(t testing.TB, d *Driver, want map[string]uint64) {
	t.Helper()
	all, err := d.Stats()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, s := range all {
		got[s.Name] = s.Value
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("no statistic %q", name)
			continue
		}
		if g != w {
			t.Errorf("%s = %d, want %d", name, g, w)
		}
	}
}
