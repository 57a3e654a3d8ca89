package rgmiiwire

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"mesonemu/ether"
)

func mustWire(t testing.TB, tm Timing, seed uint64) *Wire {
	t.Helper()
	w, err := New(tm, rand.New(rand.NewPCG(seed, 0x7267_6d69)))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// randomFrame fills frame (FCS excluded) from payload and appends the FCS.
func randomFrame(buf []byte, payload *rand.Rand, frameLen int) []byte {
	buf = buf[:0]
	for len(buf)+8 <= frameLen {
		var w [8]byte
		v := payload.Uint64()
		for i := range w {
			w[i] = byte(v >> (8 * i))
		}
		buf = append(buf, w[:]...)
	}
	for len(buf) < frameLen {
		buf = append(buf, byte(payload.Uint32()))
	}
	return ether.AppendFCS(buf)
}

// runFrames sends count random frames of frameLen bytes and returns the indices
// of the damaged ones. It checks that the FCS catches exactly those.
func runFrames(t *testing.T, w *Wire, payloadSeed uint64, count, frameLen int) []int {
	t.Helper()
	payload := rand.New(rand.NewPCG(payloadSeed, 1))
	var damaged []int
	buf := make([]byte, 0, frameLen+ether.FCSLen)
	for i := range count {
		buf = randomFrame(buf, payload, frameLen)
		res := w.Transmit(buf)
		if res.Damaged() {
			damaged = append(damaged, i)
		}
		if res.FrameDamaged == ether.CheckFCS(buf) {
			t.Fatalf("frame %d: FrameDamaged %v but FCS check %v (%+v)", i, res.FrameDamaged, ether.CheckFCS(buf), res)
		}
	}
	return damaged
}

func TestPreFixLossMatchesPrediction(t *testing.T) {
	const frames = 200000
	w := mustWire(t, odroidTX(8000, 0), 1)
	damaged := runFrames(t, w, 2, frames, 1514)
	p := w.Budget().PredictedLoss(1514)
	mean, sigma := frames*p, math.Sqrt(frames*p*(1-p))
	if got := float64(len(damaged)); math.Abs(got-mean) > 3*sigma {
		t.Errorf("%d of %d frames damaged, predicted %.1f ± %.1f", len(damaged), frames, mean, sigma)
	}
	st := w.Stats()
	t.Logf("%d of %d damaged (predicted %.1f ± %.1f), %d misses, %d flipped bits", len(damaged), frames, mean, sigma, st.Misses, st.FlippedBits)
	if st.Frames != frames || st.Damaged != uint64(len(damaged)) || st.NibbleShifted != 0 {
		t.Errorf("stats %+v", st)
	}
	// Misses are drawn at q = q_s + q_h, twice the visible rate on random data.
	q := w.Budget().Lines[0].QSetup
	wantMisses := frames * 4 * float64(samplesPerLine(1518)) * q
	if math.Abs(float64(st.Misses)-wantMisses) > 3*math.Sqrt(wantMisses) {
		t.Errorf("%d misses, want %.0f ± %.0f", st.Misses, wantMisses, 3*math.Sqrt(wantMisses))
	}
	if ratio := float64(st.FlippedBits) / float64(st.Misses); ratio < 0.45 || ratio > 0.55 {
		t.Errorf("visible flips per miss %.3f, want ~0.5 (a)", ratio)
	}
}

func TestSameSeedBreaksSameFrames(t *testing.T) {
	const frames = 20000
	first := runFrames(t, mustWire(t, odroidTX(8000, 0), 7), 3, frames, 1514)
	again := runFrames(t, mustWire(t, odroidTX(8000, 0), 7), 3, frames, 1514)
	other := runFrames(t, mustWire(t, odroidTX(8000, 0), 8), 3, frames, 1514)
	if len(first) < 30 {
		t.Fatalf("only %d damaged frames; the comparison says nothing", len(first))
	}
	if !slices.Equal(first, again) {
		t.Errorf("same seed: %d vs %d damaged, different frames", len(first), len(again))
	}
	if slices.Equal(first, other) {
		t.Errorf("different seeds broke the same %d frames", len(first))
	}
}

// zeroPayloadFrame is a 1514-byte frame with a real-looking header and a zero
// payload, plus FCS.
func zeroPayloadFrame() []byte {
	f := make([]byte, 1514)
	copy(f, []byte{
		0x00, 0x1e, 0x06, 0x61, 0x7a, 0x39, // destination: the Odroid (Hardkernel OUI)
		0x02, 0x00, 0x00, 0x00, 0x00, 0x01, // source: the PC
		0x08, 0x00, // IPv4
	})
	return ether.AppendFCS(f)
}

func TestZeroPayloadLosesFarLess(t *testing.T) {
	b := mustBudget(t, odroidTX(8000, 0))
	template := zeroPayloadFrame()
	p := b.FrameLossProbability(template)
	// Independent count: only the setup side matters here (q_h = 0), so
	// P = 1 - (1-q_s)^T with T the samples that differ from their predecessor.
	transitions := 0
	n := samplesPerLine(len(template))
	for k := range Lines {
		for j := 2 * ether.PreambleLen; j < n; j++ {
			if sampleBit(template, j, k) != sampleBit(template, j-1, k) {
				transitions++
			}
		}
	}
	if want := -math.Expm1(float64(transitions) * math.Log1p(-b.Lines[0].QSetup)); math.Abs(p/want-1) > 1e-9 {
		t.Fatalf("FrameLossProbability %.6g, transition count gives %.6g", p, want)
	}
	// Computed independently (Python, zlib.crc32 + mpmath): 55 transitions, P = 1-(1-q_s)^55.
	if transitions != 55 || math.Abs(p/3.39513e-5-1) > 1e-4 {
		t.Errorf("%d transitions, P = %.6g; want 55, 3.39513e-5", transitions, p)
	}
	if random := b.PredictedLoss(1514); p > random/100 {
		t.Errorf("zero payload P %.3g not far below random payload %.3g", p, random)
	}

	const frames = 400000
	w := mustWire(t, odroidTX(8000, 0), 11)
	buf := make([]byte, len(template))
	lost := 0
	for range frames {
		copy(buf, template)
		if w.Transmit(buf).Damaged() {
			lost++
		}
	}
	mean, sigma := frames*p, math.Sqrt(frames*p*(1-p))
	if math.Abs(float64(lost)-mean) > 3*sigma {
		t.Errorf("%d of %d zero-payload frames lost, predicted %.1f ± %.1f", lost, frames, mean, sigma)
	}
}

func TestRandomPayloadExactPredictionAgreesWithFormula(t *testing.T) {
	// On random data the exact per-frame prediction averages to the a = 0.5
	// formula, less the preamble's samples (which carry almost no transitions).
	b := mustBudget(t, odroidTX(8000, 0))
	payload := rand.New(rand.NewPCG(5, 5))
	sum := 0.0
	const frames = 400
	buf := make([]byte, 0, 1518)
	for range frames {
		buf = randomFrame(buf, payload, 1514)
		sum += b.FrameLossProbability(buf)
	}
	mean := sum / frames
	if formula := b.PredictedLoss(1514); math.Abs(mean/formula-1) > 0.02 {
		t.Errorf("mean exact prediction %.4g, formula %.4g", mean, formula)
	}
}

func TestCleanTimingNeverTouchesFramesOrTheStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	w, err := New(odroidTX(2000, 0), rng)
	if err != nil {
		t.Fatal(err)
	}
	frame := randomFrame(nil, rand.New(rand.NewPCG(3, 3)), 1514)
	orig := bytes.Clone(frame)
	for range 1000 {
		if res := w.Transmit(frame); res != (Result{}) || res.Changed() {
			t.Fatalf("post-fix timing changed a frame: %+v", res)
		}
	}
	if !bytes.Equal(frame, orig) || w.Stats().Frames != 1000 {
		t.Errorf("frame changed or not counted")
	}
	// A q of ~1e-76 cannot be expressed by a 52-bit uniform: no draw is spent.
	if next, want := rng.Uint64(), rand.New(rand.NewPCG(1, 2)).Uint64(); next != want {
		t.Errorf("clean frames consumed random draws")
	}
}

// shiftedBytes is the docs/reference/rgmii-timing.md §2 step 2 re-association: each byte from the high
// nibble of one byte and the low nibble of the next; the last byte's high nibble
// comes from the idle line (0).
func shiftedBytes(frame []byte) []byte {
	out := make([]byte, len(frame))
	for i := range frame {
		next := byte(0)
		if i+1 < len(frame) {
			next = frame[i+1]
		}
		out[i] = frame[i]>>4 | next<<4
	}
	return out
}

func TestWrongHalfReassociatesNibbles(t *testing.T) {
	frame := randomFrame(nil, rand.New(rand.NewPCG(9, 9)), 60)
	want := shiftedBytes(frame)
	rng := rand.New(rand.NewPCG(4, 4))
	w, err := New(odroidTX(4000, 0), rng)
	if err != nil {
		t.Fatal(err)
	}
	res := w.Transmit(frame)
	if !bytes.Equal(frame, want) {
		t.Errorf("wrong-half frame\n got % x\nwant % x", frame, want)
	}
	if !res.NibbleShifted || !res.SFDDamaged || !res.FrameDamaged || res.PreambleDamaged || !res.AlignmentError() || !res.Changed() || res.Misses != 0 {
		t.Errorf("result %+v", res)
	}
	// The SFD byte becomes 0xd | lo(frame[0])<<4: never 0xd5.
	if next, fresh := rng.Uint64(), rand.New(rand.NewPCG(4, 4)).Uint64(); next != fresh {
		t.Errorf("the wrong-half path drew random numbers")
	}
}

func TestPerLineShiftAndGeneralPath(t *testing.T) {
	frame := randomFrame(nil, rand.New(rand.NewPCG(12, 12)), 80)
	// The general bit-by-bit path agrees with the bytewise one for a uniform shift.
	w := mustWire(t, odroidTX(4000, 0), 1)
	fast, general := bytes.Clone(frame), bytes.Clone(frame)
	rf, rg := w.shiftByOneNibble(fast), w.shiftPerLine(general)
	if !bytes.Equal(fast, general) || rf != rg {
		t.Fatalf("bytewise %+v and general %+v paths differ", rf, rg)
	}
	// Only line 2 a nibble late (skew +1500 ps at the post-fix 2591 ps phase):
	// bit 2 and bit 6 of each byte come from the next sample, the rest stay.
	tm := odroidTX(2000, 0)
	tm.LineSkewPs[2] = 1500
	w = mustWire(t, tm, 1)
	got := bytes.Clone(frame)
	res := w.Transmit(got)
	for i, b := range frame {
		next := byte(0)
		if i+1 < len(frame) {
			next = frame[i+1]
		}
		want := b&^0x44 | (b>>4)&0x04 | (next<<4)&0x40
		if got[i] != want {
			t.Fatalf("byte %d = %02x, want %02x", i, got[i], want)
		}
	}
	// SFD 0xd5: line 2 reads 1,1 then the first frame byte's bit 2 -> the SFD
	// survives exactly when that bit is 1.
	if res.SFDDamaged != (frame[0]&0x04 == 0) || !res.NibbleShifted || !res.FrameDamaged {
		t.Errorf("result %+v, first byte %02x", res, frame[0])
	}
}

func TestCertainMissesCopyTheRightNeighbour(t *testing.T) {
	frame := randomFrame(nil, rand.New(rand.NewPCG(10, 10)), 100)
	// Hold side certain (sample 200 ps before the next transition, no jitter):
	// every sample takes the next one's bit, the same bytes as the wrong half.
	hold := odroidTX(2000, 0)
	hold.JitterSigmaPs = 0
	hold.BoardSkewPs = 1800
	w := mustWire(t, hold, 1)
	got := bytes.Clone(frame)
	res := w.Transmit(got)
	if !bytes.Equal(got, shiftedBytes(frame)) {
		t.Errorf("hold-side misses\n got % x\nwant % x", got, shiftedBytes(frame))
	}
	if res.Misses != 4*samplesPerLine(len(frame)) || !res.SFDDamaged {
		t.Errorf("result %+v", res)
	}
	// Setup side certain: every sample takes the previous one's bit, a stream one
	// nibble late: byte i = hi(b[i-1]) | lo(b[i])<<4, byte 0 from the SFD's 0xd.
	setup := hold
	setup.BoardSkewPs = -1800 // sample 200 ps after the transition, inside the 300 ps setup
	w = mustWire(t, setup, 1)
	got = bytes.Clone(frame)
	w.Transmit(got)
	for i := range frame {
		prev := byte(ether.SFDByte)
		if i > 0 {
			prev = frame[i-1]
		}
		if want := prev>>4 | frame[i]<<4; got[i] != want {
			t.Fatalf("setup-side byte %d = %02x, want %02x", i, got[i], want)
		}
	}
}

func TestConfigureRejectsBadTimingAndKeepsTheOld(t *testing.T) {
	w := mustWire(t, odroidTX(2000, 0), 1)
	bad := odroidTX(2000, 0)
	bad.SpeedMbps = 0
	if err := w.Configure(bad); err == nil {
		t.Fatal("speed 0 accepted")
	}
	if w.Timing() != odroidTX(2000, 0) {
		t.Errorf("timing changed after a refused Configure")
	}
	if _, err := New(odroidTX(2000, 0), nil); err == nil {
		t.Errorf("nil random stream accepted")
	}
	// Reconfiguring to the pre-fix point takes effect at once.
	if err := w.Configure(odroidTX(4000, 0)); err != nil || !w.Budget().WrongHalf {
		t.Errorf("Configure to wrong half: %v, %v", err, w.Budget().WrongHalf)
	}
}

func TestOddFramesDoNotPanic(t *testing.T) {
	for _, tm := range []Timing{odroidTX(8000, 0), odroidTX(4000, 0)} {
		heavy := tm
		heavy.JitterSigmaPs = 5000
		for _, timing := range []Timing{tm, heavy} {
			w := mustWire(t, timing, 3)
			for _, n := range []int{0, 1, 3, 64, 9000} {
				res := w.Transmit(make([]byte, n))
				if n == 0 && res.FrameDamaged {
					t.Errorf("empty frame damaged")
				}
			}
		}
	}
}
