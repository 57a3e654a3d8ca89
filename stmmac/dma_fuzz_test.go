package stmmac

import (
	"encoding/binary"
	"testing"

	"mesonemu/emu"
)

// FuzzDMAEngines complements FuzzGuestProgramming (which only proves "no panic, every
// call returns"): it gives the fuzzer a guest RAM image and a register program aimed
// at the DMA engines, runs the machine event by event, and checks after every step
// what must hold whatever the guest did:
//
//   - conservation: every frame handed to Receive has exactly one outcome
//     (RxSeen = the sum of the outcome counters; RxDroppedDisabled splits into
//     RxReceiverOff + RxDMAStopped), and the outcomes Receive returned agree;
//   - bounded host work: each TX descriptor fetch costs 32 ns of virtual time, so
//     fetches are bounded by the virtual time that passed plus one batch (64) per
//     guest action that can (re)start the engine; RX fetches by 65 per frame;
//   - CSR5 tells the truth: TS/RS match the engines' process states, NIS/AIS/GLI
//     are the OR of their enabled sources, and the interrupt line follows them;
//   - nothing longer than MaxFrame reaches the transmitter.
//
// Input: byte 0 gives the RAM image length in 16-byte descriptors (the image lands at
// fuzzRingAt), the rest is a program of 10-byte operations (see fuzzOp).
func FuzzDMAEngines(f *testing.F) {
	for _, s := range dmaFuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runDMAProgram(t, data)
	})
}

// Fuzz machine layout: 256 KiB of RAM at 0, descriptor image at fuzzRingAt.
const (
	fuzzRAMSize      = 256 << 10
	fuzzRingAt       = 0x1000
	fuzzBufAt        = 0x10000
	fuzzOpBytes      = 10
	fuzzMaxOps       = 200
	fuzzMaxImage     = 255 * 16
	fuzzMaxAdvance   = 2 * emu.Millisecond
	fuzzTimeBudget   = 6 * emu.Millisecond // total virtual time one input may run
	fuzzMaxRxFrame   = 20000               // beyond the 16383-byte watchdog limit
	fuzzTxBatchSlack = txWalkBatch
	fuzzRxPerFrame   = rxMaxFrameDescs + 1
	fuzzMaxSteps     = 2_000_000 // a hard stop so a regression fails instead of hanging
)

// Operation kinds (first byte of an op, modulo fuzzOpKinds).
const (
	opKindReg     = iota // write fuzzRegs[sel] = v (bases mapped into RAM when a&1)
	opKindRawReg         // write any offset a&0xfffc of the window
	opKindRAMWord        // RAM word at a; v mapped into RAM when sel&1, OWN added when sel&2
	opKindDesc           // descriptor sel%64 of the ring image: OWN|?, des1 = a, buffer in RAM
	opKindRecv           // a frame of a%fuzzMaxRxFrame bytes arrives
	opKindTime           // v%fuzzMaxAdvance ns pass
	opKindRead           // read fuzzRegs[sel] (clear-on-read side effects)
	opKindLink           // the PHY's in-band status changes
	fuzzOpKinds
)

// fuzzRegs are the registers a guest driver programs, so most writes land somewhere
// that matters.
var fuzzRegs = []uint32{
	offMACConfig, offFrameFilter, offHashHigh, offHashLow, offMIIAddr, offMIIData, offFlowCtrl,
	offPMT, offIntMask, offAddr0High, offAddr0High + 4, offMMCCntrl,
	offBusMode, offTxPoll, offRxPoll, offRxBase, offTxBase, offStatus, offOpMode, offIntEnable,
	offMissed, offRIWT, offRGMIIStatus, offIntStatus,
}

type dmaFuzzRun struct {
	t       *testing.T
	m       *emu.Machine
	mac     *MAC
	irq     *emu.IRQ
	elapsed emu.Time
	steps   int
	actions uint64 // guest actions that may (re)start the TX engine
	frames  uint64 // frames handed to Receive by the test
	tally   map[RxOutcome]uint64
}

func runDMAProgram(t *testing.T, data []byte) {
	m := emu.NewMachine(5)
	if _, err := m.Bus().AddRAM(0, fuzzRAMSize); err != nil {
		t.Fatal(err)
	}
	r := &dmaFuzzRun{t: t, m: m, irq: m.NewIRQ("macirq"), tally: map[RxOutcome]uint64{}}
	r.mac = New(m, r.irq, nil, Config{MACAddr: ourMAC})
	if err := m.Bus().Map(macBase, Size, r.mac); err != nil {
		t.Fatal(err)
	}
	r.mac.SetTransmitter(func(frame []byte) {
		if len(frame) > DefaultMaxFrame {
			t.Errorf("%d-byte frame reached the transmitter", len(frame))
		}
	})
	if len(data) == 0 {
		return
	}
	n := min(int(data[0])*16, len(data)-1, fuzzMaxImage)
	if err := m.Bus().WriteRAM(fuzzRingAt, data[1:1+n]); err != nil {
		t.Fatal(err)
	}
	prog := data[1+n:]
	for i := 0; i < fuzzMaxOps && len(prog) >= fuzzOpBytes; i++ {
		r.op(prog[:fuzzOpBytes])
		prog = prog[fuzzOpBytes:]
		r.check()
	}
	r.run(emu.Millisecond)
	r.check()
}

func (r *dmaFuzzRun) op(b []byte) {
	kind, sel := b[0]%fuzzOpKinds, b[1]
	a, v := binary.LittleEndian.Uint32(b[2:]), binary.LittleEndian.Uint32(b[6:])
	bus := r.m.Bus()
	switch kind {
	case opKindReg:
		off := fuzzRegs[int(sel)%len(fuzzRegs)]
		if a&1 != 0 && (off == offTxBase || off == offRxBase) {
			v %= fuzzRAMSize
		}
		_ = bus.Write32(macBase+off, v)
		r.actions++
	case opKindRawReg:
		_ = bus.Write32(macBase+a&(Size-4), v)
		r.actions++
	case opKindRAMWord:
		if sel&1 != 0 {
			v %= fuzzRAMSize
		}
		if sel&2 != 0 {
			v |= descOWN
		}
		_ = bus.Write32(a%fuzzRAMSize&^3, v)
	case opKindDesc:
		d := fuzzRingAt + 16*uint32(sel%64)
		buf := fuzzBufAt + v%(fuzzRAMSize-fuzzBufAt)
		_ = bus.Write32(d+4, a)
		_ = bus.Write32(d+8, buf)
		_ = bus.Write32(d+12, fuzzRingAt+16*(v>>24%64)) // chain pointer / second buffer
		_ = bus.Write32(d, descOWN|v>>16&0x7fff)
	case opKindRecv:
		r.receive(sel, a, v)
	case opKindTime:
		r.run(emu.Time(v) % fuzzMaxAdvance)
	case opKindRead:
		_, _ = bus.Read32(macBase + fuzzRegs[int(sel)%len(fuzzRegs)])
	case opKindLink:
		r.m.Lock()
		r.mac.SetLinkState(sel&1 != 0, []int{10, 100, 1000, 0}[sel>>1&3], sel&8 != 0)
		r.m.Unlock()
		r.actions++
	}
}

// receive hands the MAC one frame: destination by sel, length a, payload from v,
// a correct FCS unless v&1.
func (r *dmaFuzzRun) receive(sel byte, a, v uint32) {
	dst := [][6]byte{ourMAC, bcastMAC, otherMAC, {0x01, 0x00, 0x5e, 0, 0, 1}}[sel&3]
	n := int(a % fuzzMaxRxFrame)
	// The test's own frame builder needs a whole header; shorter frames are cut from
	// a minimum one.
	frame := withFCS(testFrame(max(n-4, 14), dst, byte(v>>8)))
	if sel&4 != 0 && n >= 18 {
		binary.BigEndian.PutUint16(frame[12:], uint16(v>>16)) // any EtherType or length
		frame = withFCS(frame[:n-4])
	}
	frame = frame[:n]
	if v&1 != 0 && n > 0 {
		frame[n-1] ^= 0x55
	}
	r.m.Lock()
	o := r.mac.Receive(frame)
	r.m.Unlock()
	r.frames++
	r.tally[o]++
}

// run lets d of virtual time pass event by event, within the input's time budget.
func (r *dmaFuzzRun) run(d emu.Time) {
	d = min(d, fuzzTimeBudget-r.elapsed)
	if d <= 0 {
		return
	}
	end := r.m.Now() + d
	for {
		next, ok := r.m.NextEvent()
		if !ok || next > end {
			break
		}
		r.m.Step()
		r.steps++
		if r.steps > fuzzMaxSteps {
			r.t.Fatalf("more than %d event steps in %d ns of virtual time", fuzzMaxSteps, r.elapsed+d)
		}
	}
	r.m.RunUntil(end)
	r.elapsed += d
}

func (r *dmaFuzzRun) check() {
	r.t.Helper()
	r.m.Lock()
	defer r.m.Unlock()
	c := r.mac.Counters()
	sum := c.RxDelivered + c.RxDroppedCRC + c.RxDroppedLength + c.RxDroppedNoDescriptor +
		c.RxDroppedDisabled + c.RxDroppedBusError + c.RxDroppedFiltered
	if c.RxSeen != sum || c.RxDroppedDisabled != c.RxReceiverOff+c.RxDMAStopped {
		r.t.Fatalf("RX conservation broken: %+v", c)
	}
	// Receive's own answers: the test's frames are a subset (loopback adds more).
	byOutcome := map[RxOutcome]uint64{
		Delivered: c.RxDelivered, DroppedCRC: c.RxDroppedCRC, DroppedLength: c.RxDroppedLength,
		DroppedNoDescriptor: c.RxDroppedNoDescriptor, DroppedDisabled: c.RxDroppedDisabled,
		DroppedBusError: c.RxDroppedBusError, DroppedFiltered: c.RxDroppedFiltered,
	}
	for o, n := range r.tally {
		if n > byOutcome[o] {
			r.t.Fatalf("Receive returned %v %d times, counter says %d", o, n, byOutcome[o])
		}
	}
	if c.RxSeen < r.frames || c.RxSeen > r.frames+c.TxFrames {
		r.t.Fatalf("RxSeen %d for %d frames received and %d transmitted", c.RxSeen, r.frames, c.TxFrames)
	}
	if limit := uint64(r.elapsed/descFetchTime) + fuzzTxBatchSlack*(r.actions+1); c.TxDescFetches > limit {
		r.t.Fatalf("%d TX descriptor fetches after %d ns and %d guest actions (limit %d)",
			c.TxDescFetches, r.elapsed, r.actions, limit)
	}
	if limit := fuzzRxPerFrame * c.RxSeen; c.RxDescFetches > limit {
		r.t.Fatalf("%d RX descriptor fetches for %d frames", c.RxDescFetches, c.RxSeen)
	}
	r.checkStatus()
}

// checkStatus: CSR5's process states and summary bits agree with the engines and the
// interrupt line. Lock held.
func (r *dmaFuzzRun) checkStatus() {
	st, _ := r.mac.Peek(offStatus)
	en, _ := r.mac.Peek(offIntEnable)
	ts, rs := stTS.Get(st), stRS.Get(st)
	okTS := map[ProcessState]bool{
		Stopped:   ts == tsStopped,
		Running:   ts == tsFetching || ts == tsWaiting || ts == tsReading,
		Suspended: ts == tsSuspended,
	}[r.mac.TxState()]
	okRS := map[ProcessState]bool{
		Stopped: rs == rsStopped, Running: rs == rsWaiting, Suspended: rs == rsSuspended,
	}[r.mac.RxState()]
	if !okTS || !okRS {
		r.t.Fatalf("CSR5 %#08x (TS %d, RS %d) but TX %v, RX %v", st, ts, rs, r.mac.TxState(), r.mac.RxState())
	}
	intStatus, _ := r.mac.Peek(offIntStatus)
	intMask, _ := r.mac.Peek(offIntMask)
	wantNIS := st&en&stNormal != 0
	wantAIS := st&en&stAbnormal != 0
	wantGLI := intStatus&^intMask&intSources != 0
	if st&stNIS.Mask() != 0 != wantNIS || st&stAIS.Mask() != 0 != wantAIS || st&stGLI.Mask() != 0 != wantGLI {
		r.t.Fatalf("CSR5 %#08x with CSR7 %#08x, MAC interrupt status %#x mask %#x: want NIS %v AIS %v GLI %v",
			st, en, intStatus, intMask, wantNIS, wantAIS, wantGLI)
	}
	if want := wantNIS && en&stNIS.Mask() != 0 || wantAIS && en&stAIS.Mask() != 0 || wantGLI; r.irq.Level() != want {
		r.t.Fatalf("interrupt line %v with CSR5 %#08x CSR7 %#08x", r.irq.Level(), st, en)
	}
}

// dmaFuzzSeeds are guest programs a driver (or a broken one) would run.
func dmaFuzzSeeds() [][]byte {
	type op struct {
		kind, sel byte
		a, v      uint32
	}
	enc := func(image []uint32, ops ...op) []byte {
		b := []byte{byte(len(image) / 4)}
		for _, w := range image {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		for _, o := range ops {
			b = append(b, o.kind, o.sel)
			b = binary.LittleEndian.AppendUint32(b, o.a)
			b = binary.LittleEndian.AppendUint32(b, o.v)
		}
		return b
	}
	reg := func(off, v uint32) op {
		for i, r := range fuzzRegs {
			if r == off {
				return op{opKindReg, byte(i), 0, v}
			}
		}
		panic("register not in fuzzRegs")
	}
	wait := func(ns uint32) op { return op{opKindTime, 0, 0, ns} }
	recv := func(n uint32) op { return op{opKindRecv, 0, n, 0} }
	bringUpWith := func(macCfg uint32) []op {
		return []op{reg(offBusMode, busSWR.Mask()), wait(2000), reg(offBusMode, 8<<8), reg(offIntEnable, 0x1a061),
			reg(offRxBase, fuzzRingAt+0x200), reg(offTxBase, fuzzRingAt),
			reg(offAddr0High, addrAE.Mask()|uint32(ourMAC[5])<<8|uint32(ourMAC[4])),
			reg(offAddr0High+4, uint32(ourMAC[3])<<24|uint32(ourMAC[2])<<16|uint32(ourMAC[1])<<8|uint32(ourMAC[0])),
			reg(offMACConfig, macCfg), reg(offOpMode, opRSF.Mask()|1<<21|opST.Mask()|opSR.Mask()),
		}
	}
	bringUp := bringUpWith(linuxCfg1000)
	// image: a TX ring of 4 at fuzzRingAt whose first descriptor holds tx0 (des1, des2),
	// an RX ring of 4 with 1536-byte buffers at +0x200 (the first buffer at rx0).
	image := func(tx0d1, tx0d2, rx0 uint32) []uint32 {
		var w []uint32
		for i := range 4 {
			d1 := uint32(0)
			if i == 3 {
				d1 = tdes1TER
			}
			if i == 0 {
				w = append(w, descOWN, d1|tx0d1, tx0d2, tx0d2+2047)
				continue
			}
			w = append(w, 0, d1, 0, 0)
		}
		for len(w) < 0x200/4 {
			w = append(w, 0)
		}
		for i := range 4 {
			d1, buf := uint32(1536), fuzzBufAt+0x8000+uint32(i)*0x800
			if i == 3 {
				d1 |= rdes1RER
			}
			if i == 0 {
				buf = rx0
			}
			w = append(w, descOWN, d1, buf, 0)
		}
		return w
	}
	frame200 := uint32(tdes1FS | tdes1LS | tdes1IC | 200)
	good := image(frame200, fuzzBufAt, fuzzBufAt+0x8000)
	withOps := func(extra ...op) []op { return append(append([]op(nil), bringUp...), extra...) }
	return [][]byte{
		enc(good, withOps(wait(100000), recv(1518), recv(64), recv(70000), reg(offTxPoll, 1), wait(100000))...),
		// A chained descriptor that points at itself, OWN set, never LS.
		enc([]uint32{descOWN, tdes1FS | tdes1TCH, 0, fuzzRingAt}, withOps(wait(1000000), recv(300))...),
		// DMA started before the list bases were written.
		enc(good, reg(offOpMode, opST.Mask()|opSR.Mask()), reg(offMACConfig, linuxCfg1000), wait(5000), recv(200),
			reg(offTxBase, fuzzRingAt), reg(offRxBase, fuzzRingAt+0x200), reg(offTxPoll, 1), wait(50000)),
		// Software reset in the middle of a transfer.
		enc(good, withOps(wait(500), reg(offBusMode, busSWR.Mask()), recv(1000), wait(5000))...),
		// TX and RX buffers outside RAM.
		enc(image(frame200, 0x40000000, 0x80000000), withOps(recv(100), wait(10000), reg(offTxPoll, 1), recv(100))...),
		// A frame longer than the jabber limit with JD clear, loopback on.
		enc(image(tdes1FS|tdes1LS|2047|2047<<tdes1TBS2Shift, fuzzBufAt, fuzzBufAt+0x8000),
			append(bringUpWith(linuxCfg1000&^cfgJD.Mask()|cfgLM.Mask()), wait(100000))...),
		// Zero-length buffers, then a descriptor ending the frame.
		enc(image(tdes1FS, fuzzBufAt, fuzzBufAt+0x8000), withOps(op{opKindDesc, 1, tdes1LS | 64, 0}, reg(offTxPoll, 1), wait(10000))...),
		// Link change, then the MAC interrupt masked.
		enc(nil, reg(offIntEnable, 0x1a061), op{opKindLink, 1 | 4 | 8, 0, 0}, reg(offIntMask, 0x207), wait(10)),
	}
}
