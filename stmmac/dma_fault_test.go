package stmmac

import (
	"bytes"
	"testing"

	"mesonemu/emu"
)

// Fault classes of the robustness work (docs/robustness.md): what a broken or hostile guest driver can do to
// the DMA engines. Each test asserts the exact CSR5 bits and counters the model
// answers with, and that the other channel keeps serving afterwards. Cases the
// earlier tests already prove (TestTxLoopingChainConsumesVirtualTime,
// TestTxFatalBusErrorRxKeepsServing, TestRxBusErrorTxKeepsServing, TestTxJabber,
// TestRxDescriptorStatusExact, TestSoftwareResetRestoresEverything) are not repeated.

// w1cAll clears every write-one-to-clear bit of CSR5.
const w1cAll = 0x1ffff

// csr5 builds an expected CSR5 value from source bits and the two process states.
func csr5(bits, ts, rs uint32) uint32 { return bits | stTS.Set(0, ts) | stRS.Set(0, rs) }

// checkCSR5 compares CSR5 with want and names the difference.
func checkCSR5(t *testing.T, r *rig, want uint32) {
	t.Helper()
	if got := r.rd(offStatus); got != want {
		t.Fatalf("CSR5 = %#08x, want %#08x (TS %d RS %d EB %d)", got, want,
			stTS.Get(got), stRS.Get(got), stEB.Get(got))
	}
}

// expectTxServes queues one frame on a fresh 4-entry TX ring (restarting the TX
// channel on it) and checks it leaves.
func expectTxServes(t *testing.T, r *rig) {
	t.Helper()
	const at = 0x8000
	r.w(offOpMode, r.rd(offOpMode)&^opST.Mask())
	tx := newRing(r, at, 4, txBufAt+0x8000, 2048, false)
	tx.initTx()
	r.w(offTxBase, at)
	f := testFrame(300, peerMAC, 0x77)
	tx.queueTx(0, f, true)
	before := len(r.sent)
	r.w(offOpMode, r.rd(offOpMode)|opST.Mask())
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != before+1 || !bytes.Equal(r.sent[len(r.sent)-1].frame, withFCS(f)) {
		t.Fatalf("TX did not keep serving: %d frames sent", len(r.sent)-before)
	}
}

// expectRxServes restarts the RX channel on a fresh ring and checks a frame lands.
func expectRxServes(t *testing.T, r *rig) {
	t.Helper()
	const at = 0x9000
	r.w(offOpMode, r.rd(offOpMode)&^opSR.Mask())
	rx := newRing(r, at, 2, rxBufAt+0x8000, 1536, false)
	rx.initRx(false)
	r.w(offRxBase, at)
	r.w(offOpMode, r.rd(offOpMode)|opSR.Mask())
	f := withFCS(testFrame(300, ourMAC, 0x55))
	if o := r.receive(f); o != Delivered {
		t.Fatalf("RX did not keep serving: %v", o)
	}
	if !bytes.Equal(r.readRAM(rx.buf(0), len(f)), f) {
		t.Fatal("RX kept serving but the data differ")
	}
}

// TestFaultLoopingListsBothChannels: descriptor lists that never end. TX: a chained
// descriptor pointing at itself, OWN set, no LS (QEMU's e1000/pcnet ring-loop class).
// RX: two chained descriptors with no buffer space pointing at each other.
// Virtual time advances, the host returns, the visits are bounded, and the other
// channel serves in the meantime.
func TestFaultLoopingListsBothChannels(t *testing.T) {
	t.Run("TX loop, RX serves", func(t *testing.T) {
		r := newRig(t, Config{})
		newRing(r, txRingAt, 4, txBufAt, 2048, false).initTx()
		rx := newRing(r, rxRingAt, 4, rxBufAt, 1536, false)
		rx.initRx(false)
		r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
		r.w(offOpMode, r.rd(offOpMode)&^opST.Mask())
		const loop = 0x2000
		r.setRAM32(loop+4, tdes1FS|tdes1TCH)
		r.setRAM32(loop+12, loop)
		r.setRAM32(loop, descOWN)
		r.w(offTxBase, loop)
		r.w(offStatus, w1cAll)
		fetches := r.counters().TxDescFetches
		t0 := r.m.VirtualNow()
		r.w(offOpMode, r.rd(offOpMode)|opST.Mask())
		r.m.Advance(emu.Millisecond)
		if r.m.VirtualNow() != t0+emu.Millisecond {
			t.Fatalf("virtual time %d, want %d", r.m.VirtualNow(), t0+emu.Millisecond)
		}
		// Fetching, RX waiting, nothing raised: a loop is not an error the DMA can see.
		checkCSR5(t, r, csr5(0, tsFetching, rsWaiting))
		// 1 ms at 32 ns per fetch, rounded up to whole 64-descriptor batches.
		if got := r.counters().TxDescFetches - fetches; got != uint64(emu.Millisecond/2048+1)*64 {
			t.Fatalf("%d descriptor fetches in 1 ms", got)
		}
		f := withFCS(testFrame(500, ourMAC, 1))
		if o := r.receive(f); o != Delivered {
			t.Fatalf("RX during the TX loop: %v", o)
		}
		if d := rx.get(0)[0]; d != rdes0FS|rdes0LS|rdes0FrameType|504<<rdes0FLShift {
			t.Fatalf("RDES0 = %#x", d)
		}
		checkCSR5(t, r, csr5(stRI.Mask()|stNIS.Mask(), tsFetching, rsWaiting))
		if !r.irqLevel() || len(r.sent) != 0 {
			t.Fatalf("line %v, %d frames sent", r.irqLevel(), len(r.sent))
		}
	})
	t.Run("RX loop, TX serves", func(t *testing.T) {
		r := newRig(t, Config{})
		newRing(r, txRingAt, 4, txBufAt, 2048, false).initTx()
		const d0, d1 = rxRingAt, rxRingAt + 16
		r.setRAM32(d0+4, rdes1RCH)
		r.setRAM32(d0+12, d1)
		r.setRAM32(d0, descOWN)
		r.setRAM32(d1+4, rdes1RCH)
		r.setRAM32(d1+12, d0)
		r.setRAM32(d1, descOWN)
		r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
		r.w(offStatus, w1cAll)
		f := withFCS(testFrame(500, ourMAC, 2))
		if o := r.receive(f); o != DroppedNoDescriptor {
			t.Fatalf("outcome %v", o)
		}
		// 64 visits (d0, d1, d0, ... d1) and the fetch of the 65th; the last visited
		// descriptor is closed with a descriptor error and no data, d0 stays owned.
		c := r.counters()
		if c.RxDescFetches != rxMaxFrameDescs+1 || c.RxTruncated != 1 || c.RxDroppedNoDescriptor != 1 {
			t.Fatalf("fetches %d truncated %d no-desc %d", c.RxDescFetches, c.RxTruncated, c.RxDroppedNoDescriptor)
		}
		if got := r.ram32(d1); got != rdes0FS|rdes0LS|rdes0DescError|rdes0ES|rdes0FrameType {
			t.Fatalf("RDES0[1] = %#x", got)
		}
		if got := r.ram32(d0); got != descOWN {
			t.Fatalf("RDES0[0] = %#x, want it left owned", got)
		}
		checkCSR5(t, r, csr5(stRI.Mask()|stNIS.Mask(), tsSuspended, rsWaiting))
		// Second frame: d1 now belongs to the host, so it stops at d0 and suspends.
		if o := r.receive(f); o != DroppedNoDescriptor {
			t.Fatalf("second outcome %v", o)
		}
		// RU is not among Linux's enabled sources (CSR7 0x1a061): no AIS.
		checkCSR5(t, r, csr5(stRI.Mask()|stNIS.Mask()|stRU.Mask(), tsSuspended, rsSuspended))
		if r.rd(offMissed) != 1 {
			t.Fatal("missed frame counter")
		}
		expectTxServes(t, r)
	})
}

// TestFaultZeroLengthBuffers: descriptors with buffer sizes of zero. They are passed
// over without touching their (possibly invalid) buffer addresses.
func TestFaultZeroLengthBuffers(t *testing.T) {
	t.Run("TX", func(t *testing.T) {
		payload := testFrame(100, peerMAC, 9)
		tests := []struct {
			name string
			// descriptors: des1 control (sizes included) and des2 buffer
			descs [][2]uint32
			want  []byte // frame before padding and FCS
		}{
			{"FS|LS with no data: a padded minimum frame", [][2]uint32{{tdes1FS | tdes1LS | tdes1IC, outside}}, nil},
			{"empty first and last around the data", [][2]uint32{
				{tdes1FS, outside}, {100, txBufAt}, {tdes1LS | tdes1IC, outside},
			}, payload},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r, tx := newTxRig(t, 4, linuxCfg1000)
				r.w(offStatus, w1cAll)
				r.writeRAM(txBufAt, payload)
				for i, d := range tt.descs {
					tx.set(i, descOWN, d[0], d[1], 0)
				}
				r.w(offTxPoll, 1)
				r.m.Advance(emu.Millisecond)
				want := append(append([]byte(nil), tt.want...), make([]byte, max(0, 60-len(tt.want)))...)
				if len(r.sent) != 1 || !bytes.Equal(r.sent[0].frame, withFCS(want)) {
					t.Fatalf("sent %d frames", len(r.sent))
				}
				for i := range tt.descs {
					if d := tx.get(i)[0]; d != 0 {
						t.Errorf("TDES0[%d] = %#x", i, d)
					}
				}
				checkCSR5(t, r, csr5(stTI.Mask()|stTU.Mask()|stNIS.Mask(), tsSuspended, rsWaiting))
				if c := r.counters(); c.TxBusErrors != 0 || c.TxFrames != 1 {
					t.Fatalf("counters %+v", c)
				}
			})
		}
	})
	t.Run("RX", func(t *testing.T) {
		r := newRig(t, Config{})
		rx := newRing(r, rxRingAt, 4, rxBufAt, 1536, false)
		rx.initRx(false)
		rx.set(0, descOWN, 0, outside, outside) // no buffer space at all
		r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
		f := withFCS(testFrame(400, ourMAC, 3))
		if o := r.receive(f); o != Delivered {
			t.Fatalf("outcome %v", o)
		}
		if d := rx.get(0)[0]; d != descOWN {
			t.Fatalf("RDES0[0] = %#x: an empty descriptor must be passed over, left owned", d)
		}
		if d := rx.get(1)[0]; d != rdes0FS|rdes0LS|rdes0FrameType|404<<rdes0FLShift {
			t.Fatalf("RDES0[1] = %#x", d)
		}
		if !bytes.Equal(r.readRAM(rx.buf(1), len(f)), f) || r.rd(offCurRxDesc) != rx.desc(1) {
			t.Fatal("frame not in descriptor 1")
		}
		if c := r.counters(); c.RxBusErrors != 0 || c.RxDescFetches != 2 {
			t.Fatalf("counters %+v", c)
		}
		expectTxServes(t, r)
	})
}

// TestFaultOversizedTxFrames: frames larger than the transmitter sends. Each is
// flushed with ES|JT written to every descriptor, TJT in CSR5, the line held for the
// bytes sent before the cut-off, and the next frame still goes.
func TestFaultOversizedTxFrames(t *testing.T) {
	tests := []struct {
		name   string
		macCfg uint32
		n      int // frame bytes without FCS, split into 2000-byte descriptors
		limit  int // jabber limit in force
	}{
		{"2100 bytes, jabber timer on (2048)", linuxCfg1000 &^ cfgJD.Mask(), 2100, DefaultJabberLimit},
		{"10300 bytes with JE (10240)", linuxCfg1000&^cfgJD.Mask() | cfgJE.Mask(), 10300, DefaultJumboJabberLimit},
		{"20000 bytes with JD: over the 16 KiB MAC buffer", linuxCfg1000, 20000, DefaultMaxFrame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{})
			const n = 16
			tx := newRing(r, txRingAt, n, txBufAt, 2000, true)
			tx.initTx()
			r.bringUp(txRingAt, rxRingAt, tt.macCfg)
			r.w(offStatus, w1cAll)
			big := testFrame(tt.n, peerMAC, 5)
			r.writeRAM(txBufAt, big)
			k := (tt.n + 1999) / 2000
			for i := range k {
				d1, d3 := tx.endBits(i, tdes1TER, tdes1TCH)
				d1 |= uint32(min(2000, tt.n-2000*i))
				if i == 0 {
					d1 |= tdes1FS
				}
				if i == k-1 {
					d1 |= tdes1LS | tdes1IC
				}
				tx.set(i, descOWN, d1, tx.buf(i), d3)
			}
			small := testFrame(100, peerMAC, 6)
			tx.queueTx(k, small, false)
			t0 := r.m.VirtualNow()
			r.w(offTxPoll, 1)
			r.m.Advance(10 * emu.Millisecond)
			if len(r.sent) != 1 || !bytes.Equal(r.sent[0].frame, withFCS(small)) {
				t.Fatalf("sent %d frames, want only the small one", len(r.sent))
			}
			for i := range k {
				if d := tx.get(i)[0]; d != tdes0ES|tdes0Jabber {
					t.Fatalf("TDES0[%d] = %#x, want ES|JT", i, d)
				}
			}
			// DMA: k descriptor fetches and buffer reads for the big frame, the line
			// held for preamble + limit bytes + IFG; then the small frame's last bit.
			var dma emu.Time
			for i := range k {
				dma += 32 + bufferReadTime(min(2000, tt.n-2000*i))
			}
			cut := dma + emu.Time(8*(preambleBytes+tt.limit)+96)
			if want := t0 + cut + emu.Time(8*(preambleBytes+104)); r.sent[0].at != want {
				t.Fatalf("small frame's last bit at %d, want %d", r.sent[0].at-t0, want-t0)
			}
			checkCSR5(t, r, csr5(stTI.Mask()|stTJT.Mask()|stTU.Mask()|stNIS.Mask(), tsSuspended, rsWaiting))
			c := r.counters()
			if c.TxJabberFlushed != 1 || c.TxFrames != 1 || c.TxOctets != 104 {
				t.Fatalf("counters %+v", c)
			}
			// mmc_tx_framecount_gb counts both, mmc_tx_framecount_g only the good one.
			if gb, g := r.rd(mmcBase+0x18), r.rd(mmcBase+0x68); gb != 2 || g != 1 {
				t.Fatalf("mmc_tx_framecount_gb %d, _g %d", gb, g)
			}
			expectRxServes(t, r)
		})
	}
}

// TestFaultTxFrameOverManyDescriptors: a frame spread over more descriptors than the
// model remembers (70 x 100 bytes). The older descriptors are closed early (OWN 0,
// no status), the frame still leaves whole, the last 64 get its status.
func TestFaultTxFrameOverManyDescriptors(t *testing.T) {
	r := newRig(t, Config{})
	const n, each = 70, 100
	tx := newRing(r, txRingAt, n, txBufAt, each, false)
	tx.initTx()
	r.bringUp(txRingAt, rxRingAt, linuxCfg1000|cfgJE.Mask())
	f := testFrame(n*each, peerMAC, 7)
	r.writeRAM(txBufAt, f)
	for i := range n {
		d1, _ := tx.endBits(i, tdes1TER, tdes1TCH)
		d1 |= each
		switch i {
		case 0:
			d1 |= tdes1FS
		case n - 1:
			d1 |= tdes1LS
		}
		tx.set(i, descOWN, d1, tx.buf(i), 0)
	}
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 1 || !bytes.Equal(r.sent[0].frame, withFCS(f)) {
		t.Fatalf("sent %d frames", len(r.sent))
	}
	for i := range n {
		if d := tx.get(i)[0]; d != 0 {
			t.Fatalf("TDES0[%d] = %#x", i, d)
		}
	}
	if c := r.counters(); c.TxDescFetches != 1+n+1 {
		t.Fatalf("%d descriptor fetches, want %d", c.TxDescFetches, 1+n+1)
	}
}

// TestFaultOversizedRxFrames: frames longer than the receiver takes. They are dropped
// and counted (or, with FEF, delivered cut off with the watchdog status); CSR5 is
// untouched and TX keeps serving.
func TestFaultOversizedRxFrames(t *testing.T) {
	tests := []struct {
		name     string
		macCfg   uint32
		opMode   uint32 // bits added to RSF|TSF|OSF
		n        int    // bytes with FCS
		want     RxOutcome
		mmcOff   uint32 // MMC counter that must read 1 (dropped frames)
		mmcName  string
		wantBits uint32 // CSR5 sources after the frame
	}{
		{"giant 1600", linuxCfg1000, 0, 1600, DroppedLength, 0xa8, "mmc_rx_oversize_g", 0},
		{"watchdog 2100", linuxCfg1000, 0, 2100, DroppedLength, 0xdc, "mmc_rx_watchdog_error", 0},
		{"70000 with WD: cut at 16383, over the RX FIFO", linuxCfg1000 | cfgWD.Mask(), 0, 70000, DroppedLength, 0xd4, "mmc_rx_fifo_overflow", 0},
		{"9018 jumbo with JE in threshold mode", linuxCfg1000 | cfgJE.Mask(), 0, 9018, Delivered, 0, "", stRI.Mask() | stNIS.Mask()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, rx := newRings(t, 8, 2044, true)
			rx.initRx(false)
			r.bringUp(txRingAt, rxRingAt, tt.macCfg)
			if tt.want == Delivered {
				r.w(offOpMode, r.rd(offOpMode)&^opRSF.Mask()) // a 9 KiB frame does not fit the 4 KiB FIFO
			}
			r.w(offStatus, w1cAll)
			f := withFCS(testFrame(tt.n-4, ourMAC, 8))
			if o := r.receive(f); o != tt.want {
				t.Fatalf("outcome %v, want %v", o, tt.want)
			}
			checkCSR5(t, r, csr5(tt.wantBits, tsSuspended, rsWaiting))
			if tt.want == Delivered {
				// 9018 bytes over five 2044-byte buffers: the last holds 842.
				if d := rx.get(4)[0]; d != rdes0LS|rdes0FrameType|9018<<rdes0FLShift {
					t.Fatalf("RDES0[4] = %#x", d)
				}
			} else {
				if d := rx.get(0)[0]; d != descOWN {
					t.Fatalf("RDES0[0] = %#x: a dropped frame must not touch descriptors", d)
				}
				if got := r.rd(mmcBase + tt.mmcOff); got != 1 {
					t.Fatalf("%s = %d", tt.mmcName, got)
				}
				if c := r.counters(); c.RxDroppedLength != 1 || c.RxDescFetches != 0 {
					t.Fatalf("counters %+v", c)
				}
			}
			expectTxServes(t, r)
		})
	}
}

// TestFaultAddressesOutsideRAM: descriptors and buffers that straddle the end of RAM,
// wrap around 2^32, or are reached through a chain pointer in the middle of a frame.
// The channel stops with FBI and the EB bits naming the access; the other channel
// keeps serving; clearing and setting ST/SR on a good list recovers.
func TestFaultAddressesOutsideRAM(t *testing.T) {
	const lastWord = ramSize - 8 // a 16-byte descriptor here runs 8 bytes past RAM
	tests := []struct {
		name   string
		tx     bool
		setup  func(r *rig) uint32 // writes the list, returns its base
		wantEB uint32
	}{
		{"TX descriptor straddles the end of RAM", true, func(r *rig) uint32 { return lastWord },
			ebTxDMA | ebRead | ebDescriptor},
		{"TX chain pointer outside RAM mid-frame", true, func(r *rig) uint32 {
			r.setRAM32(txRingAt+4, tdes1FS|tdes1TCH|100)
			r.setRAM32(txRingAt+8, txBufAt)
			r.setRAM32(txRingAt+12, outside)
			r.setRAM32(txRingAt, descOWN)
			return txRingAt
		}, ebTxDMA | ebRead | ebDescriptor},
		{"TX buffer wraps around 2^32", true, func(r *rig) uint32 {
			r.setRAM32(txRingAt+4, tdes1FS|tdes1LS|tdes1TER|1000)
			r.setRAM32(txRingAt+8, 0xffffff00)
			r.setRAM32(txRingAt, descOWN)
			return txRingAt
		}, ebTxDMA | ebRead},
		{"RX chain pointer outside RAM mid-frame", false, func(r *rig) uint32 {
			r.setRAM32(rxRingAt+4, rdes1RCH|512)
			r.setRAM32(rxRingAt+8, rxBufAt)
			r.setRAM32(rxRingAt+12, outside)
			r.setRAM32(rxRingAt, descOWN)
			return rxRingAt
		}, ebRead | ebDescriptor},
		{"RX buffer straddles the end of RAM", false, func(r *rig) uint32 {
			r.setRAM32(rxRingAt+4, rdes1RER|1536)
			r.setRAM32(rxRingAt+8, ramSize-100)
			r.setRAM32(rxRingAt, descOWN)
			return rxRingAt
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{})
			newRing(r, txRingAt, 4, txBufAt, 2048, false).initTx()
			newRing(r, rxRingAt, 4, rxBufAt, 1536, false).initRx(false)
			base := tt.setup(r)
			txBase, rxBase := uint32(txRingAt), uint32(rxRingAt)
			if tt.tx {
				txBase = base
			} else {
				rxBase = base
			}
			r.bringUp(txBase, rxBase, linuxCfg1000)
			before := r.ram32(base &^ 3)
			if !tt.tx {
				r.w(offStatus, w1cAll)
				if o := r.receive(withFCS(testFrame(1000, ourMAC, 1))); o != DroppedBusError {
					t.Fatalf("outcome %v", o)
				}
			}
			eb := stEB.Set(0, tt.wantEB)
			if tt.tx {
				// The bus error happened during bring-up; TS stopped, RS still waiting.
				checkCSR5(t, r, csr5(eb|stFBI.Mask()|stTPS.Mask()|stAIS.Mask(), tsStopped, rsWaiting))
			} else {
				// TX suspended on its empty ring at bring-up (TU cleared above).
				checkCSR5(t, r, csr5(eb|stFBI.Mask()|stRPS.Mask()|stAIS.Mask(), tsSuspended, rsStopped))
			}
			if !r.irqLevel() {
				t.Fatal("FBI is enabled but the line is low")
			}
			// A faulted channel loses the frame and leaves its descriptors as they were.
			if got := r.ram32(base &^ 3); got != before {
				t.Fatalf("descriptor changed from %#x to %#x", before, got)
			}
			c := r.counters()
			if tt.tx && (c.TxBusErrors != 1 || len(r.sent) != 0) || !tt.tx && (c.RxBusErrors != 1 || c.RxDroppedBusError != 1) {
				t.Fatalf("counters %+v", c)
			}
			if tt.tx {
				expectRxServes(t, r)
				expectTxServes(t, r) // restart on a good list recovers
			} else {
				expectTxServes(t, r)
				expectRxServes(t, r)
			}
		})
	}
}

// TestFaultNonsensicalRegisterOrder: a driver that starts the DMA before writing the
// list bases (they reset to 0, where RAM holds zeros: host-owned descriptors), writes
// the bases while the engines run (ignored: the databook allows it only while
// stopped), and polls a stopped engine.
func TestFaultNonsensicalRegisterOrder(t *testing.T) {
	r, tx, rx := newRings(t, 4, 1536, false)
	rx.initRx(false)
	r.w(offBusMode, busSWR.Mask())
	r.m.Advance(emu.Microsecond)
	// A poll demand to a stopped engine does nothing.
	r.w(offTxPoll, 1)
	r.w(offRxPoll, 1)
	checkCSR5(t, r, csr5(0, tsStopped, rsStopped))
	r.w(offIntEnable, 0x1a061)
	r.w(offAddr0High, addrAE.Mask()|uint32(ourMAC[5])<<8|uint32(ourMAC[4]))
	r.w(offAddr0High+4, uint32(ourMAC[3])<<24|uint32(ourMAC[2])<<16|uint32(ourMAC[1])<<8|uint32(ourMAC[0]))
	r.w(offOpMode, opRSF.Mask()|opST.Mask()|opSR.Mask()) // before the MAC configuration and the bases
	r.w(offMACConfig, linuxCfg1000)
	r.m.Advance(emu.Microsecond)
	checkCSR5(t, r, csr5(stTU.Mask(), tsSuspended, rsWaiting))
	if r.rd(offCurTxDesc) != 0 {
		t.Fatalf("TX looked at %#x, want the reset base 0", r.rd(offCurTxDesc))
	}
	f := withFCS(testFrame(200, ourMAC, 1))
	if o := r.receive(f); o != DroppedNoDescriptor {
		t.Fatalf("RX with base 0: %v", o)
	}
	checkCSR5(t, r, csr5(stTU.Mask()|stRU.Mask(), tsSuspended, rsSuspended))
	// Bases written while running: the engines keep their position.
	r.w(offTxBase, txRingAt)
	r.w(offRxBase, rxRingAt)
	tx.queueTx(0, testFrame(200, peerMAC, 2), true)
	r.w(offStatus, w1cAll)
	r.w(offTxPoll, 1)
	r.w(offRxPoll, 1)
	r.m.Advance(emu.Millisecond)
	// Suspended engines look at the descriptor they stopped on again: still 0.
	if len(r.sent) != 0 || r.rd(offCurTxDesc) != 0 {
		t.Fatalf("sent %d, current TX descriptor %#x", len(r.sent), r.rd(offCurTxDesc))
	}
	if o := r.receive(f); o != DroppedNoDescriptor || r.rd(offCurRxDesc) != 0 {
		t.Fatalf("RX %v at %#x", o, r.rd(offCurRxDesc))
	}
	if got := r.rd(offMissed); got != 2 {
		t.Fatalf("missed frames %d", got)
	}
	// Stop, write the bases again, start: now both work.
	r.w(offOpMode, r.rd(offOpMode)&^(opST.Mask()|opSR.Mask()))
	checkCSR5(t, r, csr5(stTU.Mask()|stRU.Mask()|stTPS.Mask()|stRPS.Mask(), tsStopped, rsStopped))
	r.w(offTxBase, txRingAt)
	r.w(offRxBase, rxRingAt)
	r.w(offStatus, w1cAll)
	r.w(offOpMode, r.rd(offOpMode)|opST.Mask()|opSR.Mask())
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 1 {
		t.Fatalf("sent %d after restart", len(r.sent))
	}
	if o := r.receive(f); o != Delivered {
		t.Fatalf("RX after restart: %v", o)
	}
	checkCSR5(t, r, csr5(stTI.Mask()|stTU.Mask()|stRI.Mask()|stNIS.Mask(), tsSuspended, rsWaiting))
}

// TestFaultFlushHeldFrame: FTF while a complete frame waits for TE: the frame is
// flushed (TDES0 FF|ES), the engine goes on, and the next frame leaves once TE is set.
func TestFaultFlushHeldFrame(t *testing.T) {
	r, tx := newTxRig(t, 4, linuxCfg1000&^cfgTE.Mask())
	tx.queueTx(0, testFrame(200, peerMAC, 1), true)
	tx.queueTx(1, testFrame(300, peerMAC, 2), true)
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Microsecond)
	r.w(offStatus, w1cAll)
	checkCSR5(t, r, csr5(0, tsReading, rsWaiting))
	r.w(offOpMode, r.rd(offOpMode)|opFTF.Mask())
	r.m.Advance(emu.Microsecond)
	if d := tx.get(0)[0]; d != tdes0Flushed|tdes0ES {
		t.Fatalf("TDES0[0] = %#x", d)
	}
	// The flush wrote back without IC: no TI. Frame 1 is now held.
	checkCSR5(t, r, csr5(0, tsReading, rsWaiting))
	r.w(offMACConfig, linuxCfg1000)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 1 || !bytes.Equal(r.sent[0].frame, withFCS(testFrame(300, peerMAC, 2))) {
		t.Fatalf("sent %d", len(r.sent))
	}
	if c := r.counters(); c.TxFIFOFlushed != 1 || c.TxFrames != 1 {
		t.Fatalf("counters %+v", c)
	}
	expectRxServes(t, r)
}

// TestFaultSoftwareResetMidTransfer: SWR while a frame is on the line and an RX
// interrupt watchdog is armed. Nothing leaves, nothing fires later, a second SWR
// during the reset does not extend it, the frame's descriptor keeps OWN, and after
// the driver sets the MAC up again both channels work, the lost frame going first.
func TestFaultSoftwareResetMidTransfer(t *testing.T) {
	r, tx, rx := newRings(t, 4, 1536, false)
	rx.initRx(true) // DIC: completion waits for the RX watchdog
	r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
	r.w(offRIWT, 0xff)
	if o := r.receive(withFCS(testFrame(100, ourMAC, 1))); o != Delivered {
		t.Fatalf("RX before reset: %v", o)
	}
	big := testFrame(1514, peerMAC, 3)
	tx.queueTx(0, big, true)
	r.w(offTxPoll, 1)
	r.m.Advance(5 * emu.Microsecond) // gathered, 5 of its 12.2 us on the line
	if ts := stTS.Get(r.rd(offStatus)); ts != tsWaiting {
		t.Fatalf("TS %d: frame not on the line", ts)
	}
	r.w(offBusMode, busSWR.Mask())
	r.m.Advance(softwareResetTime / 2)
	// Again, half way: the write lands (the databook says not to write before SWR
	// reads 0) but neither restarts nor extends the reset.
	r.w(offBusMode, busSWR.Mask()|8<<8)
	r.m.Advance(softwareResetTime/2 - 1)
	if r.rd(offBusMode)&busSWR.Mask() == 0 {
		t.Fatal("SWR cleared early")
	}
	r.m.Advance(1)
	if got := r.rd(offBusMode); got != 8<<8 {
		t.Fatalf("bus mode %#x 1 us after the first SWR, want %#x", got, 8<<8)
	}
	r.m.Advance(emu.Second) // past the frame's end and the 409.6 us watchdog
	checkCSR5(t, r, 0)
	if len(r.sent) != 0 || r.irqLevel() {
		t.Fatalf("sent %d, line %v after reset", len(r.sent), r.irqLevel())
	}
	if d := tx.get(0)[0]; d != descOWN {
		t.Fatalf("TDES0[0] = %#x: the lost frame's descriptor must stay with the DMA", d)
	}
	if c := r.counters(); c.SoftwareResets != 2 || c.TxFrames != 0 {
		t.Fatalf("counters %+v", c)
	}
	rx.initRx(false)
	r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 1 || !bytes.Equal(r.sent[0].frame, withFCS(big)) {
		t.Fatalf("sent %d after re-init", len(r.sent))
	}
	if o := r.receive(withFCS(testFrame(100, ourMAC, 4))); o != Delivered {
		t.Fatalf("RX after re-init: %v", o)
	}
}
