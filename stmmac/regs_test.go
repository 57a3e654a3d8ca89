package stmmac

import (
	"math/rand/v2"
	"testing"

	"mesonemu/emu"
)

func TestTablesValidate(t *testing.T) {
	r := newRig(t, Config{})
	for _, b := range r.mac.Blocks() {
		if err := b.Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestResetValues(t *testing.T) {
	r := newRig(t, Config{})
	tests := []struct {
		name string
		off  uint32
		want uint32
	}{
		{"GMAC_CONTROL", offMACConfig, 0},
		{"GMAC_VERSION", offVersion, 0x1137},
		{"GMAC_ADDR_HIGH0 (AE=1)", offAddr0High, 0x8000ffff},
		{"GMAC_ADDR_LOW0", offAddr0High + 4, 0xffffffff},
		{"GMAC_ADDR_HIGH1", offAddr0High + 8, 0x0000ffff},
		{"GMAC_ADDR_HIGH15", offAddr0High + 8*15, 0x0000ffff},
		{"LPI_TIMER_CTRL", 0x34, 0x03e80000},
		{"GMAC_S_R_GMII", offRGMIIStatus, 0},
		{"MMC_CNTRL", offMMCCntrl, 0},
		{"mmc_tx_framecount_gb", mmcBase + 0x18, 0},
		{"DMA_BUS_MODE", offBusMode, 0x00020100},
		{"DMA_STATUS", offStatus, 0},
		{"DMA_CONTROL", offOpMode, 0},
		{"DMA_INTR_ENA", offIntEnable, 0},
		{"DMA_AXI_BUS_MODE", 0x1028, 0x00110001},
		{"DMA_HW_FEATURE", offHWFeature, 0x000d0f37},
		{"hole in MAC block", 0xe0, 0},
		{"hole above DMA", 0x2000, 0},
	}
	for _, tt := range tests {
		if got := r.rd(tt.off); got != tt.want {
			t.Errorf("%s (%#x) = %#08x, want %#08x", tt.name, tt.off, got, tt.want)
		}
	}
	if got := r.mac.RegName(offHWFeature); got != "DMA_HW_FEATURE" {
		t.Errorf("RegName(0x1058) = %q", got)
	}
	if got := r.mac.RegName(mmcBase + 0x94); got != "mmc_rx_crc_error" {
		t.Errorf("RegName(0x194) = %q", got)
	}
}

func TestBootMACAddressAndAE(t *testing.T) {
	r := newRig(t, Config{MACAddr: [6]byte{0x00, 0x1e, 0x06, 0x11, 0x22, 0x33}})
	if got := r.rd(offAddr0High); got != 0x80003322 {
		t.Errorf("ADDR_HIGH0 = %#x, want 0x80003322", got)
	}
	if got := r.rd(offAddr0High + 4); got != 0x11061e00 {
		t.Errorf("ADDR_LOW0 = %#x, want 0x11061e00", got)
	}
	// AE of address 0 is read-only 1; on address 1 it is the guest's.
	r.w(offAddr0High, 0x00004455)
	r.w(offAddr0High+8, 0x00004455)
	if got := r.rd(offAddr0High); got != 0x80004455 {
		t.Errorf("ADDR_HIGH0 after writing AE=0: %#x", got)
	}
	if got := r.rd(offAddr0High + 8); got != 0x00004455 {
		t.Errorf("ADDR_HIGH1 = %#x", got)
	}
}

func TestReadOnlyRegisters(t *testing.T) {
	r := newRig(t, Config{})
	for _, off := range []uint32{offVersion, offHWFeature, offRGMIIStatus, offIntStatus, offCurTxDesc, offMissed} {
		before := r.rd(off)
		r.w(off, 0xffffffff)
		if got := r.rd(off); got != before {
			t.Errorf("%s: write changed %#x to %#x", r.mac.RegName(off), before, got)
		}
	}
	// Poll demands are write-only: they read back 0.
	r.w(offTxPoll, 1)
	if got := r.rd(offTxPoll); got != 0 {
		t.Errorf("TX poll demand reads %#x", got)
	}
}

func TestStatusW1C(t *testing.T) {
	tests := []struct {
		name        string
		set, write  uint32
		want        uint32
		enable      uint32
		wantLineLow bool
	}{
		{"write 1 clears TI only", stTI.Mask() | stRI.Mask(), stTI.Mask(), stRI.Mask(), 0, true},
		{"write 0 keeps", stTI.Mask() | stRI.Mask(), 0, stTI.Mask() | stRI.Mask(), 0, true},
		{"Linux clears all with status & 0x1ffff", stTI.Mask() | stRI.Mask() | stFBI.Mask(), stTI.Mask() | stRI.Mask() | stFBI.Mask(), 0, 0x1a061, true},
		{"NIS follows enabled normal sources", stRI.Mask(), 0, stRI.Mask() | stNIS.Mask(), stRI.Mask() | stNIS.Mask(), false},
		{"AIS follows enabled abnormal sources", stFBI.Mask(), 0, stFBI.Mask() | stAIS.Mask(), stFBI.Mask() | stAIS.Mask(), false},
		{"disabled source gives no summary", stTU.Mask(), 0, stTU.Mask(), stTI.Mask() | stNIS.Mask(), true},
		{"summary without NIE leaves the line low", stRI.Mask(), 0, stRI.Mask() | stNIS.Mask(), stRI.Mask(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{})
			r.w(offIntEnable, tt.enable)
			r.m.Lock()
			r.mac.raise(tt.set)
			r.m.Unlock()
			r.w(offStatus, tt.write)
			if got := r.rd(offStatus); got != tt.want {
				t.Errorf("status = %#x, want %#x", got, tt.want)
			}
			if r.irqLevel() == tt.wantLineLow {
				t.Errorf("line level = %v", r.irqLevel())
			}
		})
	}
}

func TestSoftwareResetRestoresEverything(t *testing.T) {
	r := newRig(t, Config{MACAddr: ourMAC})
	writes := []struct{ off, v uint32 }{
		{offMACConfig, linuxCfg1000}, {offFrameFilter, ffPR.Mask()}, {offHashHigh, 0xdead}, {offAddr0High + 8, 0x8000beef},
		{offIntMask, 0x207}, {offIntEnable, 0x1a061}, {offRIWT, 0xff}, {offTxBase, txRingAt}, {offRxBase, rxRingAt},
		{offMMCCntrl, mmcRstOnRead.Mask()},
	}
	for _, w := range writes {
		r.w(w.off, w.v)
	}
	// A frame in flight must be cancelled by the reset.
	tx := newRing(r, txRingAt, 4, txBufAt, 2048, false)
	tx.initTx()
	tx.queueTx(0, testFrame(1514, peerMAC, 1), true)
	r.w(offOpMode, opST.Mask())
	r.w(offBusMode, busSWR.Mask()|8<<8)
	if got := r.rd(offBusMode); got&busSWR.Mask() == 0 {
		t.Fatalf("SWR reads %#x right after the write, want it still set", got)
	}
	r.m.Advance(softwareResetTime - 1)
	if r.rd(offBusMode)&busSWR.Mask() == 0 {
		t.Fatal("SWR cleared before the reset time")
	}
	r.m.Advance(1)
	if got := r.rd(offBusMode); got != busModeReset {
		t.Fatalf("bus mode after reset = %#x, want %#x", got, busModeReset)
	}
	for _, w := range writes {
		want := uint32(0)
		if w.off == offAddr0High+8 {
			want = 0x0000ffff
		}
		if got := r.rd(w.off); got != want {
			t.Errorf("%s = %#x after SWR, want %#x", r.mac.RegName(w.off), got, want)
		}
	}
	if got := r.rd(offAddr0High); got != 0x8000ffff {
		t.Errorf("boot MAC address survived SWR: %#x", got)
	}
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 0 {
		t.Errorf("%d frames left after a reset during DMA", len(r.sent))
	}
	if st := r.txState(); st != Stopped {
		t.Errorf("TX state %v after reset", st)
	}
}

func TestFTFSelfClears(t *testing.T) {
	r := newRig(t, Config{})
	r.w(offOpMode, opFTF.Mask()|1<<21)
	if r.rd(offOpMode)&opFTF.Mask() == 0 {
		t.Fatal("FTF not set right after the write")
	}
	// 2048-byte FIFO at 4 bytes per 4 ns: 2048 ns.
	r.m.Advance(2047)
	if r.rd(offOpMode)&opFTF.Mask() == 0 {
		t.Fatal("FTF cleared early")
	}
	r.m.Advance(1)
	if got := r.rd(offOpMode); got != 1<<21 {
		t.Fatalf("operation mode after flush = %#x, want TSF only", got)
	}
}

func TestMissedFrameCounterClearOnRead(t *testing.T) {
	r := newRig(t, Config{})
	r.m.Lock()
	for range 3 {
		r.mac.rxNoDescriptor()
	}
	r.m.Unlock()
	if got := r.rd(offMissed); got != 3 {
		t.Fatalf("missed = %d, want 3", got)
	}
	if got := r.rd(offMissed); got != 0 {
		t.Fatalf("missed after read = %d, want 0", got)
	}
	r.m.Lock()
	v, _ := r.mac.Peek(offMissed)
	r.m.Unlock()
	if v != 0 {
		t.Fatalf("peek = %d", v)
	}
}

func TestLinkStateAndRGMIIInterrupt(t *testing.T) {
	r := newRig(t, Config{})
	tests := []struct {
		up       bool
		speed    int
		full     bool
		want     uint32
		wantIntr bool
	}{
		{true, 1000, true, 0xd, true},
		{true, 100, true, 0xb, false}, // speed change only: no link change
		{false, 10, false, 0x0, true},
	}
	for _, tt := range tests {
		r.m.Lock()
		r.mac.SetLinkState(tt.up, tt.speed, tt.full)
		r.m.Unlock()
		if got := r.rd(offIntStatus) & intRGMII.Mask(); (got != 0) != tt.wantIntr {
			t.Errorf("link %v/%d: RGSMIIIS = %d", tt.up, tt.speed, got)
		}
		if got := r.rd(offRGMIIStatus); got != tt.want {
			t.Errorf("link %v/%d: GMAC_S_R_GMII = %#x, want %#x", tt.up, tt.speed, got, tt.want)
		}
		if r.rd(offIntStatus)&intRGMII.Mask() != 0 {
			t.Error("reading GMAC_S_R_GMII did not acknowledge RGSMIIIS")
		}
	}
	// Unmasked, a link change drives the line through GLI.
	r.m.Lock()
	r.mac.SetLinkState(true, 1000, true)
	r.m.Unlock()
	if !r.irqLevel() || r.rd(offStatus)&stGLI.Mask() == 0 {
		t.Error("unmasked RGMII interrupt does not assert the line")
	}
	r.rd(offRGMIIStatus)
	if r.irqLevel() {
		t.Error("line still high after acknowledging")
	}
}

func TestMMCControl(t *testing.T) {
	r := newRig(t, Config{})
	r.m.Lock()
	r.mac.mmcAdd(mmcTxFrameCountGB, 5)
	r.m.Unlock()
	const txFrames = mmcBase + 0x18
	if got := r.rd(txFrames); got != 5 {
		t.Fatalf("counter = %d", got)
	}
	// Preset to almost full, then reset-on-read.
	r.w(offMMCCntrl, mmcCntPreset.Mask()|mmcPresetFull.Mask())
	if got := r.rd(txFrames); got != 0xfffffff0 {
		t.Errorf("preset full frame counter = %#x", got)
	}
	if got := r.rd(mmcBase + 0x14); got != 0xfffff800 {
		t.Errorf("preset full octet counter = %#x", got)
	}
	if got := r.rd(offMMCCntrl); got != mmcPresetFull.Mask() {
		t.Errorf("MMC_CNTRL = %#x, preset bit must self-clear", got)
	}
	// What Linux v5.4 writes: reset wins over preset.
	r.w(offMMCCntrl, mmcRstOnRead.Mask()|mmcCntReset.Mask()|mmcCntPreset.Mask()|mmcPresetFull.Mask())
	if got := r.rd(txFrames); got != 0 {
		t.Errorf("after Linux's MMC setup counter = %#x", got)
	}
	r.m.Lock()
	r.mac.mmcAdd(mmcTxFrameCountGB, 7)
	r.m.Unlock()
	if got := r.rd(txFrames); got != 7 {
		t.Errorf("counter = %d", got)
	}
	if got := r.rd(txFrames); got != 0 {
		t.Errorf("reset-on-read left %d", got)
	}
	// Stop at rollover.
	r.w(offMMCCntrl, mmcCntStopRoll.Mask()|mmcCntPreset.Mask()|mmcPresetFull.Mask())
	r.m.Lock()
	r.mac.mmcAdd(mmcTxFrameCountGB, 100)
	r.m.Unlock()
	if got := r.rd(txFrames); got != 0xffffffff {
		t.Errorf("saturating counter = %#x", got)
	}
}

// TestRandomRegisterWrites writes random values to every register in random order,
// with time passing in between: the model must neither panic nor hang.
func TestRandomRegisterWrites(t *testing.T) {
	r := newRig(t, Config{})
	r.mii.Attach(1, &fakePHY{})
	var offs []uint32
	for _, b := range r.mac.Blocks() {
		for _, reg := range b.Registers {
			offs = append(offs, reg.Offset)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 20000 {
		off := offs[rng.IntN(len(offs))]
		v := rng.Uint32()
		switch rng.IntN(4) {
		case 0:
			v &^= busSWR.Mask() // keep resets rarer so the engines get to run
		case 1:
			v = uint32(rng.IntN(ramSize)) // addresses inside RAM
		}
		r.w(off, v)
		if i%7 == 0 {
			r.rd(offs[rng.IntN(len(offs))])
		}
		if i%50 == 0 {
			f := withFCS(testFrame(60+rng.IntN(1500), ourMAC, byte(i)))
			r.receive(f)
		}
		r.m.Advance(emu.Time(rng.IntN(20000)))
	}
	// The engines must actually have run, or the test proves nothing.
	c := r.counters()
	if c.TxDescFetches == 0 || c.RxDescFetches == 0 || c.SoftwareResets == 0 || c.MDIOReads+c.MDIOWrites == 0 {
		t.Fatalf("random programming never exercised the engines: %+v", c)
	}
}
