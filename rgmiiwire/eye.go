package rgmiiwire

import "math/rand/v2"

// BathtubPoint is the visible bit error rate with the sampling instant OffsetPs
// after the data transition it follows.
type BathtubPoint struct {
	OffsetPs float64
	BER      float64
}

// Bathtub is BER against sampling offset over one unit interval for one line,
// plus the line's operating point: the data a bathtub plot needs.
type Bathtub struct {
	UnitIntervalPs float64
	SetupPs        float64
	HoldPs         float64
	JitterSigmaPs  float64
	// OperatingPs is where the line actually samples (LineBudget.SamplePhasePs).
	OperatingPs float64
	// OperatingBER is the BER there (LineBudget.Eps()).
	OperatingBER float64
	// WrongHalf: the operating point samples the wrong nibble; the BER curve
	// still describes its aperture, but every frame is lost.
	WrongHalf bool
	Points    []BathtubPoint
}

// Bathtub limits.
const (
	MinBathtubPoints = 2
	MaxBathtubPoints = 100000
)

// Bathtub samples a·(Q((x - ts)/σ) + Q((UI - x - th)/σ)) at points evenly spaced
// offsets x from 0 to UI inclusive, for data line `line` (0-3; out of range means
// line 0). points is clamped to [MinBathtubPoints, MaxBathtubPoints].
func (b Budget) Bathtub(line, points int) Bathtub {
	if line < 0 || line >= Lines {
		line = 0
	}
	points = min(max(points, MinBathtubPoints), MaxBathtubPoints)
	t := b.Timing
	l := b.Lines[line]
	out := Bathtub{
		UnitIntervalPs: b.UnitIntervalPs,
		SetupPs:        t.SetupPs,
		HoldPs:         t.HoldPs,
		JitterSigmaPs:  t.JitterSigmaPs,
		OperatingPs:    l.SamplePhasePs,
		OperatingBER:   l.Eps(),
		WrongHalf:      l.Shift != 0,
		Points:         make([]BathtubPoint, points),
	}
	for i := range out.Points {
		x := b.UnitIntervalPs * float64(i) / float64(points-1)
		ber := RandomPayloadDensity * (Q(marginZ(x-t.SetupPs, t.JitterSigmaPs)) +
			Q(marginZ(b.UnitIntervalPs-x-t.HoldPs, t.JitterSigmaPs)))
		out.Points[i] = BathtubPoint{OffsetPs: x, BER: ber}
	}
	return out
}

// EyeEdge is one data transition on a line, timed against the sampling instant of
// the unit interval it starts (that sampler fires at 0, the previous one at -UI).
type EyeEdge struct {
	UI     int     // index of the unit interval the edge starts
	Rising bool    // 0 -> 1
	TimePs float64 // edge time relative to that UI's sampling instant
}

// Eye is eye-diagram data for one line: random data edges with Gaussian jitter
// around the nominal transition at -SamplePhasePs.
type Eye struct {
	UnitIntervalPs float64
	SamplePhasePs  float64 // the nominal edge lies SamplePhasePs before each sample
	SetupPs        float64
	HoldPs         float64
	Edges          []EyeEdge
}

// MaxEyeUIs bounds the unit intervals one Eye call generates.
const MaxEyeUIs = 1 << 20

// Eye generates uis unit intervals of random data (transition density
// RandomPayloadDensity) on data line `line` (out of range means 0) and returns the
// jittered time of every transition relative to the sampling clock. Draws come
// from rng (pass a stream of its own, e.g. m.Rand("rgmii-eye"), so plotting does
// not disturb the wire's stream). uis is clamped to [0, MaxEyeUIs].
func (b Budget) Eye(rng *rand.Rand, line, uis int) Eye {
	if line < 0 || line >= Lines {
		line = 0
	}
	uis = min(max(uis, 0), MaxEyeUIs)
	l := b.Lines[line]
	eye := Eye{
		UnitIntervalPs: b.UnitIntervalPs,
		SamplePhasePs:  l.SamplePhasePs,
		SetupPs:        b.Timing.SetupPs,
		HoldPs:         b.Timing.HoldPs,
	}
	if rng == nil {
		return eye
	}
	sigma := b.Timing.JitterSigmaPs
	prev := false
	for i := range uis {
		bit := rng.Float64() < 0.5 // random data: transition density 0.5
		if i == 0 {
			prev = bit
			continue
		}
		if bit != prev {
			eye.Edges = append(eye.Edges, EyeEdge{
				UI:     i,
				Rising: bit,
				TimePs: -l.SamplePhasePs + sigma*rng.NormFloat64(),
			})
		}
		prev = bit
	}
	return eye
}

// Violations counts the edges that fall inside the sampler's aperture: later
// than -setup (the sample after the edge misses) or earlier than -UI + hold (the
// sample before it misses). Over many edges they approach q_s and q_h per edge.
func (e Eye) Violations() (setup, hold int) {
	for _, edge := range e.Edges {
		if edge.TimePs > -e.SetupPs {
			setup++
		}
		if edge.TimePs < -e.UnitIntervalPs+e.HoldPs {
			hold++
		}
	}
	return setup, hold
}
