package stmmac

import (
	"bytes"
	"encoding/binary"
	"testing"

	"mesonemu/emu"
)

func rxRig(t *testing.T, n, bufSize int, chain, dic bool) (*rig, *ring) {
	t.Helper()
	r, _, rx := newRings(t, n, bufSize, chain)
	rx.initRx(dic)
	r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
	return r, rx
}

func vlanFrame(n int) []byte {
	f := testFrame(n, ourMAC, 6)
	binary.BigEndian.PutUint16(f[12:], etherTypeVLAN)
	binary.BigEndian.PutUint16(f[16:], 0x88b5)
	return f
}

func badFCS(f []byte) []byte {
	g := withFCS(f)
	g[len(g)-1] ^= 0x40
	return g
}

func TestRxDescriptorStatusExact(t *testing.T) {
	const fl1518 = 1518 << rdes0FLShift
	tests := []struct {
		name      string
		prepare   func(r *rig)
		frame     []byte
		want      RxOutcome
		wantRDES0 uint32
	}{
		{"good unicast", nil, withFCS(testFrame(1514, ourMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | fl1518},
		{"broadcast", nil, withFCS(testFrame(60, bcastMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | 64<<rdes0FLShift},
		{"VLAN tagged 1522 is not a giant", nil, withFCS(vlanFrame(1518)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | rdes0VLAN | 1522<<rdes0FLShift},
		{"bad FCS forwarded with FEF", func(r *rig) { r.w(offOpMode, r.rd(offOpMode)|opFEF.Mask()) },
			badFCS(testFrame(1514, ourMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | rdes0CRC | rdes0ES | fl1518},
		{"bad FCS forwarded in threshold mode", func(r *rig) { r.w(offOpMode, r.rd(offOpMode)&^opRSF.Mask()) },
			badFCS(testFrame(1514, ourMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | rdes0CRC | rdes0ES | fl1518},
		{"giant forwarded with FEF", func(r *rig) { r.w(offOpMode, r.rd(offOpMode)|opFEF.Mask()) },
			withFCS(testFrame(1600, ourMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | rdes0IPCGiant | rdes0ES | 1604<<rdes0FLShift},
		{"receive all marks DA filter fail", func(r *rig) { r.w(offFrameFilter, ffRA.Mask()) },
			withFCS(testFrame(100, otherMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | rdes0DAFilterFl | 104<<rdes0FLShift},
		{"promiscuous", func(r *rig) { r.w(offFrameFilter, ffPR.Mask()) },
			withFCS(testFrame(100, otherMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0FrameType | 104<<rdes0FLShift},
		{"802.3 length frame, ACS strips pad and FCS", nil,
			withFCS(append(append(append([]byte(nil), ourMAC[:]...), peerMAC[:]...), append([]byte{0, 3, 0xaa, 0xaa, 0x03}, make([]byte, 43)...)...)),
			Delivered, rdes0FS | rdes0LS | 17<<rdes0FLShift},
		{"bad FCS dropped", nil, badFCS(testFrame(1514, ourMAC, 1)), DroppedCRC, descOWN},
		{"other unicast filtered", nil, withFCS(testFrame(100, otherMAC, 1)), DroppedFiltered, descOWN},
		{"giant dropped", nil, withFCS(testFrame(1600, ourMAC, 1)), DroppedLength, descOWN},
		{"runt dropped", nil, badFCS(testFrame(40, ourMAC, 1)), DroppedLength, descOWN},
		{"undersized good dropped", nil, withFCS(testFrame(40, ourMAC, 1)), DroppedLength, descOWN},
		{"undersized good forwarded with FUF", func(r *rig) { r.w(offOpMode, r.rd(offOpMode)|opFUF.Mask()) },
			withFCS(testFrame(40, ourMAC, 1)), Delivered, rdes0FS | rdes0LS | rdes0FrameType | 44<<rdes0FLShift},
		{"watchdog cuts 2100 bytes", nil, withFCS(testFrame(2100, ourMAC, 1)), DroppedLength, descOWN},
		{"watchdog cut forwarded with FEF", func(r *rig) {
			r.w(offOpMode, r.rd(offOpMode)|opFEF.Mask())
			// Both ring-mode buffers, back to back: 2047 + 2047 bytes.
			r.setRAM32(rxRingAt+4, 2047|2047<<rdes1RBS2Shift)
			r.setRAM32(rxRingAt+12, rxBufAt+2047)
		},
			withFCS(testFrame(2100, ourMAC, 1)), Delivered,
			rdes0FS | rdes0LS | rdes0Watchdog | rdes0ES | rdes0FrameType | 2048<<rdes0FLShift},
		{"PAUSE frame filtered", nil,
			withFCS(append(append([]byte{0x01, 0x80, 0xc2, 0, 0, 1}, peerMAC[:]...), append([]byte{0x88, 0x08, 0, 1, 0xff, 0xff}, make([]byte, 42)...)...)),
			DroppedFiltered, descOWN},
		{"receiver disabled", func(r *rig) { r.w(offMACConfig, linuxCfg1000&^cfgRE.Mask()) },
			withFCS(testFrame(100, ourMAC, 1)), DroppedDisabled, descOWN},
		{"RX DMA stopped", func(r *rig) { r.w(offOpMode, r.rd(offOpMode)&^opSR.Mask()) },
			withFCS(testFrame(100, ourMAC, 1)), DroppedDisabled, descOWN},
		{"too short for a header", nil, []byte{1, 2, 3}, DroppedLength, descOWN},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, rx := rxRig(t, 4, 2048, false, false)
			// Stale status bits from an earlier use must not survive (refill only ORs OWN).
			r.setRAM32(rx.desc(0), descOWN|0x7fff)
			if tt.prepare != nil {
				tt.prepare(r)
			}
			if got := r.receive(tt.frame); got != tt.want {
				t.Fatalf("outcome %v, want %v", got, tt.want)
			}
			want := tt.wantRDES0
			if want == descOWN {
				want |= 0x7fff
			}
			if got := rx.get(0)[0]; got != want {
				t.Fatalf("RDES0 = %#08x, want %#08x", got, want)
			}
			if tt.want != Delivered {
				return
			}
			fl := int(want >> rdes0FLShift & rdes0FLMax)
			if !bytes.Equal(r.readRAM(rx.buf(0), fl), tt.frame[:fl]) {
				t.Fatal("buffer contents differ")
			}
			if st := r.rd(offStatus); st&stRI.Mask() == 0 || !r.irqLevel() {
				t.Fatalf("status %#x: RI and the line expected", st)
			}
		})
	}
}

func TestRxSpansDescriptors(t *testing.T) {
	for _, chain := range []bool{false, true} {
		r, rx := rxRig(t, 4, 512, chain, false)
		f := withFCS(testFrame(1514, ourMAC, 2))
		if o := r.receive(f); o != Delivered {
			t.Fatalf("chain=%v: %v", chain, o)
		}
		// 512 + 512 + 494 bytes. Ring mode uses RBS1 only here (Linux sets RBS2 only
		// for buffers of 2 KiB and more).
		want := []uint32{rdes0FS, 0, rdes0LS | rdes0FrameType | 1518<<rdes0FLShift, descOWN}
		var got []byte
		for i, w := range want {
			if d := rx.get(i)[0]; d != w {
				t.Errorf("chain=%v: RDES0[%d] = %#x, want %#x", chain, i, d, w)
			}
			got = append(got, r.readRAM(rx.buf(i), 512)...)
		}
		if !bytes.Equal(got[:1518], f) {
			t.Errorf("chain=%v: data differs", chain)
		}
		if r.rd(offCurRxDesc) != rx.desc(2) {
			t.Errorf("chain=%v: current RX descriptor %#x", chain, r.rd(offCurRxDesc))
		}
	}
}

func TestRxRingModeSecondBuffer(t *testing.T) {
	r, rx := rxRig(t, 2, 1024, false, false)
	// Both buffers of descriptor 0: 1024 bytes at buf(0), 1024 at buf(1).
	rx.set(0, descOWN, 1024|1024<<rdes1RBS2Shift, rx.buf(0), rx.buf(1))
	f := withFCS(testFrame(1514, ourMAC, 2))
	if o := r.receive(f); o != Delivered {
		t.Fatal(o)
	}
	if d := rx.get(0)[0]; d != rdes0FS|rdes0LS|rdes0FrameType|1518<<rdes0FLShift {
		t.Fatalf("RDES0 %#x", d)
	}
	if !bytes.Equal(r.readRAM(rx.buf(0), 1518), f) {
		t.Fatal("data differs")
	}
	if r.rd(offCurRxDesc) != rx.desc(0) || rx.get(1)[0] != descOWN {
		t.Fatal("one descriptor should have been used")
	}
}

func TestRxUnavailableAndMissedFrames(t *testing.T) {
	r, rx := rxRig(t, 2, 1536, false, false)
	f := withFCS(testFrame(1000, ourMAC, 3))
	for i, want := range []RxOutcome{Delivered, Delivered, DroppedNoDescriptor, DroppedNoDescriptor} {
		if i == 3 {
			r.w(offStatus, stRU.Mask()) // acknowledged: RU must not come back while suspended
		}
		if o := r.receive(f); o != want {
			t.Fatalf("frame %d: %v, want %v", i, o, want)
		}
	}
	st := r.rd(offStatus)
	if st&stRU.Mask() != 0 || stRS.Get(st) != rsSuspended || r.rxState() != Suspended {
		t.Fatalf("status %#x, state %v", st, r.rxState())
	}
	if got := r.rd(offMissed); got != 2 {
		t.Fatalf("missed frame counter %d, want 2", got)
	}
	// RU interrupt when enabled.
	r.w(offIntEnable, 0x1a061|stRU.Mask())
	rx.refillRx(0)
	r.w(offRxPoll, 1)
	if r.rxState() != Running {
		t.Fatal("poll demand did not resume")
	}
	if o := r.receive(f); o != Delivered {
		t.Fatalf("after refill: %v", o)
	}
	if o := r.receive(f); o != DroppedNoDescriptor {
		t.Fatalf("ring full again: %v", o)
	}
	if st := r.rd(offStatus); st&(stRU.Mask()|stAIS.Mask()) != stRU.Mask()|stAIS.Mask() || !r.irqLevel() {
		t.Fatalf("status %#x: RU with AIS expected", st)
	}
	// Without a poll demand the next frame makes the DMA look again.
	rx.refillRx(1)
	if o := r.receive(f); o != Delivered {
		t.Fatalf("suspended RX did not look again on a new frame: %v", o)
	}
}

func TestRxTruncatedByHostDescriptor(t *testing.T) {
	r, rx := rxRig(t, 4, 512, false, false)
	r.setRAM32(rx.desc(2), 0) // the host still owns descriptor 2
	f := withFCS(testFrame(1514, ourMAC, 4))
	if o := r.receive(f); o != DroppedNoDescriptor {
		t.Fatalf("outcome %v", o)
	}
	if d := rx.get(1)[0]; d != rdes0LS|rdes0DescError|rdes0ES|rdes0FrameType|1024<<rdes0FLShift {
		t.Fatalf("RDES0[1] = %#x", d)
	}
	if r.rxState() != Suspended || r.rd(offMissed) != 1 || r.counters().RxTruncated != 1 {
		t.Fatalf("state %v", r.rxState())
	}
}

// TestRxInterruptWatchdogReload: two DIC frames 100 us apart under RIWT 0xff
// (255 * 256 cycles of 159.375 MHz = 409.6 us). A watchdog started by the first
// frame only raises RI 409.6 us after it; one reloaded by every DIC frame, 409.6
// us after the second.
func TestRxInterruptWatchdogReload(t *testing.T) {
	const riwt, gap = emu.Time(409600), emu.Time(100000)
	tests := []struct {
		name    string
		restart bool
		wantRI  emu.Time // after the first frame
	}{
		{"started by the first frame", false, riwt},
		{"reloaded by every frame", true, gap + riwt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, rx := newRingsWith(t, Config{RIWTRestart: tt.restart}, 8, 1536, false)
			rx.initRx(true)
			r.bringUp(txRingAt, rxRingAt, linuxCfg1000)
			r.w(offRIWT, 0xff)
			f := withFCS(testFrame(200, ourMAC, 5))
			t0 := r.m.VirtualNow()
			r.receive(f)
			r.m.Advance(gap)
			r.receive(f)
			r.m.RunUntil(t0 + tt.wantRI - 1)
			if r.rd(offStatus)&stRI.Mask() != 0 {
				t.Fatalf("RI before %v", tt.wantRI)
			}
			r.m.RunUntil(t0 + tt.wantRI)
			if r.rd(offStatus)&stRI.Mask() == 0 || !r.irqLevel() {
				t.Fatalf("no RI at %v", tt.wantRI)
			}
		})
	}
}

func TestRxInterruptWatchdog(t *testing.T) {
	r, rx := rxRig(t, 8, 1536, false, true)
	r.w(offRIWT, 0xff)
	f := withFCS(testFrame(200, ourMAC, 5))
	t0 := r.m.VirtualNow()
	r.receive(f)
	// 255 * 256 cycles of 159.375 MHz = 409600 ns.
	const riwt = 409600
	r.m.Advance(100000)
	r.receive(f) // does not restart the watchdog (Config.RIWTRestart off)
	r.m.RunUntil(t0 + riwt - 1)
	if r.rd(offStatus)&stRI.Mask() != 0 {
		t.Fatal("RI before the watchdog expired")
	}
	r.m.RunUntil(t0 + riwt)
	if r.rd(offStatus)&stRI.Mask() == 0 || !r.irqLevel() {
		t.Fatal("RI not raised by the watchdog")
	}
	if d := rx.get(1)[0]; d != rdes0FS|rdes0LS|rdes0FrameType|204<<rdes0FLShift {
		t.Fatalf("RDES0 %#x", d)
	}
	// A frame without DIC raises RI at once and stops a running watchdog.
	r.w(offStatus, stRI.Mask())
	r.receive(f) // DIC: arms
	rx.set(3, descOWN, 1536, rx.buf(3), 0)
	r.receive(f) // no DIC
	if r.rd(offStatus)&stRI.Mask() == 0 {
		t.Fatal("non-DIC frame did not raise RI")
	}
	r.w(offStatus, stRI.Mask())
	r.m.Advance(emu.Millisecond)
	if r.rd(offStatus)&stRI.Mask() != 0 {
		t.Fatal("stopped watchdog still fired")
	}
	// RIWT = 0 disables the watchdog: DIC frames raise nothing.
	r.w(offRIWT, 0)
	r.receive(f)
	r.m.Advance(emu.Second)
	if r.rd(offStatus)&stRI.Mask() != 0 {
		t.Fatal("RI with RIWT = 0")
	}
}

func TestRxBusErrorTxKeepsServing(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(rx *ring)
		base   uint32
		wantEB uint32
	}{
		{"descriptor list outside RAM", func(*ring) {}, outside, ebRead | ebDescriptor},
		{"buffer outside RAM", func(rx *ring) { rx.set(0, descOWN, 1536|rdes1RER, outside, 0) }, rxRingAt, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, tx, rx := newRings(t, 1, 1536, false)
			tt.setup(rx)
			r.bringUp(txRingAt, tt.base, linuxCfg1000)
			if o := r.receive(withFCS(testFrame(100, ourMAC, 1))); o != DroppedBusError {
				t.Fatalf("outcome %v", o)
			}
			st := r.rd(offStatus)
			if st&(stFBI.Mask()|stRPS.Mask()|stAIS.Mask()) != stFBI.Mask()|stRPS.Mask()|stAIS.Mask() || stEB.Get(st) != tt.wantEB || st&stRS.Mask() != 0 {
				t.Fatalf("status %#x", st)
			}
			if o := r.receive(withFCS(testFrame(100, ourMAC, 1))); o != DroppedDisabled || r.counters().RxDMAStopped != 1 {
				t.Fatalf("stopped RX: %v", o)
			}
			tx.queueTx(0, testFrame(100, peerMAC, 0), true)
			r.w(offTxPoll, 1)
			r.m.Advance(emu.Millisecond)
			if len(r.sent) != 1 {
				t.Fatal("TX stopped by an RX bus error")
			}
		})
	}
}

// hashBinRef is the hash bin computed independently: reflected CRC-32 bit by bit,
// then the top six bits of its bit reversal.
func hashBinRef(a [6]byte) uint32 {
	f := withFCS(a[:])
	crc := binary.LittleEndian.Uint32(f[6:])
	var rev uint32
	for i := range 32 {
		rev |= (crc >> i & 1) << (31 - i)
	}
	return rev >> 26
}

func TestRxHashFilter(t *testing.T) {
	allNodes := [6]byte{0x33, 0x33, 0, 0, 0, 1}
	solicited := [6]byte{0x33, 0x33, 0xff, 0, 0, 1}
	bin := hashBinRef(allNodes)
	if bin2 := hashBinRef(solicited); bin2 == bin {
		t.Skip("test addresses share a bin")
	}
	r, _ := rxRig(t, 8, 1536, false, false)
	reg := uint32(offHashLow)
	if bin >= 32 {
		reg = offHashHigh
	}
	r.w(reg, 1<<(bin&31))
	r.w(offFrameFilter, ffHMC.Mask())
	if o := r.receive(withFCS(testFrame(100, allNodes, 1))); o != Delivered {
		t.Fatalf("hashed multicast: %v", o)
	}
	if o := r.receive(withFCS(testFrame(100, solicited, 1))); o != DroppedFiltered {
		t.Fatalf("multicast outside the hash: %v", o)
	}
	r.w(offFrameFilter, ffPM.Mask())
	if o := r.receive(withFCS(testFrame(100, solicited, 1))); o != Delivered {
		t.Fatalf("pass-all multicast: %v", o)
	}
	// Perfect filter on address 1 with AE, and its byte mask.
	r.w(offFrameFilter, 0)
	r.w(offAddr0High+8, addrAE.Mask()|uint32(otherMAC[5])<<8|uint32(otherMAC[4]))
	r.w(offAddr0High+12, uint32(otherMAC[3])<<24|uint32(otherMAC[2])<<16|uint32(otherMAC[1])<<8|uint32(otherMAC[0]))
	if o := r.receive(withFCS(testFrame(100, otherMAC, 1))); o != Delivered {
		t.Fatalf("address 1: %v", o)
	}
	masked := otherMAC
	masked[5] = 0x42
	if o := r.receive(withFCS(testFrame(100, masked, 1))); o != DroppedFiltered {
		t.Fatalf("unmasked byte differs: %v", o)
	}
	r.w(offAddr0High+8, r.rd(offAddr0High+8)|1<<29) // MBC: ignore byte 5
	if o := r.receive(withFCS(testFrame(100, masked, 1))); o != Delivered {
		t.Fatalf("masked byte: %v", o)
	}
	if got := hashBin(allNodes[:]); got != bin {
		t.Fatalf("model bin %d, reference %d", got, bin)
	}
}

// tcpFrame builds a valid IPv4/TCP frame (checksums filled by the reference).
func tcpFrame(n int) []byte {
	f := make([]byte, 14+20+20+n)
	copy(f, ourMAC[:])
	copy(f[6:], peerMAC[:])
	binary.BigEndian.PutUint16(f[12:], etherTypeIPv4)
	ip := f[14:34]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(40+n))
	ip[8], ip[9] = 64, protoTCP
	copy(ip[12:], []byte{10, 0, 0, 2})
	copy(ip[16:], []byte{10, 0, 0, 1})
	binary.BigEndian.PutUint16(ip[10:], rfc1071(ip))
	tcp := f[34:]
	tcp[12] = 5 << 4
	for i := range n {
		tcp[20+i] = byte(3 * i)
	}
	pseudo := append(append([]byte(nil), ip[12:20]...), 0, protoTCP, byte(len(tcp)>>8), byte(len(tcp)))
	binary.BigEndian.PutUint16(tcp[16:], rfc1071(pseudo, tcp))
	return f
}

func TestRxChecksumOffload(t *testing.T) {
	good := tcpFrame(500)
	badPayload := tcpFrame(500)
	badPayload[100] ^= 1
	badHeader := tcpFrame(500)
	badHeader[14+8]-- // TTL changed, header checksum stale
	tests := []struct {
		name  string
		frame []byte
		bits  uint32
	}{
		{"good TCP", good, rdes0FrameType},
		{"payload checksum error", badPayload, rdes0FrameType | rdes0PayloadCE},
		{"IP header checksum error (not in ES)", badHeader, rdes0FrameType | rdes0IPCGiant},
		{"type frame neither IPv4 nor IPv6", testFrame(200, ourMAC, 1), rdes0IPCGiant | rdes0PayloadCE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, rx := rxRig(t, 4, 1536, false, false)
			r.w(offMACConfig, linuxCfg1000|cfgIPC.Mask())
			f := withFCS(tt.frame)
			if o := r.receive(f); o != Delivered {
				t.Fatal(o)
			}
			want := rdes0FS | rdes0LS | tt.bits | uint32(len(f))<<rdes0FLShift
			if got := rx.get(0)[0]; got != want {
				t.Fatalf("RDES0 %#x, want %#x", got, want)
			}
		})
	}
	r, _ := rxRig(t, 4, 1536, false, false)
	r.w(offMACConfig, linuxCfg1000|cfgIPC.Mask())
	r.receive(withFCS(good))
	if r.rd(mmcBase+0x138) != 1 || r.rd(mmcBase+0x110) != 1 || r.rd(mmcBase+0x178) != 520 {
		t.Fatal("MMC IPC counters: want mmc_rx_tcp_gd 1, mmc_rx_ipv4_gd 1, mmc_rx_tcp_gd_octets 520")
	}
}

// TestRxConservation: every frame handed to Receive has exactly one outcome, and the
// counters add up.
func TestRxConservation(t *testing.T) {
	r, rx := rxRig(t, 4, 1536, false, false)
	frames := [][]byte{
		withFCS(testFrame(1000, ourMAC, 1)), badFCS(testFrame(1000, ourMAC, 1)),
		withFCS(testFrame(1000, otherMAC, 1)), withFCS(testFrame(30, ourMAC, 1)),
		withFCS(testFrame(1000, bcastMAC, 1)),
	}
	outcomes := map[RxOutcome]uint64{}
	for i := range 40 {
		if i%9 == 0 {
			rx.refillRx(i % 4)
		}
		outcomes[r.receive(frames[i%len(frames)])]++
	}
	c := r.counters()
	sum := c.RxDelivered + c.RxDroppedCRC + c.RxDroppedLength + c.RxDroppedNoDescriptor +
		c.RxDroppedDisabled + c.RxDroppedBusError + c.RxDroppedFiltered
	if c.RxSeen != 40 || sum != 40 {
		t.Fatalf("seen %d, outcomes sum %d", c.RxSeen, sum)
	}
	if outcomes[Delivered] != c.RxDelivered || outcomes[DroppedNoDescriptor] != c.RxDroppedNoDescriptor ||
		outcomes[DroppedCRC] != 8 || c.RxCRCErrors != 8 {
		t.Fatalf("outcomes %v counters %+v", outcomes, c)
	}
	if got := r.rd(mmcBase + 0x94); got != 8 {
		t.Fatalf("mmc_rx_crc_error = %d", got)
	}
	if got := r.rd(mmcBase + 0x80); got != 40 {
		t.Fatalf("mmc_rx_framecount_gb = %d", got)
	}
}
