package stmmac

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"mesonemu/emu"
)

// TestFakeLoopback sends frames of every size class through the fake MAC's
// loopback and checks contents and the exact counters: all 100 frames complete
// before the one interrupt, so the softirq runs two RX polls (64 + 36) and two TX
// polls (100 cleaned, reported as 64, then 0).
func TestFakeLoopback(t *testing.T) {
	r := newFakeRig(t, nil)
	r.up(t)
	var sent [][]byte
	bytesSent := 0
	for i := range 100 {
		n := MinFrameLen + i*15
		if i == 99 {
			n = MaxFrameLen
		}
		f := testFrame(n, i)
		if err := r.drv.Xmit(f); err != nil {
			t.Fatalf("Xmit %d: %v", i, err)
		}
		sent = append(sent, f)
		bytesSent += n
	}
	r.m.Advance(emu.Millisecond)
	if len(r.rx) != len(sent) {
		t.Fatalf("received %d frames, want %d", len(r.rx), len(sent))
	}
	for i := range sent {
		if !bytes.Equal(r.rx[i], sent[i]) {
			t.Fatalf("frame %d differs: got %d bytes, want %d", i, len(r.rx[i]), len(sent[i]))
		}
	}
	wantStats(t, r.drv, map[string]uint64{
		"tx_pkt_n": 100, "rx_pkt_n": 100, "tx_set_ic_bit": 100,
		"normal_irq_n": 1, "rx_normal_irq_n": 1, "tx_normal_irq_n": 1,
		"napi_poll": 4, "tx_clean": 2, "threshold": 1,
		"mmc_tx_framecount_gb": 100, "rx_missed_cntr": 0, "rx_crc_errors": 0,
	})
	// Reset-on-read counters accumulate in the driver: a second read is unchanged.
	if v := stat(t, r.drv, "mmc_tx_framecount_gb"); v != 100 {
		t.Fatalf("mmc_tx_framecount_gb on second read = %d", v)
	}
	ns := r.drv.NetStats()
	if ns.TxPackets != 100 || ns.RxPackets != 100 || ns.TxBytes != uint64(bytesSent) || ns.RxBytes != uint64(bytesSent) {
		t.Fatalf("net stats %+v, want 100/100 packets and %d bytes", ns, bytesSent)
	}
	if err := r.drv.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestXmitRejects(t *testing.T) {
	r := newFakeRig(t, nil)
	if err := r.drv.Xmit(testFrame(60, 0)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Xmit before Open: %v", err)
	}
	if err := r.drv.Probe(); err != nil {
		t.Fatal(err)
	}
	if err := r.drv.Open(); err != nil {
		t.Fatal(err)
	}
	// Carrier is off from Open until the link comes up, and after it goes down.
	for _, step := range []struct {
		up   bool
		want error
	}{{false, ErrNoCarrier}, {true, nil}, {false, ErrNoCarrier}, {true, nil}} {
		if step.up != r.drv.Carrier() {
			if err := r.drv.SetLink(step.up, 1000, true); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.drv.Xmit(testFrame(60, 0)); !errors.Is(err, step.want) {
			t.Fatalf("Xmit with carrier %v = %v, want %v", step.up, err, step.want)
		}
	}
	for _, n := range []int{0, 13, 1515, 9000} {
		if err := r.drv.Xmit(make([]byte, n)); !errors.Is(err, ErrFrameSize) {
			t.Errorf("Xmit(%d bytes) = %v, want ErrFrameSize", n, err)
		}
	}
	if err := r.drv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.drv.Xmit(testFrame(60, 0)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Xmit after Close: %v", err)
	}
}

// fullRingRig is an open device whose TX DMA stalls, with frames 0..44 of 100 bytes
// queued on a 64-entry ring: as many as it takes before the queue stops.
func fullRingRig(t *testing.T) *fakeRig {
	t.Helper()
	r := newFakeRig(t, func(c *Config) { c.TxRingSize = 64 })
	r.up(t)
	r.lock(func() { r.mac.txStalled = true })
	for i := range 45 {
		if err := r.drv.Xmit(testFrame(100, i)); err != nil {
			t.Fatalf("Xmit %d: %v", i, err)
		}
	}
	return r
}

// TestRingFull stalls the TX DMA: a 64-entry ring takes 63-18 = 45 frames before
// the queue stops (Linux stops at MAX_SKB_FRAGS+1 free); the next Xmit is busy, a
// blocked Transmit resumes once TX clean has freed more than a quarter of the ring.
func TestRingFull(t *testing.T) {
	r := fullRingRig(t)
	if err := r.drv.Xmit(testFrame(100, 45)); !errors.Is(err, ErrRingFull) {
		t.Fatalf("Xmit 46 = %v, want ErrRingFull", err)
	}
	wake := r.drv.TxWake()
	select {
	case <-wake:
		t.Fatal("TxWake fired while the ring is full")
	default:
	}
	done := make(chan error)
	go func() { done <- r.drv.Transmit(testFrame(100, 45)) }()
	r.lock(func() {
		r.mac.txStalled = false
		r.mac.runTx()
	})
	r.m.Advance(emu.Microsecond) // interrupt: clean 45, wake the queue
	<-wake
	if err := <-done; err != nil {
		t.Fatalf("Transmit: %v", err)
	}
	r.m.Advance(emu.Microsecond)
	if len(r.rx) != 46 {
		t.Fatalf("received %d frames, want 46", len(r.rx))
	}
	for i, f := range r.rx {
		if !bytes.Equal(f, testFrame(100, i)) {
			t.Fatalf("frame %d corrupted or out of order", i)
		}
	}
}

// TestCloseWakesTransmit: a Transmit blocked on a full ring returns ErrClosed
// when the device closes.
func TestCloseWakesTransmit(t *testing.T) {
	r := fullRingRig(t)
	wake := r.drv.TxWake()
	done := make(chan error)
	go func() { done <- r.drv.Transmit(testFrame(100, 45)) }()
	if err := r.drv.Close(); err != nil {
		t.Fatal(err)
	}
	<-wake
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("blocked Transmit after Close = %v, want ErrClosed", err)
	}
	var csr6, ctrl uint32
	r.lock(func() { csr6, ctrl = r.mac.regs[dmaControl], r.mac.regs[gmacControl] })
	if csr6&(dmaControlST|dmaControlSR) != 0 || ctrl&(gmacControlTE|gmacControlRE) != 0 {
		t.Fatalf("after Close CSR6 %#x, MAC control %#x: DMA or MAC still enabled", csr6, ctrl)
	}
}

// TestRxNoOwnedDescriptors overruns a 64-entry RX ring with 70 frames before the
// driver runs: 6 are missed (counted from 0x1020), the RX DMA suspends; the driver
// harvests 64 (a full NAPI budget, so a second poll follows), refills by ORing OWN
// into the stale status, and kicks the DMA with one RX poll demand.
func TestRxNoOwnedDescriptors(t *testing.T) {
	r := newFakeRig(t, func(c *Config) { c.RxRingSize = 64 })
	r.up(t)
	r.lock(func() {
		for i := range 70 {
			r.mac.receive(testFrame(64, i))
		}
	})
	r.m.Advance(emu.Microsecond)
	if len(r.rx) != 64 {
		t.Fatalf("received %d frames, want 64", len(r.rx))
	}
	wantStats(t, r.drv, map[string]uint64{
		"rx_pkt_n": 64, "rx_missed_cntr": 6, "normal_irq_n": 1, "rx_normal_irq_n": 1,
		// RUE is not in Linux's CSR7 mask, so RU never raises AIS: not counted.
		"rx_buf_unav_irq": 0,
		"napi_poll":       3, // RX 64 (budget spent), TX 0, RX 0
	})
	if ns := r.drv.NetStats(); ns.RxMissedErrors != 6 {
		t.Fatalf("rx_missed_errors %d, want 6", ns.RxMissedErrors)
	}
	polls := 0
	var d0 uint32
	r.lock(func() {
		for _, op := range r.mac.writes() {
			if op.off == dmaRcvPollDemand {
				polls++
			}
		}
		d0, _ = r.ram.Read32(r.drv.Layout().RxDesc)
	})
	if polls != 1 {
		t.Fatalf("RX poll demands %d, want 1", polls)
	}
	// Refill only ORs OWN in: FS|LS|frame type and FL = 68 stay from the DMA.
	if want := uint32(rdes0OWN | 68<<16 | rdes0FirstDescriptor | rdes0LastDescriptor | rdes0FrameType); d0 != want {
		t.Fatalf("refilled RDES0 %#x, want %#x", d0, want)
	}
	r.lock(func() {
		for i := range 5 {
			r.mac.receive(testFrame(64, 100+i))
		}
	})
	r.m.Advance(emu.Microsecond)
	if len(r.rx) != 69 || !bytes.Equal(r.rx[68], testFrame(64, 104)) {
		t.Fatalf("after refill received %d frames", len(r.rx))
	}
}

// TestSoftirqBudget: 400 frames wait when the interrupt comes. One softirq run
// spends netdev_budget 300: five RX polls of 64 (320 frames, the last run overdraws
// as net_rx_action does) plus one empty TX poll; the DMA interrupts stay masked and
// the rest (64 + 16) runs from the deferred softirq.
func TestSoftirqBudget(t *testing.T) {
	r := newFakeRig(t, nil)
	r.up(t)
	r.lock(func() {
		for i := range 400 {
			r.mac.receive(testFrame(64, i))
		}
	})
	r.m.DeliverInterrupts()
	var csr7 uint32
	r.lock(func() { csr7 = r.mac.regs[dmaIntrEna] })
	if len(r.rx) != 320 || csr7 != 0 {
		t.Fatalf("after one softirq: %d frames, CSR7 %#x; want 320 and 0", len(r.rx), csr7)
	}
	r.m.Advance(emu.Microsecond)
	r.lock(func() { csr7 = r.mac.regs[dmaIntrEna] })
	if len(r.rx) != 400 || csr7 != dmaIntrDefaultMask {
		t.Fatalf("after the deferred softirq: %d frames, CSR7 %#x", len(r.rx), csr7)
	}
	wantStats(t, r.drv, map[string]uint64{"napi_poll": 8, "rx_pkt_n": 400, "normal_irq_n": 1})
}

// TestCoalescingTimer uses v5.5's 25-frame coalescing: ten frames without IC are
// cleaned by the timer 1000 us after the last Xmit, with no interrupt at all; the
// 25th frame since the last IC gets IC again.
func TestCoalescingTimer(t *testing.T) {
	for _, hz := range []int{0, 100} {
		t.Run(fmt.Sprintf("HZ=%d", hz), func(t *testing.T) {
			r := newFakeRig(t, func(c *Config) { c.TxCoalFrames = 25; c.HZ = hz })
			r.mac.loopback = false
			r.up(t)
			t0 := r.m.VirtualNow()
			for i := range 10 {
				if err := r.drv.Xmit(testFrame(60, i)); err != nil {
					t.Fatal(err)
				}
			}
			fire := t0 + 1000*emu.Microsecond
			if hz == 100 {
				fire = (t0/(10*emu.Millisecond) + 1) * 10 * emu.Millisecond
			}
			r.m.RunUntil(fire - 1)
			if got := stat(t, r.drv, "tx_clean"); got != 0 {
				t.Fatalf("tx_clean %d before the timer", got)
			}
			r.m.RunUntil(fire)
			wantStats(t, r.drv, map[string]uint64{
				"tx_clean": 1, "tx_pkt_n": 10, "napi_poll": 1, "normal_irq_n": 0,
				"tx_set_ic_bit": 0,
			})
			for i := range 15 {
				if err := r.drv.Xmit(testFrame(60, 10+i)); err != nil {
					t.Fatal(err)
				}
			}
			r.m.Advance(emu.Microsecond)
			wantStats(t, r.drv, map[string]uint64{
				"tx_set_ic_bit": 1, "tx_normal_irq_n": 1, "tx_pkt_n": 25, "tx_clean": 2,
			})
		})
	}
}

// TestFatalBusError: FBI alone is a tx_hard_error; stmmac_tx_err stops the TX DMA,
// drops the three queued frames, rewrites the list base and restarts.
func TestFatalBusError(t *testing.T) {
	r := newFakeRig(t, nil)
	r.up(t)
	r.lock(func() { r.mac.txStalled = true })
	for i := range 3 {
		if err := r.drv.Xmit(testFrame(80, i)); err != nil {
			t.Fatal(err)
		}
	}
	var mark int
	r.lock(func() {
		mark = len(r.mac.ops)
		r.mac.raise(dmaStatusFBI | dmaStatusTPS)
	})
	r.m.Advance(emu.Microsecond)
	var after []regOp
	r.lock(func() {
		for _, op := range r.mac.ops[mark:] {
			if op.write {
				after = append(after, op)
			}
		}
	})
	l := r.drv.Layout()
	want := []regOp{
		{true, dmaStatus, dmaStatusFBI | dmaStatusTPS | dmaStatusAIS | dmaStatusTU},
		{true, dmaControl, 0x02200006}, // ST off
		{true, dmaTxBaseAddr, l.TxDesc},
		{true, dmaControl, 0x02202006}, // ST on
	}
	if fmt.Sprint(after) != fmt.Sprint(want) {
		t.Fatalf("writes after FBI:\n got %v\nwant %v", after, want)
	}
	wantStats(t, r.drv, map[string]uint64{"fatal_bus_error_irq": 1, "tx_process_stopped_irq": 1})
	if ns := r.drv.NetStats(); ns.TxErrors != 1 || ns.TxErrFlushed != 3 {
		t.Fatalf("net stats after tx_err: %+v", ns)
	}
	r.lock(func() { r.mac.txStalled = false })
	if err := r.drv.Xmit(testFrame(80, 9)); err != nil {
		t.Fatal(err)
	}
	r.m.Advance(emu.Microsecond)
	if len(r.rx) != 1 || !bytes.Equal(r.rx[0], testFrame(80, 9)) {
		t.Fatalf("after tx_err received %d frames", len(r.rx))
	}
}

// TestRxDescriptorStatus feeds one crafted RDES0 at a time and checks what
// ndesc_get_rx_status and stmmac_rx make of it.
func TestRxDescriptorStatus(t *testing.T) {
	fl := func(n int) uint32 { return uint32(n) << rdes0FrameLenShift }
	fsls := uint32(rdes0FirstDescriptor | rdes0LastDescriptor)
	tests := []struct {
		name      string
		rdes0     uint32
		delivered int // bytes handed to the receiver, -1 for none
		xstat     string
		net       func(NetStats) uint64
		wantNet   uint64
	}{
		{"good", fsls | fl(64), 60, "", nil, 0},
		{"crc error", fsls | rdes0ErrorSummary | rdes0CRCError | fl(64), -1, "rx_crc_errors",
			func(n NetStats) uint64 { return n.RxCRCErrors + n.RxErrors }, 2},
		{"no last descriptor", rdes0FirstDescriptor | fl(64), -1, "",
			func(n NetStats) uint64 { return n.RxLengthErrors + n.RxErrors }, 2},
		{"longer than buffer", fsls | fl(1537), -1, "",
			func(n NetStats) uint64 { return n.RxLengthErrors + 10*n.RxErrors }, 1},
		{"shorter than FCS", fsls | fl(3), -1, "",
			func(n NetStats) uint64 { return n.RxLengthErrors + 10*n.RxErrors }, 1},
		{"length error", fsls | rdes0LengthError | fl(64), -1, "rx_length",
			func(n NetStats) uint64 { return n.RxErrors }, 1},
		{"overflow", fsls | rdes0ErrorSummary | rdes0OverflowError | fl(64), -1, "overflow_error",
			func(n NetStats) uint64 { return n.RxErrors }, 1},
		{"mii error", fsls | rdes0MIIError | fl(64), -1, "rx_mii",
			func(n NetStats) uint64 { return n.RxErrors }, 1},
		{"dribbling only", fsls | rdes0Dribbling | fl(64), 60, "dribbling_bit", nil, 0},
		{"vlan tag", fsls | rdes0VLANTag | fl(68), 64, "vlan_tag", nil, 0},
		{"collision", fsls | rdes0ErrorSummary | rdes0Collision | fl(64), -1, "rx_collision",
			func(n NetStats) uint64 { return n.Collisions + n.RxErrors }, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newFakeRig(t, nil)
			r.up(t)
			r.lock(func() {
				r.ram.Write32(r.drv.Layout().RxDesc, tt.rdes0)
				r.mac.raise(dmaStatusRI)
			})
			r.m.Advance(emu.Microsecond)
			switch {
			case tt.delivered < 0 && len(r.rx) != 0:
				t.Fatalf("delivered %d frames, want none", len(r.rx))
			case tt.delivered >= 0 && (len(r.rx) != 1 || len(r.rx[0]) != tt.delivered):
				t.Fatalf("delivered %d frames, want one of %d bytes", len(r.rx), tt.delivered)
			}
			want := map[string]uint64{"rx_pkt_n": 1}
			if tt.xstat != "" {
				want[tt.xstat] = 1
			}
			wantStats(t, r.drv, want)
			if ns := r.drv.NetStats(); tt.delivered >= 0 && (ns.RxPackets != 1 || ns.RxErrors != 0) {
				t.Fatalf("good frame: net stats %+v", ns)
			}
			if tt.net != nil {
				if got := tt.net(r.drv.NetStats()); got != tt.wantNet {
					t.Fatalf("net counters %+v", r.drv.NetStats())
				}
			}
		})
	}
}

// TestTxDescriptorStatus checks ndesc_get_tx_status on written-back TDES0 values.
func TestTxDescriptorStatus(t *testing.T) {
	tests := []struct {
		name    string
		tdes0   uint32
		xstat   string
		wantErr bool
		net     func(NetStats) uint64
		wantNet uint64
	}{
		{"ok", 0, "", false, nil, 0},
		{"underflow", tdes0ErrorSummary | tdes0UnderflowError, "tx_underflow", true,
			func(n NetStats) uint64 { return n.TxFIFOErrors }, 1},
		{"no carrier", tdes0ErrorSummary | tdes0NoCarrier, "tx_carrier", true,
			func(n NetStats) uint64 { return n.TxCarrierErrors }, 1},
		{"loss of carrier", tdes0ErrorSummary | tdes0LossCarrier, "tx_losscarrier", true,
			func(n NetStats) uint64 { return n.TxCarrierErrors }, 1},
		{"late collision", tdes0ErrorSummary | tdes0LateCollision | 3<<3, "", true,
			func(n NetStats) uint64 { return n.Collisions }, 3},
		{"deferred", tdes0Deferred, "tx_deferred", false, nil, 0},
		{"vlan", tdes0VLANFrame, "tx_vlan", false, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newFakeRig(t, nil)
			r.mac.loopback = false
			r.up(t)
			r.lock(func() { r.mac.txErrBits = tt.tdes0 })
			if err := r.drv.Xmit(testFrame(60, 0)); err != nil {
				t.Fatal(err)
			}
			r.m.Advance(emu.Microsecond)
			want := map[string]uint64{"tx_pkt_n": 1}
			if tt.wantErr {
				want["tx_pkt_n"] = 0
			}
			if tt.xstat != "" {
				want[tt.xstat] = 1
			}
			wantStats(t, r.drv, want)
			ns := r.drv.NetStats()
			if (ns.TxErrors == 1) != tt.wantErr || (ns.TxPackets == 1) == tt.wantErr {
				t.Fatalf("tx_errors %d tx_packets %d", ns.TxErrors, ns.TxPackets)
			}
			if tt.net != nil && tt.net(ns) != tt.wantNet {
				t.Fatalf("net stats %+v", ns)
			}
		})
	}
}

// TestStatsOrder: MMC counters first, then the extra statistics, as ethtool -S.
func TestStatsOrder(t *testing.T) {
	r := newFakeRig(t, nil)
	r.up(t)
	all, err := r.drv.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(mmcCounters)+int(numXStats) {
		t.Fatalf("%d statistics, want %d", len(all), len(mmcCounters)+int(numXStats))
	}
	checks := map[int]string{
		0: "mmc_tx_octetcount_gb", len(mmcCounters) - 1: "mmc_rx_icmp_err_octets",
		len(mmcCounters): "tx_underflow", len(all) - 1: "phy_eee_wakeup_error_n",
	}
	for i, name := range checks {
		if all[i].Name != name {
			t.Errorf("stat %d is %q, want %q", i, all[i].Name, name)
		}
	}
	seen := map[string]bool{}
	for _, s := range all {
		if seen[s.Name] {
			t.Errorf("duplicate statistic %q", s.Name)
		}
		seen[s.Name] = true
	}
	// Without MMC in the HW feature word only the extra statistics remain.
	r2 := newFakeRig(t, nil)
	r2.mac.hwFeature &^= hwFeatMMC
	r2.up(t)
	if all, _ := r2.drv.Stats(); len(all) != int(numXStats) {
		t.Fatalf("%d statistics without MMC, want %d", len(all), numXStats)
	}
}

func TestProbeRejectsEnhancedDescriptors(t *testing.T) {
	r := newFakeRig(t, nil)
	r.mac.hwFeature |= hwFeatEnhDesc
	if err := r.drv.Probe(); err == nil {
		t.Fatal("Probe accepted enhanced descriptors")
	}
	if err := r.drv.Open(); err == nil {
		t.Fatal("Open without a successful Probe")
	}
}

// TestConcurrentTransmit has four goroutines transmitting through a 64-entry ring
// while another runs the machine (the interrupt handler); every frame must come
// back exactly once. Run with -race.
func TestConcurrentTransmit(t *testing.T) {
	r := newFakeRig(t, func(c *Config) { c.TxRingSize = 64 })
	r.up(t)
	const senders, each = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := r.drv.Transmit(testFrame(64+s, s*each+i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	sendersDone := make(chan struct{})
	go func() { wg.Wait(); close(sendersDone) }()
	// The run loop: this goroutine delivers interrupts until all frames are back.
	for steps := 0; len(r.rx) < senders*each; steps++ {
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		if steps > 50_000_000 {
			t.Fatalf("stuck after %d frames", len(r.rx))
		}
		r.m.Advance(emu.Microsecond)
	}
	<-sendersDone
	seen := map[string]bool{}
	for _, f := range r.rx {
		k := string(f)
		if seen[k] {
			t.Fatal("frame received twice")
		}
		seen[k] = true
	}
	for s := range senders {
		for i := range each {
			if !seen[string(testFrame(64+s, s*each+i))] {
				t.Fatalf("frame %d of sender %d missing", i, s)
			}
		}
	}
	if err := r.drv.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTxCompletionReports: the TX completion hook hears of every frame exactly
// once: at the TX clean that frees it (here the coalescing timer's), or when
// Close frees what the ring still holds.
func TestTxCompletionReports(t *testing.T) {
	r := newFakeRig(t, func(c *Config) { c.TxCoalFrames = 25; c.HZ = 100 })
	r.mac.loopback = false
	var reported []int
	r.drv.SetTxCompletion(func(n int) { reported = append(reported, n) })
	r.up(t)
	for i := range 10 {
		if err := r.drv.Xmit(testFrame(60, i)); err != nil {
			t.Fatal(err)
		}
	}
	r.m.Advance(5 * emu.Microsecond)
	if len(reported) != 0 {
		t.Fatalf("completions %v before any TX clean", reported)
	}
	r.m.Advance(20 * emu.Millisecond) // the 1 ms timer, on the next 10 ms tick
	if fmt.Sprint(reported) != "[10]" {
		t.Fatalf("completions %v after the timer, want [10]", reported)
	}
	for i := range 5 {
		if err := r.drv.Xmit(testFrame(60, 10+i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.drv.Close(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(reported) != "[10 5]" {
		t.Fatalf("completions %v after Close, want [10 5]", reported)
	}
}

// TestBQLHoldsTheQueue: with byte queue limits and v5.5's coalescing (IC every
// 25 frames, the TX timer on 10 ms ticks), the limit starts at zero: the first
// frame stops the queue until the timer's TX clean at the next tick, and each
// starved completion grows the limit by what it freed, so 1, 2, 4 and 8 frames go
// in per tick (the limit 1, 3, 7, 15 frames) where the ring alone would take 493.
func TestBQLHoldsTheQueue(t *testing.T) {
	const size = 1514
	tests := []struct {
		tick      int
		wantIn    int // frames Xmit takes before ErrRingFull
		wantLimit int // after the tick's TX clean, in frames
	}{
		{1, 1, 1}, {2, 2, 3}, {3, 4, 7}, {4, 8, 15},
	}
	r := newFakeRig(t, func(c *Config) { c.TxCoalFrames = 25; c.HZ = 100; c.BQL = true })
	r.mac.loopback = false
	r.up(t)
	next := 0
	for _, tt := range tests {
		in := 0
		for ; in <= tt.wantIn; in++ {
			if err := r.drv.Xmit(testFrame(size, next)); errors.Is(err, ErrRingFull) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			next++
		}
		select {
		case <-r.drv.TxWake():
			t.Fatalf("tick %d: TxWake fired while BQL holds the queue", tt.tick)
		default:
		}
		now := r.m.VirtualNow()
		r.m.RunUntil((now/(10*emu.Millisecond) + 1) * 10 * emu.Millisecond)
		st := r.drv.BQL()
		if in != tt.wantIn || st.Limit != tt.wantLimit*size || st.InFlight != 0 {
			t.Fatalf("tick %d: %d frames in, limit %d B, in flight %d B; want %d frames, limit %d B, 0",
				tt.tick, in, st.Limit, st.InFlight, tt.wantIn, tt.wantLimit*size)
		}
		select {
		case <-r.drv.TxWake():
		default:
			t.Fatalf("tick %d: the queue was not woken by TX clean", tt.tick)
		}
	}
	if st := r.drv.BQL(); st.Stops != uint64(len(tests)) {
		t.Fatalf("BQL stopped the queue %d times, want %d", st.Stops, len(tests))
	}
}

// TestRxInterruptCleansTx: three frames sent under 25-frame coalescing carry no
// IC. In v5.4/v5.5 the RX interrupt of one received frame schedules the TX NAPI
// too, which frees them at once; with RxIRQLeavesTx (v5.6) they wait for the
// TX timer's next 10 ms tick.
func TestRxInterruptCleansTx(t *testing.T) {
	tests := []struct {
		name        string
		leavesTx    bool
		wantCleaned uint64 // tx_pkt_n right after the RX interrupt
	}{
		{"v5.5: RX schedules TX", false, 3},
		{"v5.6: independent", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newFakeRig(t, func(c *Config) { c.TxCoalFrames = 25; c.HZ = 100; c.RxIRQLeavesTx = tt.leavesTx })
			r.mac.loopback = false
			r.up(t)
			for i := range 3 {
				if err := r.drv.Xmit(testFrame(100, i)); err != nil {
					t.Fatal(err)
				}
			}
			r.m.Advance(emu.Microsecond)
			r.lock(func() { r.mac.receive(testFrame(64, 9)) })
			r.m.Advance(emu.Microsecond)
			wantStats(t, r.drv, map[string]uint64{"rx_pkt_n": 1, "rx_normal_irq_n": 1, "tx_pkt_n": tt.wantCleaned})
			r.m.Advance(20 * emu.Millisecond)
			wantStats(t, r.drv, map[string]uint64{"tx_pkt_n": 3})
		})
	}
}
