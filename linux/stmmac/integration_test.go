package stmmac

import (
	"bytes"
	"errors"
	"testing"

	"mesonemu/emu"
	dwmac "mesonemu/stmmac"
)

func TestHWProbeOpenMDIO(t *testing.T) {
	r := newHWRig(t, nil)
	r.phy.regs[2], r.phy.regs[3] = 0x001c, 0xc916 // RTL8211F PHY identifier
	if err := r.drv.Probe(); err != nil {
		t.Fatal(err)
	}
	if r.drv.SynopsysID() != 0x37 || r.drv.UserID() != 0x11 || !r.drv.UsesRIWT() {
		t.Fatalf("probe: id %#x/%#x riwt %v", r.drv.SynopsysID(), r.drv.UserID(), r.drv.UsesRIWT())
	}
	for reg, want := range map[int]uint16{2: 0x001c, 3: 0xc916} {
		got, err := r.drv.ReadPHY(0, reg)
		if err != nil || got != want {
			t.Fatalf("ReadPHY(0, %d) = %#x, %v; want %#x", reg, got, err, want)
		}
	}
	if err := r.drv.WritePHY(0, 0, 0x1140); err != nil {
		t.Fatal(err)
	}
	if r.phy.regs[0] != 0x1140 {
		t.Fatalf("PHY BMCR %#x after WritePHY", r.phy.regs[0])
	}
	// No PHY at address 5: the bus pull-up reads 0xffff.
	if v, err := r.drv.ReadPHY(5, 1); err != nil || v != 0xffff {
		t.Fatalf("ReadPHY(5, 1) = %#x, %v", v, err)
	}
	if err := r.drv.Open(); err != nil {
		t.Fatal(err)
	}
	if st := r.mac.TxState(); st != dwmac.Suspended {
		t.Fatalf("TX DMA after Open: %v, want suspended on an empty ring", st)
	}
	if err := r.drv.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestHWLoopbackOneByOne sends frames one at a time through the real MAC looped
// back on itself and lets the machine go idle after each. Per frame (computed from
// Linux's flow and the model's RIWT rule): TI when the frame has left -> TX NAPI
// cleans it; the looped-back frame has DIC, so RI comes at RIWT expiry -> RX NAPI
// (with the TX NAPI brought along, 0 work). Two interrupts, three polls, two cleans.
func TestHWLoopbackOneByOne(t *testing.T) {
	r := newHWRig(t, nil)
	r.up(t)
	const n = 20
	bytesSent, octets := 0, 0
	for i := range n {
		f := testFrame(60+i*76, i)
		if err := r.drv.Xmit(f); err != nil {
			t.Fatal(err)
		}
		r.runIdle(10 * emu.Millisecond)
		if len(r.rx) != i+1 || !bytes.Equal(r.rx[i], f) {
			t.Fatalf("frame %d not received intact (%d frames back)", i, len(r.rx))
		}
		bytesSent += len(f)
		octets += len(f) + 4
	}
	wantStats(t, r.drv, map[string]uint64{
		"tx_pkt_n": n, "rx_pkt_n": n, "tx_set_ic_bit": n,
		"normal_irq_n": 2 * n, "tx_normal_irq_n": n, "rx_normal_irq_n": n,
		"napi_poll": 3 * n, "tx_clean": 2 * n,
		"mmc_tx_framecount_gb": n, "mmc_rx_framecount_gb": n,
		"mmc_tx_octetcount_gb": uint64(octets), "mmc_rx_octetcount_gb": uint64(octets),
		"mmc_rx_crc_error": 0, "rx_missed_cntr": 0, "rx_crc_errors": 0,
		"fatal_bus_error_irq": 0, "tx_undeflow_irq": 0,
	})
	ns := r.drv.NetStats()
	if ns.TxPackets != n || ns.RxPackets != n || ns.TxBytes != uint64(bytesSent) ||
		ns.RxBytes != uint64(bytesSent) || ns.RxErrors != 0 || ns.TxErrors != 0 {
		t.Fatalf("net stats %+v", ns)
	}
	// MMC counters are reset-on-read in the MAC and accumulated by the driver.
	if v := stat(t, r.drv, "mmc_tx_framecount_gb"); v != n {
		t.Fatalf("mmc_tx_framecount_gb re-read = %d, want %d", v, n)
	}
	if err := r.drv.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestHWLoopbackBurst queues a burst and checks that every frame comes back intact
// and in order; short frames come back padded to 60 bytes by the MAC.
func TestHWLoopbackBurst(t *testing.T) {
	r := newHWRig(t, nil)
	r.up(t)
	var sent [][]byte
	for i := range 300 {
		n := []int{MaxFrameLen, 60, 590, 1000, MinFrameLen}[i%5]
		f := testFrame(n, i)
		if err := r.drv.Transmit(f); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		sent = append(sent, f)
	}
	r.runIdle(100 * emu.Millisecond)
	if len(r.rx) != len(sent) {
		t.Fatalf("received %d of %d frames (outcomes %v)", len(r.rx), len(sent), r.outcomes)
	}
	for i, f := range sent {
		want := f
		if len(f) < 60 {
			want = append(append([]byte(nil), f...), make([]byte, 60-len(f))...)
		}
		if !bytes.Equal(r.rx[i], want) {
			t.Fatalf("frame %d (%d bytes) came back as %d bytes, different", i, len(f), len(r.rx[i]))
		}
	}
	wantStats(t, r.drv, map[string]uint64{
		"tx_pkt_n": 300, "rx_pkt_n": 300, "mmc_tx_framecount_gb": 300, "mmc_rx_framecount_gb": 300,
		"rx_missed_cntr": 0, "rx_crc_errors": 0, "tx_undeflow_irq": 0, "fatal_bus_error_irq": 0,
	})
	if err := r.drv.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestHWRingFull: with no virtual time passing the MAC sends nothing, so a 64-entry
// ring stops the queue after 45 frames; a Transmit blocked on the full ring
// completes once the machine runs and TX clean wakes the queue.
func TestHWRingFull(t *testing.T) {
	r := newHWRig(t, func(c *Config) { c.TxRingSize = 64 })
	r.loopback = false
	r.up(t)
	for i := range 45 {
		if err := r.drv.Xmit(testFrame(1000, i)); err != nil {
			t.Fatalf("Xmit %d: %v", i, err)
		}
	}
	if err := r.drv.Xmit(testFrame(1000, 45)); !errors.Is(err, ErrRingFull) {
		t.Fatalf("Xmit 46 = %v, want ErrRingFull", err)
	}
	done := make(chan error)
	go func() { done <- r.drv.Transmit(testFrame(1000, 45)) }()
	// Run until the blocked Transmit has gone through.
	for {
		r.m.Step()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			r.runIdle(10 * emu.Millisecond)
			if len(r.wire) != 46 {
				t.Fatalf("%d frames on the wire, want 46", len(r.wire))
			}
			if st := stat(t, r.drv, "tx_pkt_n"); st != 46 {
				t.Fatalf("tx_pkt_n %d, want 46", st)
			}
			return
		default:
		}
		if r.m.VirtualNow() > emu.Second {
			t.Fatal("queue never woke")
		}
	}
}

// TestHWRxNoOwnedDescriptors overruns a 64-entry RX ring before the driver runs:
// the MAC keeps 64 frames and drops 6 (missed-frame counter); the driver harvests
// the 64, refills, and then receives again.
func TestHWRxNoOwnedDescriptors(t *testing.T) {
	r := newHWRig(t, func(c *Config) { c.RxRingSize = 64 })
	r.up(t)
	var outcomes [dwmac.DroppedFiltered + 1]int
	for i := range 70 {
		outcomes[r.receiveWire(testFrame(100, i))]++
	}
	if outcomes[dwmac.Delivered] != 64 || outcomes[dwmac.DroppedNoDescriptor] != 6 {
		t.Fatalf("outcomes %v, want 64 delivered, 6 without descriptor", outcomes)
	}
	r.runIdle(10 * emu.Millisecond)
	if len(r.rx) != 64 {
		t.Fatalf("driver received %d frames, want 64", len(r.rx))
	}
	for i, f := range r.rx {
		if !bytes.Equal(f, testFrame(100, i)) {
			t.Fatalf("frame %d differs", i)
		}
	}
	wantStats(t, r.drv, map[string]uint64{
		"rx_pkt_n": 64, "rx_missed_cntr": 6,
		// The MAC received all 70 (good and bad frames); the DMA lost 6.
		"mmc_rx_framecount_gb": 70,
	})
	if st := r.mac.RxState(); st == dwmac.Suspended {
		t.Fatal("RX DMA still suspended after refill")
	}
	for i := range 5 {
		if o := r.receiveWire(testFrame(100, 100+i)); o != dwmac.Delivered {
			t.Fatalf("frame after refill: %v", o)
		}
	}
	r.runIdle(10 * emu.Millisecond)
	if len(r.rx) != 69 || !bytes.Equal(r.rx[68], testFrame(100, 104)) {
		t.Fatalf("received %d frames after refill, want 69", len(r.rx))
	}
}

// TestHWCoalescingTimer: with v5.5's 25-frame coalescing, ten frames get no IC and
// raise no interrupt; the coalescing timer cleans them 1000 us after the last Xmit.
func TestHWCoalescingTimer(t *testing.T) {
	r := newHWRig(t, func(c *Config) { c.TxCoalFrames = 25 })
	r.loopback = false
	r.up(t)
	t0 := r.m.VirtualNow()
	for i := range 10 {
		if err := r.drv.Xmit(testFrame(1514, i)); err != nil {
			t.Fatal(err)
		}
	}
	r.m.RunUntil(t0 + 999*emu.Microsecond)
	if len(r.wire) != 10 {
		t.Fatalf("%d frames sent before the timer, want 10", len(r.wire))
	}
	if v := stat(t, r.drv, "tx_clean"); v != 0 {
		t.Fatalf("tx_clean %d before the timer", v)
	}
	r.m.RunUntil(t0 + 1000*emu.Microsecond)
	wantStats(t, r.drv, map[string]uint64{
		"tx_clean": 1, "tx_pkt_n": 10, "napi_poll": 1, "normal_irq_n": 0, "tx_set_ic_bit": 0,
	})
}

// TestHWCloseReopen closes the device (DMA and MAC stopped) and opens it again on
// fresh rings; traffic flows again.
func TestHWCloseReopen(t *testing.T) {
	r := newHWRig(t, nil)
	r.up(t)
	if err := r.drv.Xmit(testFrame(200, 0)); err != nil {
		t.Fatal(err)
	}
	r.runIdle(time10ms)
	if err := r.drv.Close(); err != nil {
		t.Fatal(err)
	}
	if r.mac.TxState() != dwmac.Stopped || r.mac.RxState() != dwmac.Stopped {
		t.Fatalf("DMA after Close: tx %v rx %v", r.mac.TxState(), r.mac.RxState())
	}
	if err := r.drv.Open(); err != nil {
		t.Fatal(err)
	}
	if err := r.drv.LinkUp(1000, true); err != nil {
		t.Fatal(err)
	}
	if err := r.drv.Xmit(testFrame(200, 1)); err != nil {
		t.Fatal(err)
	}
	r.runIdle(time10ms)
	if len(r.rx) != 2 || !bytes.Equal(r.rx[1], testFrame(200, 1)) {
		t.Fatalf("received %d frames across close/open", len(r.rx))
	}
	// Open resets the extra statistics, as stmmac_open clears xstats.
	if v := stat(t, r.drv, "tx_pkt_n"); v != 1 {
		t.Fatalf("tx_pkt_n after reopen %d, want 1", v)
	}
}

const time10ms = 10 * emu.Millisecond

// TestHWFatalBusError gives the driver a region whose descriptors lie in RAM but
// whose buffers lie past its end. A received frame makes the RX DMA hit the hole:
// the MAC raises FBI and stops RX. Linux v5.4 treats FBI as tx_hard_error and runs
// stmmac_tx_err (TX restarted, tx_errors + 1); RX stays stopped. Xmit cannot copy
// into a buffer outside RAM and says so with the bus error.
func TestHWFatalBusError(t *testing.T) {
	r := newHWRig(t, func(c *Config) {
		c.RAMStart = hwRAMSize - 2*512*descSize // both rings just fit
		c.RAMSize = 0x184000
	})
	r.up(t)
	if o := r.receiveWire(testFrame(100, 0)); o != dwmac.DroppedBusError {
		t.Fatalf("outcome %v, want a DMA bus error", o)
	}
	r.runIdle(time10ms)
	wantStats(t, r.drv, map[string]uint64{"fatal_bus_error_irq": 1, "rx_pkt_n": 0})
	if ns := r.drv.NetStats(); ns.TxErrors != 1 || ns.TxErrFlushed != 0 {
		t.Fatalf("net stats %+v, want one tx_err", ns)
	}
	if r.mac.RxState() != dwmac.Stopped || r.mac.TxState() == dwmac.Stopped {
		t.Fatalf("after FBI: rx %v (want stopped), tx %v (want restarted)", r.mac.RxState(), r.mac.TxState())
	}
	err := r.drv.Xmit(testFrame(100, 1))
	var be *emu.BusError
	if !errors.As(err, &be) || r.drv.NetStats().TxDropped != 1 {
		t.Fatalf("Xmit into a buffer outside RAM: %v, tx_dropped %d", err, r.drv.NetStats().TxDropped)
	}
	if err := r.drv.Err(); err != nil {
		t.Fatalf("async error %v", err)
	}
}
