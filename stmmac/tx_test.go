package stmmac

import (
	"bytes"
	"encoding/binary"
	"testing"

	"mesonemu/emu"
)

// Fixed costs of a one-descriptor frame of n bytes: one descriptor fetch (32 ns) and
// one buffer read (16 ns latency + 4 ns per 4 bytes).
func dmaCost(n int) emu.Time { return 32 + 16 + emu.Time((n+3)/4*4) }

func TestTxOneFrameWireTiming(t *testing.T) {
	tests := []struct {
		name    string
		macCfg  uint32
		n       int      // frame bytes without FCS
		wireLen int      // bytes after the preamble, FCS included
		lastBit emu.Time // (8 + wireLen) byte times
	}{
		// 1514-byte frame at 1000 Mbit/s: (8 + 1518) * 8 ns = 12208 ns to the last bit,
		// (8 + 1518 + 12) * 8 = 12304 ns of line time with the IFG.
		{"1000 Mbit/s 1514", linuxCfg1000, 1514, 1518, 12208},
		{"100 Mbit/s 1514", linuxCfg1000 | cfgPS.Mask() | cfgFES.Mask(), 1514, 1518, 122080},
		{"10 Mbit/s 1514", linuxCfg1000 | cfgPS.Mask(), 1514, 1518, 1220800},
		// 42-byte ARP padded to 60 + FCS: (8 + 64) * 8 = 576 ns.
		{"1000 Mbit/s padded ARP", linuxCfg1000, 42, 64, 576},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, tx := newTxRig(t, 8, tt.macCfg)
			frame := testFrame(tt.n, peerMAC, 3)
			tx.queueTx(0, frame, true)
			t0 := r.m.VirtualNow()
			r.w(offTxPoll, 1)
			r.m.Advance(emu.Second)
			if len(r.sent) != 1 {
				t.Fatalf("%d frames sent", len(r.sent))
			}
			want := append([]byte(nil), frame...)
			if len(want) < 60 {
				want = append(want, make([]byte, 60-len(want))...)
			}
			want = withFCS(want)
			if !bytes.Equal(r.sent[0].frame, want) || len(want) != tt.wireLen {
				t.Fatalf("sent %d bytes, want %d (%d)", len(r.sent[0].frame), len(want), tt.wireLen)
			}
			if got, wantAt := r.sent[0].at-t0, dmaCost(tt.n)+tt.lastBit; got != wantAt {
				t.Fatalf("last bit left after %d ns, want %d", got, wantAt)
			}
		})
	}
}

func TestTxBackToBackSpacing(t *testing.T) {
	r, tx := newTxRig(t, 8, linuxCfg1000)
	const frames = 12 // wraps the 8-entry ring
	for i := range 6 {
		tx.queueTx(i, testFrame(1514, peerMAC, byte(i)), false)
	}
	t0 := r.m.VirtualNow()
	r.w(offTxPoll, 1)
	next := 6
	for len(r.sent) < frames {
		// The driver reclaims and refills as Linux's xmit/clean path would.
		for next < frames && tx.get(next)[0]&descOWN == 0 && next-len(r.sent) < 8 {
			tx.queueTx(next, testFrame(1514, peerMAC, byte(next)), false)
			r.w(offTxPoll, 1)
			next++
		}
		if !r.m.Step() {
			t.Fatalf("machine idle after %d frames", len(r.sent))
		}
	}
	first := dmaCost(1514) + 12208
	for i, s := range r.sent {
		if want := t0 + first + emu.Time(i)*12304; s.at != want {
			t.Errorf("frame %d: last bit at %d, want %d", i, s.at, want)
		}
		if s.frame[14] != byte(i)+14 {
			t.Errorf("frame %d out of order", i)
		}
	}
	c := r.counters()
	if c.TxFrames != frames || c.TxOctets != frames*1518 {
		t.Errorf("counters %d frames %d octets", c.TxFrames, c.TxOctets)
	}
	if got := r.rd(mmcBase + 0x18); got != frames {
		t.Errorf("mmc_tx_framecount_gb = %d", got)
	}
	if got := r.rd(mmcBase + 0x38); got != frames {
		t.Errorf("mmc_tx_1024_to_max_octets_gb = %d", got)
	}
}

func TestTxCRCAndPadControl(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		ctrl    uint32
		wantLen int
		fcs     bool
	}{
		{"pad and FCS", 42, 0, 64, true},
		{"DP: no pad, FCS", 42, tdes1DP, 46, true},
		{"DC on a short frame: padding brings the CRC", 42, tdes1DC, 64, true},
		{"DC and DP: raw", 42, tdes1DC | tdes1DP, 42, false},
		{"DC on a full frame", 1514, tdes1DC, 1514, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, tx := newTxRig(t, 4, linuxCfg1000)
			f := testFrame(tt.n, peerMAC, 9)
			r.writeRAM(tx.buf(0), f)
			tx.set(0, descOWN, tdes1FS|tdes1LS|tt.ctrl|uint32(tt.n), tx.buf(0), 0)
			r.w(offTxPoll, 1)
			r.m.Advance(emu.Millisecond)
			if len(r.sent) != 1 {
				t.Fatalf("%d frames", len(r.sent))
			}
			got := r.sent[0].frame
			if len(got) != tt.wantLen {
				t.Fatalf("len %d, want %d", len(got), tt.wantLen)
			}
			body := got
			if tt.fcs {
				body = got[:len(got)-4]
				if !bytes.Equal(got, withFCS(body)) {
					t.Fatal("bad FCS")
				}
			}
			if !bytes.Equal(body[:tt.n], f) || bytes.ContainsFunc(body[tt.n:], func(r rune) bool { return r != 0 }) {
				t.Fatal("payload or padding wrong")
			}
		})
	}
}

func TestTxWriteBackAndTIOnlyWithIC(t *testing.T) {
	r, tx := newTxRig(t, 8, linuxCfg1000)

	// Frame A without IC, with garbage status bits the hardware must overwrite.
	tx.queueTx(0, testFrame(100, peerMAC, 1), false)
	r.setRAM32(tx.desc(0), descOWN|0x7fff)
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Millisecond)
	if d := tx.get(0); d[0] != 0 {
		t.Fatalf("TDES0 after A = %#x, want 0 (OWN clear, no error)", d[0])
	}
	if r.rd(offStatus)&stTI.Mask() != 0 || r.irqLevel() {
		t.Fatal("TI without IC")
	}

	// Frame B over three descriptors, IC on the last (as stmmac_xmit sets it).
	b := testFrame(1000, peerMAC, 2)
	parts := [][]byte{b[:300], b[300:700], b[700:]}
	for i, p := range parts {
		k := 1 + i
		r.writeRAM(tx.buf(k), p)
		d1 := uint32(len(p))
		if i == 0 {
			d1 |= tdes1FS
		}
		if i == 2 {
			d1 |= tdes1LS | tdes1IC
		}
		tx.set(k, descOWN|0x1234, d1, tx.buf(k), 0)
	}
	tB := r.m.VirtualNow()
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Millisecond)
	for k := 1; k <= 3; k++ {
		if d := tx.get(k); d[0] != 0 {
			t.Errorf("TDES0[%d] = %#x, want 0", k, d[0])
		}
	}
	if len(r.sent) != 2 || !bytes.Equal(r.sent[1].frame, withFCS(b)) {
		t.Fatal("gathered frame differs")
	}
	if st := r.rd(offStatus); st&(stTI.Mask()|stNIS.Mask()) != stTI.Mask()|stNIS.Mask() || !r.irqLevel() {
		t.Fatalf("status %#x line %v: want TI and NIS with the line high", st, r.irqLevel())
	}
	// The gathered frame cost three descriptor fetches (96 ns) and three buffer reads
	// (16 + 300, 16 + 400, 16 + 300 ns), then (8 + 1004) * 8 ns to its last bit.
	if got, want := r.sent[1].at-tB, emu.Time(96+316+416+316+8096); got != want {
		t.Fatalf("frame B's last bit after %d ns, want %d", got, want)
	}
}

func TestTxUnavailableOnEmptyRing(t *testing.T) {
	r, tx := newTxRig(t, 4, linuxCfg1000)
	st := r.rd(offStatus)
	if st&stTU.Mask() == 0 || stTS.Get(st) != tsSuspended {
		t.Fatalf("status %#x: want TU and TS = suspended", st)
	}
	if s := r.txState(); s != Suspended {
		t.Fatalf("state %v", s)
	}
	if r.irqLevel() {
		t.Fatal("TU is not in Linux's interrupt mask but the line is high")
	}
	r.w(offStatus, stTU.Mask())
	// A poll demand resumes; the frame goes, then the engine suspends again.
	tx.queueTx(0, testFrame(60, peerMAC, 0), false)
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 1 || r.rd(offStatus)&stTU.Mask() == 0 || r.txState() != Suspended {
		t.Fatalf("sent %d status %#x", len(r.sent), r.rd(offStatus))
	}
	if got := r.rd(offCurTxDesc); got != tx.desc(1) {
		t.Fatalf("current TX descriptor %#x, want %#x", got, tx.desc(1))
	}
}

func TestTxWaitsForTE(t *testing.T) {
	r, tx := newTxRig(t, 4, linuxCfg1000&^cfgTE.Mask())
	tx.queueTx(0, testFrame(1514, peerMAC, 0), true)
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 0 {
		t.Fatal("frame sent with TE clear")
	}
	if ts := stTS.Get(r.rd(offStatus)); ts != tsReading {
		t.Fatalf("TS = %d, want %d (frame held in the FIFO)", ts, tsReading)
	}
	t1 := r.m.VirtualNow()
	r.w(offMACConfig, linuxCfg1000)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 1 || r.sent[0].at != t1+12208 {
		t.Fatalf("sent %d, want one frame at %d", len(r.sent), t1+12208)
	}
}

func TestTxJabber(t *testing.T) {
	tests := []struct {
		name      string
		macCfg    uint32
		n         int
		sent      bool
		wantTDES0 uint32
	}{
		{"2100 bytes without JD: cut off", linuxCfg1000 &^ cfgJD.Mask(), 2100, false, tdes0ES | tdes0Jabber},
		{"2100 bytes with JD (Linux)", linuxCfg1000, 2100, true, 0},
		{"2100 bytes with JE", linuxCfg1000&^cfgJD.Mask() | cfgJE.Mask(), 2100, true, 0},
		{"2044 bytes + FCS = 2048: at the limit", linuxCfg1000 &^ cfgJD.Mask(), 2044, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{})
			tx := newRing(r, txRingAt, 4, txBufAt, 4096, false)
			tx.initTx()
			r.bringUp(txRingAt, rxRingAt, tt.macCfg)
			f := testFrame(tt.n, peerMAC, 4)
			r.writeRAM(tx.buf(0), f)
			// Ring mode: 2047 bytes in buffer 1, the rest in buffer 2.
			b1 := min(tt.n, 2047)
			d1 := tdes1FS | tdes1LS | tdes1IC | uint32(b1) | uint32(tt.n-b1)<<tdes1TBS2Shift
			tx.set(0, descOWN, d1, tx.buf(0), tx.buf(0)+uint32(b1))
			r.w(offTxPoll, 1)
			r.m.Advance(emu.Millisecond)
			if (len(r.sent) == 1) != tt.sent {
				t.Fatalf("sent %d frames", len(r.sent))
			}
			if tt.sent && !bytes.Equal(r.sent[0].frame, withFCS(f)) {
				t.Fatal("frame differs")
			}
			if d := tx.get(0); d[0] != tt.wantTDES0 {
				t.Fatalf("TDES0 = %#x, want %#x", d[0], tt.wantTDES0)
			}
			if tjt := r.rd(offStatus)&stTJT.Mask() != 0; tjt == tt.sent {
				t.Fatalf("TJT = %v", tjt)
			}
		})
	}
}

func TestTxChainMode(t *testing.T) {
	r := newRig(t, Config{})
	tx := newRing(r, txRingAt, 4, txBufAt, 2048, true)
	tx.initTx()
	r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
	for i := range 10 {
		tx.queueTx(i, testFrame(200, peerMAC, byte(i)), true)
		r.w(offTxPoll, 1)
		r.m.Advance(10 * emu.Microsecond)
	}
	if len(r.sent) != 10 {
		t.Fatalf("sent %d", len(r.sent))
	}
	for i, s := range r.sent {
		if !bytes.Equal(s.frame, withFCS(testFrame(200, peerMAC, byte(i)))) {
			t.Fatalf("frame %d differs", i)
		}
	}
}

func TestTxDescriptorSkip(t *testing.T) {
	r := newRig(t, Config{})
	r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
	r.w(offOpMode, r.rd(offOpMode)&^opST.Mask())
	r.w(offBusMode, r.rd(offBusMode)|busDSL.Set(0, 2)) // skip 2 words: 24-byte stride
	r.w(offTxBase, txRingAt)
	for i := range 3 {
		a := uint32(txRingAt + 24*i)
		r.writeRAM(txBufAt+uint32(256*i), testFrame(100, peerMAC, byte(i)))
		r.setRAM32(a+4, tdes1FS|tdes1LS|100)
		r.setRAM32(a+8, txBufAt+uint32(256*i))
		r.setRAM32(a, descOWN)
	}
	r.w(offOpMode, r.rd(offOpMode)|opST.Mask())
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 3 || r.rd(offCurTxDesc) != txRingAt+72 {
		t.Fatalf("sent %d, current %#x", len(r.sent), r.rd(offCurTxDesc))
	}
}

// rfc1071 is an independent Internet checksum for the tests.
func rfc1071(parts ...[]byte) uint16 {
	var all []byte
	for _, p := range parts {
		all = append(all, p...)
	}
	var s uint32
	for i := 0; i+1 < len(all); i += 2 {
		s += uint32(all[i])<<8 | uint32(all[i+1])
	}
	if len(all)%2 == 1 {
		s += uint32(all[len(all)-1]) << 8
	}
	for s > 0xffff {
		s = s&0xffff + s>>16
	}
	return ^uint16(s)
}

// udpFrame is an IPv4/UDP frame with zero checksums and payload n bytes.
func udpFrame(dst [6]byte, n int) []byte {
	f := make([]byte, 14+20+8+n)
	copy(f, dst[:])
	copy(f[6:], peerMAC[:])
	binary.BigEndian.PutUint16(f[12:], etherTypeIPv4)
	ip := f[14:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(20+8+n))
	ip[8], ip[9] = 64, protoUDP
	copy(ip[12:], []byte{192, 168, 1, 2})
	copy(ip[16:], []byte{192, 168, 1, 1})
	udp := ip[20:]
	binary.BigEndian.PutUint16(udp[0:], 5201)
	binary.BigEndian.PutUint16(udp[2:], 40000)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+n))
	for i := range n {
		udp[8+i] = byte(i * 7)
	}
	return f
}

func TestTxChecksumInsertion(t *testing.T) {
	r, tx := newTxRig(t, 4, linuxCfg1000)
	f := udpFrame(peerMAC, 333)
	r.writeRAM(tx.buf(0), f)
	tx.set(0, descOWN, tdes1FS|tdes1LS|3<<tdes1CICShift|uint32(len(f)), tx.buf(0), 0)
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 1 {
		t.Fatal("not sent")
	}
	got := r.sent[0].frame
	ip := got[14:34]
	if rfc1071(ip) != 0 {
		t.Errorf("IPv4 header checksum %#04x does not verify", binary.BigEndian.Uint16(ip[10:]))
	}
	udp := got[34 : len(got)-4]
	pseudo := append(append([]byte(nil), ip[12:20]...), 0, protoUDP, byte(len(udp)>>8), byte(len(udp)))
	if rfc1071(pseudo, udp) != 0 {
		t.Errorf("UDP checksum %#04x does not verify", binary.BigEndian.Uint16(udp[6:]))
	}
	if !bytes.Equal(got, withFCS(got[:len(got)-4])) {
		t.Error("FCS computed before the checksums")
	}
	if d := tx.get(0); d[0] != 0 {
		t.Errorf("TDES0 = %#x", d[0])
	}
}

// TestTxLoopingChainConsumesVirtualTime: a descriptor chained to itself, owned by the
// DMA and never ending a frame. The engine must keep fetching in virtual time (one
// descriptor per 32 ns) without ever blocking the host.
func TestTxLoopingChainConsumesVirtualTime(t *testing.T) {
	for _, chain := range []bool{true, false} {
		r := newRig(t, Config{})
		r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
		r.w(offOpMode, r.rd(offOpMode)&^opST.Mask())
		r.w(offTxBase, txRingAt)
		if chain {
			r.setRAM32(txRingAt+4, tdes1FS|tdes1TCH) // zero-length buffers, no LS
			r.setRAM32(txRingAt+12, txRingAt)
		} else {
			r.setRAM32(txRingAt+4, tdes1FS|tdes1TER) // a one-entry ring
		}
		r.setRAM32(txRingAt, descOWN)
		before := r.counters().TxDescFetches
		r.w(offOpMode, r.rd(offOpMode)|opST.Mask())
		r.m.Advance(emu.Millisecond)
		// Batches of 64 fetches, each batch 64 * 32 = 2048 ns: 489 batches start in 1 ms.
		const batches = 1_000_000/2048 + 1
		if got := r.counters().TxDescFetches - before; got != batches*64 {
			t.Errorf("chain=%v: %d descriptor fetches in 1 ms, want %d", chain, got, batches*64)
		}
		if len(r.sent) != 0 || r.txState() != Running {
			t.Fatalf("chain=%v: sent %d, state %v", chain, len(r.sent), r.txState())
		}
		// Stopping the DMA closes the half-gathered frame as flushed.
		r.w(offOpMode, r.rd(offOpMode)&^opST.Mask())
		if got := r.ram32(txRingAt); got != tdes0Flushed|tdes0ES {
			t.Errorf("chain=%v: TDES0 after stop = %#x", chain, got)
		}
		if st := r.rd(offStatus); st&stTPS.Mask() == 0 || r.txState() != Stopped {
			t.Errorf("chain=%v: status %#x after stop", chain, st)
		}
	}
}

func TestTxFatalBusErrorRxKeepsServing(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(r *rig)
		wantEB uint32
	}{
		{"descriptor list outside RAM", func(r *rig) {}, ebTxDMA | ebRead | ebDescriptor},
		{"buffer outside RAM", func(r *rig) {
			r.setRAM32(txRingAt+4, tdes1FS|tdes1LS|tdes1TER|100)
			r.setRAM32(txRingAt+8, outside)
			r.setRAM32(txRingAt, descOWN)
		}, ebTxDMA | ebRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, Config{})
			rx := newRing(r, rxRingAt, 4, rxBufAt, 1536, false)
			rx.initRx(false)
			txBase := uint32(outside)
			if tt.wantEB&ebDescriptor == 0 {
				txBase = txRingAt
			}
			tt.setup(r)
			r.bringUp(txBase, rxRingAt, linuxCfg1000)
			r.m.Advance(emu.Millisecond)
			st := r.rd(offStatus)
			if st&(stFBI.Mask()|stTPS.Mask()|stAIS.Mask()) != stFBI.Mask()|stTPS.Mask()|stAIS.Mask() || stEB.Get(st) != tt.wantEB {
				t.Fatalf("status %#x: want FBI, TPS, AIS and EB %#x", st, tt.wantEB)
			}
			if st&stTS.Mask() != 0 || r.txState() != Stopped || !r.irqLevel() {
				t.Fatalf("TX not stopped or line low: status %#x", st)
			}
			// RX keeps working.
			if o := r.receive(withFCS(testFrame(200, ourMAC, 1))); o != Delivered {
				t.Fatalf("RX after a TX bus error: %v", o)
			}
			// Poll demands do not restart a stopped channel; toggling ST does.
			r.w(offTxPoll, 1)
			if r.txState() != Stopped {
				t.Fatal("poll demand restarted a faulted channel")
			}
		})
	}
}

func TestTxLoopbackToOwnReceiver(t *testing.T) {
	r := newRig(t, Config{})
	tx := newRing(r, txRingAt, 4, txBufAt, 2048, false)
	rx := newRing(r, rxRingAt, 4, rxBufAt, 1536, false)
	tx.initTx()
	rx.initRx(false)
	r.bringUp(txRingAt, rxRingAt, linuxCfg1000|cfgLM.Mask())
	f := testFrame(500, ourMAC, 5)
	tx.queueTx(0, f, true)
	r.w(offTxPoll, 1)
	r.m.Advance(emu.Millisecond)
	if len(r.sent) != 0 {
		t.Fatal("loopback frame reached the wire")
	}
	if d := rx.get(0); d[0] != rdes0FS|rdes0LS|rdes0FrameType|504<<16 {
		t.Fatalf("RDES0 = %#x", d[0])
	}
	if !bytes.Equal(r.readRAM(rxBufAt, 504), withFCS(f)) {
		t.Fatal("looped frame differs")
	}
}
