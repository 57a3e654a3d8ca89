package rgmiiwire

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"mesonemu/ether"
)

// Result is what crossing the wire did to one frame.
type Result struct {
	// FrameDamaged: a byte of the frame (FCS included) changed, so the FCS check
	// fails (barring a 2^-32 CRC coincidence).
	FrameDamaged bool
	// SFDDamaged: the start frame delimiter changed; the receiver cannot find the
	// frame start (an alignment/symbol error).
	SFDDamaged bool
	// PreambleDamaged: a preamble byte before the SFD changed. Assumption: the
	// receiver still locks on (802.3 receivers must not depend on the preamble
	// length, and a 1000BASE-T PCS replaces its first bytes with the start-of-stream
	// delimiter anyway), so this alone does not lose the frame.
	PreambleDamaged bool
	// NibbleShifted: a line sampled the wrong nibble (phase in the wrong half).
	NibbleShifted bool
	// FlippedBits counts bits that changed, preamble and SFD included.
	FlippedBits int
	// Misses counts sampling misses, visible or not (a miss between equal bits
	// changes nothing).
	Misses int
}

// Damaged reports whether the receiver cannot take the frame intact.
func (r Result) Damaged() bool { return r.FrameDamaged || r.SFDDamaged }

// Changed reports whether any bit on the wire changed, preamble included.
func (r Result) Changed() bool { return r.FlippedBits > 0 }

// AlignmentError reports whether the receiver sees a framing problem rather than
// a plain FCS error: it cannot find the SFD. A wrong-half phase on every line
// always destroys the SFD (it becomes 0x?d), so nibble-shifted frames land here;
// a single skewed line that leaves the SFD intact shows as an FCS error instead,
// as a receiver could not tell it from a bit error.
func (r Result) AlignmentError() bool { return r.SFDDamaged }

// Stats are the wire's running totals since it was made.
type Stats struct {
	Frames        uint64 // frames that crossed
	Damaged       uint64 // frames with Result.Damaged
	SFDDamaged    uint64
	NibbleShifted uint64
	Misses        uint64
	FlippedBits   uint64
}

// lineWalk is one line's precomputed geometric-skip parameters.
type lineWalk struct {
	missRate   float64 // q = q_s + q_h per sample, at most 1
	logNoMiss  float64 // ln(1 - q); -Inf when q = 1
	setupShare float64 // P(setup side | miss) = q_s / q
}

// flip is one visible change: sample j of line k takes its neighbour's bit.
type flip struct {
	sample int
	line   int
}

// Wire is one direction of the RGMII link. It is not safe for concurrent use: the
// board calls it from hardware events, under the machine lock.
type Wire struct {
	budget    Budget
	wrongHalf bool // budget.WrongHalf, kept beside the hot fields
	rng       *rand.Rand
	lines     [Lines]lineWalk
	// cleanSamples: a frame with at most this many samples per line cannot see a
	// miss for any value the uniform draw can take, so it skips the draws.
	cleanSamples int64
	flips        []flip
	scratch      []byte
	stats        Stats
}

// New makes a wire with timing t whose misses come from rng (the board passes a
// named machine stream, e.g. m.Rand("rgmii-tx"), so the same seed and the same
// frame sequence break the same frames).
func New(t Timing, rng *rand.Rand) (*Wire, error) {
	if rng == nil {
		return nil, errors.New("rgmii wire: nil random stream")
	}
	w := &Wire{rng: rng}
	if err := w.Configure(t); err != nil {
		return nil, err
	}
	return w, nil
}

// Configure installs new timing (a clock, delay, speed or board parameter
// changed) and precomputes everything the per-frame path needs. On error the old
// timing stays.
func (w *Wire) Configure(t Timing) error {
	b, err := NewBudget(t)
	if err != nil {
		return fmt.Errorf("configure: %w", err)
	}
	w.budget = b
	w.wrongHalf = b.WrongHalf
	w.cleanSamples = math.MaxInt64
	for k, l := range b.Lines {
		setup, hold := l.missRates()
		q := min(setup+hold, 1) // a rate above 1 would make ln(1 - q) NaN
		walk := lineWalk{missRate: q, logNoMiss: math.Log1p(-q)}
		if q > 0 {
			walk.setupShare = setup / q
		}
		w.lines[k] = walk
		w.cleanSamples = min(w.cleanSamples, walk.guaranteedClean())
	}
	return nil
}

// Timing is the installed timing.
func (w *Wire) Timing() Timing { return w.budget.Timing }

// Budget is the installed timing's analytic budget.
func (w *Wire) Budget() Budget { return w.budget }

// Stats are the totals since the wire was made.
func (w *Wire) Stats() Stats { return w.stats }

// The uniform draw for a skip is (k + ½)·2^-52 for a random 52-bit k: strictly
// inside (0, 1), so ln U is finite and negative.
const uniformScale = 0x1p-52

func uniformOpen(r *rand.Rand) float64 {
	return (float64(r.Uint64()>>12) + 0.5) * uniformScale
}

// maxLogUniform is the largest ln U the draw can give.
var maxLogUniform = math.Log((float64(1<<52-1) + 0.5) * uniformScale)

// guaranteedClean is the number of samples before which no miss can fall for any
// draw: the skip floor(ln U / ln(1-q)) is at least floor(maxLogUniform / ln(1-q)).
// This is exact, not an approximation: the draw's resolution cannot express a
// smaller miss chance (below about 2^-53 per frame and line).
func (l lineWalk) guaranteedClean() int64 {
	if l.missRate <= 0 {
		return math.MaxInt64
	}
	g := math.Floor(maxLogUniform / l.logNoMiss)
	if !(g < 1<<62) { // also catches +Inf and NaN
		return 1 << 62
	}
	return int64(g)
}

// skip draws the number of samples before the next miss.
func (l lineWalk) skip(r *rand.Rand) float64 {
	return math.Floor(math.Log(uniformOpen(r)) / l.logNoMiss)
}

// Transmit carries frameWithFCS (the bytes after the SFD, FCS included) across
// the wire and corrupts it in place as the receiver's sampler would. Cost is
// O(1 + misses) with good timing; a wrong-half phase rebuilds the bytes in
// O(len) without random draws.
func (w *Wire) Transmit(frameWithFCS []byte) Result {
	n := samplesPerLine(len(frameWithFCS))
	if !w.wrongHalf && int64(n) <= w.cleanSamples {
		w.stats.Frames++
		return Result{}
	}
	var res Result
	if w.wrongHalf {
		res = w.shiftNibbles(frameWithFCS)
	} else {
		res = w.sampleWithMisses(frameWithFCS, n)
	}
	w.count(res)
	return res
}

func (w *Wire) count(res Result) {
	w.stats.Frames++
	w.stats.Misses += uint64(res.Misses)
	w.stats.FlippedBits += uint64(res.FlippedBits)
	if res.Damaged() {
		w.stats.Damaged++
	}
	if res.SFDDamaged {
		w.stats.SFDDamaged++
	}
	if res.NibbleShifted {
		w.stats.NibbleShifted++
	}
}

// sampleWithMisses walks each line's n samples with geometric skips. Every miss
// reads the neighbour from the unmodified frame; changes are applied at the end,
// so neighbouring misses do not feed on each other.
func (w *Wire) sampleWithMisses(frame []byte, n int) Result {
	var res Result
	w.flips = w.flips[:0]
	for k := range w.lines {
		l := &w.lines[k]
		if l.missRate <= 0 {
			continue
		}
		for j := 0; ; j++ {
			gap := l.skip(w.rng)
			if !(gap < float64(n-j)) { // also ends the walk on a NaN skip
				break
			}
			j += int(gap)
			res.Misses++
			neighbour := j + 1 // hold side: the next sample's bit
			if l.setupShare >= 1 || (l.setupShare > 0 && w.rng.Float64() < l.setupShare) {
				neighbour = j - 1 // setup side: the previous sample's bit
			}
			if sampleBit(frame, neighbour, k) != sampleBit(frame, j, k) {
				w.flips = append(w.flips, flip{sample: j, line: k})
			}
		}
	}
	for _, f := range w.flips {
		byteIndex := f.sample >> 1
		mask := byte(1) << (uint(f.sample&1)*4 + uint(f.line))
		switch {
		case byteIndex < ether.PreambleLen:
			res.PreambleDamaged = true
		case byteIndex < ether.PreambleSFDLen:
			res.SFDDamaged = true
		default:
			frame[byteIndex-ether.PreambleSFDLen] ^= mask
			res.FrameDamaged = true
		}
	}
	res.FlippedBits = len(w.flips)
	return res
}

// shiftNibbles rebuilds the wire stream as a receiver whose lines sample the
// wrong nibble sees it: line k's sample j carries the transmitted sample
// j + Shift_k. With every line in the wrong half (Shift 1) this is the nibble
// re-association of docs/reference/rgmii-timing.md §2 step 2: each byte made of the high nibble of one
// byte and the low nibble of the next. No random draws.
func (w *Wire) shiftNibbles(frame []byte) Result {
	uniform := true
	for _, l := range w.budget.Lines[1:] {
		uniform = uniform && l.Shift == w.budget.Lines[0].Shift
	}
	if uniform && w.budget.Lines[0].Shift == 1 {
		return w.shiftByOneNibble(frame)
	}
	return w.shiftPerLine(frame)
}

// shiftPerLine is the general case (per-line skews): bit by bit, O(8·len).
func (w *Wire) shiftPerLine(frame []byte) Result {
	res := Result{NibbleShifted: true}
	w.scratch = append(w.scratch[:0], frame...)
	orig := w.scratch
	received := func(j int) byte {
		var nib byte
		for k, l := range w.budget.Lines {
			nib |= sampleBit(orig, j+l.Shift, k) << uint(k)
		}
		return nib
	}
	for i := range ether.PreambleSFDLen + len(frame) {
		got := received(2*i) | received(2*i+1)<<4
		diff := got ^ wireByte(orig, i)
		if diff == 0 {
			continue
		}
		res.FlippedBits += bits.OnesCount8(diff)
		switch {
		case i < ether.PreambleLen:
			res.PreambleDamaged = true
		case i < ether.PreambleSFDLen:
			res.SFDDamaged = true
		default:
			frame[i-ether.PreambleSFDLen] = got
			res.FrameDamaged = true
		}
	}
	return res
}

// shiftByOneNibble is shiftNibbles for the usual wrong-half case, every line one
// sample late, done bytewise: received byte i = hi(wire[i]) | lo(wire[i+1])<<4.
func (w *Wire) shiftByOneNibble(frame []byte) Result {
	res := Result{NibbleShifted: true}
	w.scratch = append(w.scratch[:0], ether.PreambleByte, ether.PreambleByte, ether.PreambleByte,
		ether.PreambleByte, ether.PreambleByte, ether.PreambleByte, ether.PreambleByte, ether.SFDByte)
	w.scratch = append(w.scratch, frame...)
	w.scratch = append(w.scratch, 0) // the idle line after the frame
	stream := w.scratch
	for i := range ether.PreambleSFDLen {
		got := stream[i]>>4 | stream[i+1]<<4
		if diff := got ^ stream[i]; diff != 0 {
			res.FlippedBits += bits.OnesCount8(diff)
			if i < ether.PreambleLen {
				res.PreambleDamaged = true
			} else {
				res.SFDDamaged = true
			}
		}
	}
	body := stream[ether.PreambleSFDLen:]
	for i := range frame {
		got := body[i]>>4 | body[i+1]<<4
		if diff := got ^ body[i]; diff != 0 {
			res.FlippedBits += bits.OnesCount8(diff)
			frame[i] = got
			res.FrameDamaged = true
		}
	}
	return res
}
