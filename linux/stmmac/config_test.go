package stmmac

import (
	"strings"
	"testing"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/linux/kernel"
)

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{"defaults", func(*Config) {}, ""},
		{"ring not power of two", func(c *Config) { c.TxRingSize = 100 }, "TX ring size 100"},
		{"ring too small", func(c *Config) { c.RxRingSize = 32 }, "RX ring size 32"},
		{"ring too large", func(c *Config) { c.RxRingSize = 2048 }, "RX ring size 2048"},
		{"buffer too small", func(c *Config) { c.BufSize = 1520 }, "buffer size 1520"},
		{"buffer unaligned", func(c *Config) { c.BufSize = 1540 }, "buffer size 1540"},
		{"buffer needs RBS2", func(c *Config) { c.BufSize = 2048 }, "buffer size 2048"},
		{"multicast MAC", func(c *Config) { c.MAC = ether.MAC{1, 0, 0x5e, 0, 0, 1} }, "not a valid unicast"},
		{"zero MAC", func(c *Config) { c.MAC = ether.MAC{} }, "not a valid unicast"},
		{"RIWT above max", func(c *Config) { c.RIWT = 0x100 }, "RIWT"},
		{"coalesce frames", func(c *Config) { c.TxCoalFrames = 257 }, "coalesce frames"},
		{"region too small", func(c *Config) { c.RAMSize = 0x184000 - 1 }, "need 0x184000 bytes"},
		{"region exact", func(c *Config) { c.RAMSize = 0x184000 }, ""},
		{"region past 4 GiB", func(c *Config) { c.RAMStart = 0xfff00000; c.RAMSize = 0x200000 }, "too small"},
	}
	m := emu.NewMachine(1)
	irq := m.NewIRQ("x")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig(testRAMBase, testRAMSize, testMAC)
			tt.edit(&cfg)
			_, err := New(cfg, kernel.New(m, m.Bus(), irq), 1)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestLayout(t *testing.T) {
	// 512 RX + 512 TX descriptors of 16 bytes and 2 x 512 buffers of 1536 bytes.
	const want = 2*512*16 + 2*512*1536 // 0x184000
	n, err := RequiredRAM(DefaultConfig(0, 0, testMAC), testRAMBase)
	if err != nil || n != want {
		t.Fatalf("RequiredRAM = %#x, %v; want %#x", n, err, want)
	}
	// An unaligned start is rounded up to 64 bytes first.
	n, err = RequiredRAM(DefaultConfig(0, 0, testMAC), testRAMBase+4)
	if err != nil || n != want+60 {
		t.Fatalf("RequiredRAM(unaligned) = %#x, %v; want %#x", n, err, want+60)
	}
	m := emu.NewMachine(1)
	d, err := New(DefaultConfig(testRAMBase, testRAMSize, testMAC), kernel.New(m, m.Bus(), m.NewIRQ("x")), 1)
	if err != nil {
		t.Fatal(err)
	}
	l := d.Layout()
	wantL := Layout{RxDesc: 0x01000000, TxDesc: 0x01002000, RxBuf: 0x01004000,
		TxBuf: 0x01004000 + 512*1536, End: 0x01000000 + want}
	if l != wantL {
		t.Fatalf("layout %+v, want %+v", l, wantL)
	}
}

func TestDescriptorBits(t *testing.T) {
	tests := []struct {
		name string
		got  uint32
		want uint32
	}{
		{"RDES1 1536", rxDes1(1536, false, false), 0x600},
		{"RDES1 last with DIC", rxDes1(1536, true, true), 0x82000600},
		{"RDES1 2 KiB uses RBS2", rxDes1(2048, false, false), 1<<11 | 0x7ff},
		{"TBS1 1514", txLenBits(1514), 1514},
		{"TBS1 2047", txLenBits(2047), 2047},
		{"TBS2 above 2047", txLenBits(3000), 953<<11 | 2047},
		{"FL", uint32(rxFrameLen(0x05ea0300)), 0x5ea},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %#x, want %#x", tt.name, tt.got, tt.want)
		}
	}
}

// fakeKernel is a Kernel whose clock the test sets.
type fakeKernel struct{ now emu.Time }

func (k *fakeKernel) Bus() emu.GuestBus                       { return nil }
func (k *fakeKernel) Delay(d emu.Time)                        { k.now += d }
func (k *fakeKernel) AfterFunc(emu.Time, func()) kernel.Timer { return nil }
func (k *fakeKernel) Now() emu.Time                           { return k.now }
func (k *fakeKernel) RequestIRQ(kernel.IRQ, func()) error     { return nil }
func (k *fakeKernel) IRQName(kernel.IRQ) string               { return "" }
func (k *fakeKernel) advanceTo(t emu.Time) *fakeKernel        { k.now = t; return k }
func timerAt(k *fakeKernel, hz, us int, now emu.Time) emu.Time {
	return timerDelay(k.advanceTo(now), hz, us)
}

func TestTimerDelay(t *testing.T) {
	k := &fakeKernel{}
	ms := emu.Millisecond
	tests := []struct {
		name    string
		hz, us  int
		now     emu.Time
		wantDel emu.Time
	}{
		{"exact 1000 us", 0, 1000, 3 * ms, 1000 * emu.Microsecond},
		{"exact 10 us", 0, 10, 0, 10 * emu.Microsecond},
		// HZ=100: 1000 us rounds up to one jiffy; the timer fires at the next tick.
		{"HZ100 at tick", 100, 1000, 20 * ms, 10 * ms},
		{"HZ100 mid tick", 100, 1000, 23 * ms, 7 * ms},
		{"HZ100 10 us", 100, 10, 29*ms + 999*emu.Microsecond, emu.Microsecond},
		// HZ=250: 5000 us is 1.25 jiffies, rounded up to 2.
		{"HZ250 5000 us", 250, 5000, 1 * ms, 7 * ms},
	}
	for _, tt := range tests {
		if got := timerAt(k, tt.hz, tt.us, tt.now); got != tt.wantDel {
			t.Errorf("%s: delay %v, want %v", tt.name, got.Duration(), tt.wantDel.Duration())
		}
	}
}
