package stmmac

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"mesonemu/emu"
	"mesonemu/linux/kernel"
)

// TestOpenRegisterSequence pins the register writes of Probe and Open, in Linux
// v5.4's order, with the values a dwmac1000 on Meson8b gets.
func TestOpenRegisterSequence(t *testing.T) {
	r := newFakeRig(t, nil)
	if err := r.drv.Probe(); err != nil {
		t.Fatal(err)
	}
	if err := r.drv.Open(); err != nil {
		t.Fatal(err)
	}
	l := r.drv.Layout()
	want := []regOp{
		{true, gmacMIIAddr, 0},           // stmmac_mdio_reset
		{true, dmaBusMode, 0x00020101},   // SWR on the reset value
		{true, dmaBusMode, 0x01900800},   // 8xPBL | USP | RPBL 8 | PBL 8
		{true, dmaIntrEna, 0x1a061},      // DMA_INTR_DEFAULT_MASK
		{true, dmaRcvBaseAddr, l.RxDesc}, // RX list base
		{true, dmaTxBaseAddr, l.TxDesc},  // TX list base
		{true, gmacAddrHigh0, 0x80000000 | 0x397a},
		{true, gmacAddrLow0, 0x61061e00},
		{true, gmacControl, 0x00618080}, // JD|BE|DCRS|PS|ACS
		{true, gmacIntMask, 0x207},      // RGMII/PCS/timestamp masked
		{true, gmacVLANTag, 0},
		{true, gmacControl, 0x0061808c}, // TE|RE
		{true, dmaControl, 0x02000000},  // RSF
		{true, dmaControl, 0x02200004},  // TSF|OSF
		{true, mmcBase + mmcRxIntrMask, 0xffffffff},
		{true, mmcBase + mmcTxIntrMask, 0xffffffff},
		{true, mmcBase + mmcRxIPCIntrMask, 0xffffffff},
		{true, mmcBase + mmcCntrl, 0x35}, // reset on read, reset, preset, full/half
		{true, dmaRxWatchdog, 0x10},      // MIN_DMA_RIWT
		{true, dmaControl, 0x02200006},   // SR
		{true, dmaControl, 0x02202006},   // ST
		{true, gmacHashLow, 0},
		{true, gmacHashHigh, 0},
		{true, gmacFrameFilter, 0},
	}
	var got []regOp
	r.lock(func() { got = r.mac.writes() })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("register writes:\n got %v\nwant %v", got, want)
	}
	if !r.drv.UsesRIWT() || r.drv.SynopsysID() != 0x37 || r.drv.UserID() != 0x11 {
		t.Fatalf("probe: riwt %v id %#x/%#x", r.drv.UsesRIWT(), r.drv.SynopsysID(), r.drv.UserID())
	}
	// Every RX descriptor is owned by the DMA with RBS1 1536, DIC, RER on the last.
	for _, i := range []int{0, 1, 511} {
		a := l.RxDesc + uint32(i*descSize)
		var w [4]uint32
		r.lock(func() {
			for k := range w {
				w[k], _ = r.ram.Read32(a + uint32(4*k))
			}
		})
		wantW := [4]uint32{0x80000000, 0x80000600, l.RxBuf + uint32(i*1536), 0}
		if i == 511 {
			wantW[1] |= rdes1EndRing
		}
		if w != wantW {
			t.Errorf("RX descriptor %d = %#x, want %#x", i, w, wantW)
		}
	}
	var lastTx uint32
	r.lock(func() { lastTx, _ = r.ram.Read32(l.TxDesc + 511*descSize + 4) })
	if lastTx != tdes1EndRing {
		t.Errorf("last TX TDES1 = %#x, want TER", lastTx)
	}
}

func TestOpenWithoutRIWTAndPromiscuous(t *testing.T) {
	r := newFakeRig(t, func(c *Config) { c.RIWTOff = true; c.Promiscuous = true })
	r.up(t)
	var w []regOp
	r.lock(func() { w = r.mac.writes() })
	for _, op := range w {
		if op.off == dmaRxWatchdog {
			t.Fatalf("RIWT written with riwt_off: %v", op)
		}
	}
	if last := w[len(w)-3]; last.off != gmacFrameFilter || last.val != frameFilterPR|frameFilterPCF {
		t.Fatalf("frame filter write %v, want PR|PCF", last)
	}
	var d1 uint32
	r.lock(func() { d1, _ = r.ram.Read32(r.drv.Layout().RxDesc + 4) })
	if d1 != 0x600 {
		t.Fatalf("RDES1 without RIWT = %#x, want 0x600 (no DIC)", d1)
	}
}

func TestDMAResetTimeout(t *testing.T) {
	tests := []struct {
		name      string
		swrReads  int
		wantErr   bool
		wantReads int      // CSR0 reads: SWR read-modify-write, polls, bus mode RMW
		wantTime  emu.Time // virtual time spent polling
	}{
		{"clears at once", 0, false, 3, 0},
		{"clears on third poll", 2, false, 5, 20 * emu.Millisecond},
		// readl_poll_timeout(10 ms, 100 ms): polls at 0..110 ms, then one last read.
		{"never clears", -1, true, 14, 110 * emu.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newFakeRig(t, nil)
			r.mac.swrReads = tt.swrReads
			if err := r.drv.Probe(); err != nil {
				t.Fatal(err)
			}
			t0 := r.m.VirtualNow()
			err := r.drv.Open()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Open error %v, want error %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "SWR still set after 110ms") {
				t.Fatalf("error %q", err)
			}
			reads := 0
			r.lock(func() {
				for _, op := range r.mac.ops {
					if !op.write && op.off == dmaBusMode {
						reads++
					}
					if op.write && op.off == dmaBusMode && op.val&dmaBusModeSftReset == 0 {
						break // bus mode programmed: reset over
					}
				}
			})
			if reads != tt.wantReads {
				t.Errorf("CSR0 reads %d, want %d", reads, tt.wantReads)
			}
			if got := r.m.VirtualNow() - t0; got != tt.wantTime {
				t.Errorf("reset took %v, want %v", got.Duration(), tt.wantTime.Duration())
			}
		})
	}
}

func TestMDIO(t *testing.T) {
	r := newFakeRig(t, nil)
	if err := r.drv.Probe(); err != nil {
		t.Fatal(err)
	}
	r.mac.phy[1][2] = 0x001c
	v, err := r.drv.ReadPHY(1, 2)
	if err != nil || v != 0x001c {
		t.Fatalf("ReadPHY(1, 2) = %#x, %v", v, err)
	}
	if err := r.drv.WritePHY(1, 0, 0x1340); err != nil {
		t.Fatal(err)
	}
	if r.mac.phy[1][0] != 0x1340 {
		t.Fatalf("PHY reg 0 = %#x, want 0x1340", r.mac.phy[1][0])
	}
	// Address words: PHY 1, register 2 / 0, CSR clock range 4, GB (and GW).
	var addrWrites []uint32
	r.lock(func() {
		for _, op := range r.mac.writes() {
			if op.off == gmacMIIAddr && op.val != 0 {
				addrWrites = append(addrWrites, op.val)
			}
		}
	})
	if fmt.Sprint(addrWrites) != fmt.Sprint([]uint32{0x891, 0x813}) {
		t.Fatalf("MII address writes %#x, want [0x891 0x813]", addrWrites)
	}
	for _, bad := range [][2]int{{32, 0}, {0, 32}, {-1, 0}} {
		if _, err := r.drv.ReadPHY(bad[0], bad[1]); err == nil {
			t.Errorf("ReadPHY(%d, %d) succeeded", bad[0], bad[1])
		}
	}
}

func TestMDIOBusyTimeout(t *testing.T) {
	r := newFakeRig(t, nil)
	if err := r.drv.Probe(); err != nil {
		t.Fatal(err)
	}
	r.mac.gbReads = -1
	t0 := r.m.VirtualNow()
	if _, err := r.drv.ReadPHY(3, 1); err == nil || !strings.Contains(err.Error(), "GB") {
		t.Fatalf("ReadPHY with GB stuck: %v", err)
	}
	// The first wait passes (GB clear), the second polls every 100 us past 10 ms.
	if got := r.m.VirtualNow() - t0; got != 10100*emu.Microsecond {
		t.Fatalf("timeout after %v, want 10.1ms", got.Duration())
	}
	// The next access finds GB still set and gives up in its first wait.
	if err := r.drv.WritePHY(3, 1, 0); err == nil {
		t.Fatal("WritePHY with GB stuck succeeded")
	}
}

func TestLinkUpDown(t *testing.T) {
	tests := []struct {
		speed  int
		full   bool
		wantCR uint32 // GMAC_CONTROL after LinkUp (from 0x0061808c after Open)
	}{
		{1000, true, 0x0061088c},
		{100, true, 0x0061c88c},
		{100, false, 0x0061c08c},
		{10, true, 0x0061888c},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%v", tt.speed, tt.full), func(t *testing.T) {
			r := newFakeRig(t, nil)
			var fixed []int
			r.drv.cfg.FixMACSpeed = func(s int) error { fixed = append(fixed, s); return nil }
			if err := r.drv.Probe(); err != nil {
				t.Fatal(err)
			}
			if err := r.drv.Open(); err != nil {
				t.Fatal(err)
			}
			if err := r.drv.LinkUp(tt.speed, tt.full); err != nil {
				t.Fatal(err)
			}
			var cr uint32
			r.lock(func() { cr = r.mac.regs[gmacControl] })
			if cr != tt.wantCR {
				t.Fatalf("GMAC_CONTROL %#x, want %#x", cr, tt.wantCR)
			}
			if len(fixed) != 1 || fixed[0] != tt.speed {
				t.Fatalf("fix_mac_speed calls %v", fixed)
			}
			if err := r.drv.LinkDown(); err != nil {
				t.Fatal(err)
			}
			r.lock(func() { cr = r.mac.regs[gmacControl] })
			if cr != tt.wantCR&^(gmacControlTE|gmacControlRE) {
				t.Fatalf("after LinkDown GMAC_CONTROL %#x", cr)
			}
		})
	}
	r := newFakeRig(t, nil)
	if err := r.drv.LinkUp(2500, true); err == nil {
		t.Fatal("LinkUp(2500) succeeded")
	}
}

// failingBus fails every access in [lo, hi).
type failingBus struct {
	emu.GuestBus
	lo, hi uint32
}

func (b failingBus) bad(a uint32) error {
	if a >= b.lo && a < b.hi {
		return &emu.BusError{Addr: a, Why: "test fault"}
	}
	return nil
}
func (b failingBus) Read32(a uint32) (uint32, error) {
	if err := b.bad(a); err != nil {
		return 0, err
	}
	return b.GuestBus.Read32(a)
}
func (b failingBus) Write32(a, v uint32) error {
	if err := b.bad(a); err != nil {
		return err
	}
	return b.GuestBus.Write32(a, v)
}
func (b failingBus) WriteRAM(a uint32, p []byte) error {
	if err := b.bad(a); err != nil {
		return err
	}
	return b.GuestBus.WriteRAM(a, p)
}

func TestBusErrorsAreWrapped(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi uint32
		call   func(*Driver) error
		want   string
	}{
		{"probe version", DefaultBase + gmacVersion, DefaultBase + gmacVersion + 4,
			(*Driver).Probe, "read version"},
		{"open rings", testRAMBase, testRAMBase + 16, func(d *Driver) error { _ = d.Probe(); return d.Open() },
			"init RX descriptor 0"},
		{"open reset", DefaultBase + dmaBusMode, DefaultBase + dmaBusMode + 4,
			func(d *Driver) error { _ = d.Probe(); return d.Open() }, "DMA software reset"},
		{"mdio data", DefaultBase + gmacMIIData, DefaultBase + gmacMIIData + 4,
			func(d *Driver) error { _, err := d.ReadPHY(0, 1); return err }, "mdio read phy 0 reg 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newFakeRig(t, nil)
			d, err := New(r.drv.cfg, kernel.New(r.m, failingBus{r.m.Bus(), tt.lo, tt.hi}, r.irq), 1)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.call(d)
			var be *emu.BusError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v: want a wrapped *emu.BusError mentioning %q", err, tt.want)
			}
		})
	}
}
