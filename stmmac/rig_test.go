package stmmac

import (
	"encoding/binary"
	"testing"

	"mesonemu/emu"
	"mesonemu/mdio"
)

// Test-only machine: RAM at 0 (as on Meson8b), the MAC at its Meson8b base.
const (
	macBase  = 0xc9410000
	ramBase  = 0x00000000
	ramSize  = 1 << 20
	outside  = 0x40000000 // no RAM, no device
	txRingAt = 0x1000
	rxRingAt = 0x3000
	txBufAt  = 0x10000
	rxBufAt  = 0x60000
)

type sentFrame struct {
	at    emu.Time
	frame []byte
}

type rig struct {
	t    testing.TB
	m    *emu.Machine
	mac  *MAC
	irq  *emu.IRQ
	mii  *mdio.Bus
	sent []sentFrame
}

func newRig(t testing.TB, cfg Config) *rig {
	t.Helper()
	m := emu.NewMachine(1)
	if _, err := m.Bus().AddRAM(ramBase, ramSize); err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, m: m, irq: m.NewIRQ("macirq"), mii: &mdio.Bus{}}
	r.mac = New(m, r.irq, r.mii, cfg)
	if err := m.Bus().Map(macBase, Size, r.mac); err != nil {
		t.Fatal(err)
	}
	r.mac.SetTransmitter(func(f []byte) { // before the machine runs: no lock needed
		r.sent = append(r.sent, sentFrame{m.Now(), append([]byte(nil), f...)})
	})
	return r
}

func (r *rig) w(off, v uint32) {
	r.t.Helper()
	if err := r.m.Bus().Write32(macBase+off, v); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) rd(off uint32) uint32 {
	r.t.Helper()
	v, err := r.m.Bus().Read32(macBase + off)
	if err != nil {
		r.t.Fatal(err)
	}
	return v
}

func (r *rig) ram32(addr uint32) uint32 {
	r.t.Helper()
	var b [4]byte
	if err := r.m.Bus().ReadRAM(addr, b[:]); err != nil {
		r.t.Fatal(err)
	}
	return binary.LittleEndian.Uint32(b[:])
}

func (r *rig) setRAM32(addr, v uint32) {
	r.t.Helper()
	if err := r.m.Bus().Write32(addr, v); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) writeRAM(addr uint32, p []byte) {
	r.t.Helper()
	if err := r.m.Bus().WriteRAM(addr, p); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) readRAM(addr uint32, n int) []byte {
	r.t.Helper()
	p := make([]byte, n)
	if err := r.m.Bus().ReadRAM(addr, p); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// locked reads the model under the machine lock, as the tests do between runs.
func locked[T any](r *rig, read func() T) T {
	r.m.Lock()
	defer r.m.Unlock()
	return read()
}

func (r *rig) irqLevel() bool        { return locked(r, r.irq.Level) }
func (r *rig) counters() Counters    { return locked(r, r.mac.Counters) }
func (r *rig) txState() ProcessState { return locked(r, r.mac.TxState) }
func (r *rig) rxState() ProcessState { return locked(r, r.mac.RxState) }
func (r *rig) receive(frame []byte) RxOutcome {
	return locked(r, func() RxOutcome { return r.mac.Receive(frame) })
}

// bringUp does what stmmac_hw_setup does for the parts a test needs: reset, bus mode,
// interrupt mask, list bases, MAC address (ourMAC), MAC configuration at 1000 Mbit/s full duplex with TE/RE,
// operation mode with store-and-forward, then ST|SR.
func (r *rig) bringUp(txBase, rxBase uint32, macCfg uint32) {
	r.t.Helper()
	r.w(offBusMode, busSWR.Mask())
	r.m.Advance(10 * emu.Millisecond)
	if r.rd(offBusMode)&busSWR.Mask() != 0 {
		r.t.Fatal("SWR did not self-clear")
	}
	r.w(offBusMode, 8<<8) // PBL 8
	r.w(offIntEnable, 0x1a061)
	r.w(offRxBase, rxBase)
	r.w(offTxBase, txBase)
	// stmmac_set_umac_addr: bytes 5:4 with AE in the high word, 3:0 in the low word.
	r.w(offAddr0High, addrAE.Mask()|uint32(ourMAC[5])<<8|uint32(ourMAC[4]))
	r.w(offAddr0High+4, uint32(ourMAC[3])<<24|uint32(ourMAC[2])<<16|uint32(ourMAC[1])<<8|uint32(ourMAC[0]))
	r.w(offMACConfig, macCfg)
	r.w(offOpMode, opRSF.Mask()|1<<21|1<<2) // RSF | TSF | OSF
	r.w(offOpMode, r.rd(offOpMode)|opST.Mask()|opSR.Mask())
	// Let the engines settle (the TX DMA fetches the first, empty descriptor).
	r.m.Advance(emu.Microsecond)
}

// Linux v5.4 core_init: JD | PS | ACS | BE | DCRS, then the link speed from phylink
// (PS = 0 for 1000), full duplex, TE | RE.
var linuxCfg1000 = cfgJD.Mask() | cfgACS.Mask() | 1<<21 | 1<<16 | cfgDM.Mask() | cfgTE.Mask() | cfgRE.Mask()

// ring is a test-only descriptor ring written through the bus the way Linux's
// stmmac driver does (normal descriptors, ring or chain mode).
type ring struct {
	r       *rig
	base    uint32
	n       int
	bufBase uint32
	bufSize int
	chain   bool
}

// newTxRig is a rig brought up with MAC configuration macCfg and a TX ring of n
// 2048-byte buffers to queue frames on.
func newTxRig(t testing.TB, n int, macCfg uint32) (*rig, *ring) {
	t.Helper()
	r := newRig(t, Config{})
	tx := newRing(r, txRingAt, n, txBufAt, 2048, false)
	tx.initTx()
	r.bringUp(txRingAt, rxRingAt, macCfg)
	return r, tx
}

// newRings is a rig with a 4-entry TX ring of 2048-byte buffers, initialised, and
// an RX ring of n bufSize-byte buffers for the caller to set up; not brought up.
func newRings(t testing.TB, n, bufSize int, chain bool) (r *rig, tx, rx *ring) {
	t.Helper()
	return newRingsWith(t, Config{}, n, bufSize, chain)
}

// newRingsWith is newRings for a MAC built from cfg.
func newRingsWith(t testing.TB, cfg Config, n, bufSize int, chain bool) (r *rig, tx, rx *ring) {
	t.Helper()
	r = newRig(t, cfg)
	tx = newRing(r, txRingAt, 4, txBufAt, 2048, false)
	tx.initTx()
	return r, tx, newRing(r, rxRingAt, n, rxBufAt, bufSize, chain)
}

func newRing(r *rig, base uint32, n int, bufBase uint32, bufSize int, chain bool) *ring {
	return &ring{r: r, base: base, n: n, bufBase: bufBase, bufSize: bufSize, chain: chain}
}

func (q *ring) desc(i int) uint32 { return q.base + uint32(16*(i%q.n)) }
func (q *ring) buf(i int) uint32  { return q.bufBase + uint32(q.bufSize*(i%q.n)) }

func (q *ring) set(i int, d0, d1, d2, d3 uint32) {
	a := q.desc(i)
	// OWN (des0) last, as Linux orders it with a barrier.
	q.r.setRAM32(a+4, d1)
	q.r.setRAM32(a+8, d2)
	q.r.setRAM32(a+12, d3)
	q.r.setRAM32(a, d0)
}

func (q *ring) get(i int) [4]uint32 {
	a := q.desc(i)
	return [4]uint32{q.r.ram32(a), q.r.ram32(a + 4), q.r.ram32(a + 8), q.r.ram32(a + 12)}
}

// endBits are the ring/chain bits of descriptor i (TER on the last, or TCH + next).
func (q *ring) endBits(i int, ter, tch uint32) (d1, d3 uint32) {
	if q.chain {
		return tch, q.desc(i + 1)
	}
	if i%q.n == q.n-1 {
		return ter, 0
	}
	return 0, 0
}

// initTx clears every TX descriptor (OWN 0) with its ring bits.
func (q *ring) initTx() {
	for i := range q.n {
		d1, d3 := q.endBits(i, tdes1TER, tdes1TCH)
		q.set(i, 0, d1, 0, d3)
	}
}

// queueTx puts frame (without FCS) in descriptor i as one FS|LS segment.
func (q *ring) queueTx(i int, frame []byte, ic bool) {
	q.r.writeRAM(q.buf(i), frame)
	d1, d3 := q.endBits(i, tdes1TER, tdes1TCH)
	d1 |= tdes1FS | tdes1LS | uint32(len(frame))
	if ic {
		d1 |= tdes1IC
	}
	q.set(i, descOWN, d1, q.buf(i), d3)
}

// initRx gives every descriptor to the DMA with a bufSize buffer (ndesc_init_rx_desc).
func (q *ring) initRx(dic bool) {
	for i := range q.n {
		d1, d3 := q.endBits(i, rdes1RER, rdes1RCH)
		d1 |= uint32(min(q.bufSize, 2047))
		if dic {
			d1 |= rdes1DIC
		}
		q.set(i, descOWN, d1, q.buf(i), d3)
	}
}

// refillRx only ORs OWN back, as Linux's refill does.
func (q *ring) refillRx(i int) {
	q.r.setRAM32(q.desc(i), q.r.ram32(q.desc(i))|descOWN)
}

// testFrame is an Ethernet II frame of n bytes (FCS excluded) to dst.
func testFrame(n int, dst [6]byte, seed byte) []byte {
	f := make([]byte, n)
	copy(f, dst[:])
	copy(f[6:], []byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x02})
	f[12], f[13] = 0x88, 0xb5 // local experimental EtherType
	for i := 14; i < n; i++ {
		f[i] = seed + byte(i)
	}
	return f
}

// withFCS appends the Ethernet FCS, computed bit by bit (independently of the model).
func withFCS(f []byte) []byte {
	crc := ^uint32(0)
	for _, b := range f {
		crc ^= uint32(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xedb88320
			} else {
				crc >>= 1
			}
		}
	}
	crc = ^crc
	return append(append([]byte(nil), f...), byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24))
}

var (
	ourMAC   = [6]byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
	peerMAC  = [6]byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x02}
	otherMAC = [6]byte{0x02, 0x00, 0x00, 0x00, 0x00, 0x99}
	bcastMAC = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
)
