package scan

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"mesonemu/linktest"
	"mesonemu/linux/stmmac/dwmacmeson8b"
	"mesonemu/perfrun"
	"mesonemu/sim"
)

// Sweep constants.
const (
	// MACSteps is the number of PRG_ETH0 TXDLY values (a 2-bit field).
	MACSteps = 4
	// PhyMode is the phy-mode of every cell: the glue programs TXDLY only for it.
	PhyMode = "rgmii"
	// PassPredictedLoss: a passing cell's predicted frame loss is below this
	// (docs/reference/rgmii-timing.md §2 step 6: z ≥ 7.38 on both sides).
	PassPredictedLoss = 1e-9
	// MaxSkewPoints bounds the skew axis (and with it the number of cells).
	MaxSkewPoints = 1001
	// MaxAbsSkewPs bounds a swept skew: ±100 ns is far beyond any board, and it
	// keeps the wire model's arithmetic in range.
	MaxAbsSkewPs = 100_000
	// MaxWorkers bounds the worker pool.
	MaxWorkers = 1024
)

// Defaults for a quick test per cell.
const (
	DefaultFrames  = 2000
	DefaultSize    = 1514
	DefaultPayload = "random"
)

// SkewRange is an inclusive range of TX board skews s0 in ps: From, From+Step, ...
// up to To (the last point is dropped if Step does not divide the range).
type SkewRange struct {
	FromPs, ToPs, StepPs float64
}

// Points lists the range's skews, rounded to 0.001 ps so that printed values
// are what was simulated.
func (r SkewRange) Points() ([]float64, error) {
	for _, v := range []float64{r.FromPs, r.ToPs, r.StepPs} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxAbsSkewPs {
			return nil, fmt.Errorf("skew range %g..%g step %g ps: values must be finite and within ±%d ps", r.FromPs, r.ToPs, r.StepPs, MaxAbsSkewPs)
		}
	}
	if r.StepPs <= 0 {
		return nil, fmt.Errorf("skew step %g ps: want > 0", r.StepPs)
	}
	if r.ToPs < r.FromPs {
		return nil, fmt.Errorf("skew range %g..%g ps: from is above to", r.FromPs, r.ToPs)
	}
	// A small tolerance keeps "-1000..1000 step 0.1" from losing its last point to
	// float rounding.
	n := math.Floor((r.ToPs-r.FromPs)/r.StepPs+1e-9) + 1
	if n > MaxSkewPoints {
		return nil, fmt.Errorf("skew range %g..%g step %g ps: %.0f points, at most %d", r.FromPs, r.ToPs, r.StepPs, n, MaxSkewPoints)
	}
	pts := make([]float64, int(n))
	for i := range pts {
		pts[i] = math.Round((r.FromPs+float64(i)*r.StepPs)*1000) / 1000
	}
	return pts, nil
}

// Options choose the board, the driver and the quick test of every cell.
type Options struct {
	// Sim is the base of every cell: Board, Driver, Seed, Mechanism, Speed,
	// FarEnd, ... TxDelayNs, PhyMode, PHYTXDelay and TXSkewPs are set per cell
	// and ignored here.
	Sim sim.Options
	// Frames per cell (TX direction); 0 means DefaultFrames.
	Frames int
	// Size is the frame length without FCS; 0 means DefaultSize.
	Size int
	// Payload is "random" (iperf3-like) or "zeros"; "" means random.
	Payload string
	// Skew, when non-nil, sweeps the TX board skew too.
	Skew *SkewRange
	// Workers is the size of the worker pool; 0 means runtime.NumCPU().
	Workers int
	// TCP also runs an iperf3 test of TCPTime (0: DefaultTCPTime) on every
	// cell, the board sending (the PC with Reverse). RunTCP runs one; nil:
	// perfrun.Run in this process.
	TCP     bool
	TCPTime time.Duration
	Reverse bool
	RunTCP  func(ctx context.Context, o perfrun.Options) (*perfrun.Report, error)
	// Tick, if set, hears how many of the iperf3 tests are done, after each
	// one (and once with 0 before the first); it is called one at a time.
	Tick func(done, total int)
	// Setting is the delay setting whose cells run iperf3 along a skew sweep
	// (TCP with Skew): the bathtub in Mbit/s. Without a sweep every cell runs.
	Setting Setting
}

// Setting is one cell of the delay map.
type Setting struct {
	MACTxDelaySteps int  `json:"mac_tx_delay_steps"`
	PHYTxDelay      bool `json:"phy_tx_delay"`
}

// SettingOf is the cell of the delay map the options name: the MAC delay of
// the command line's amlogic,tx-delay-ns (default: the board's device tree) and
// the PHY delay it forces (default off).
func SettingOf(so sim.Options) (Setting, error) {
	b, err := so.Validate()
	if err != nil {
		return Setting{}, err
	}
	var s Setting
	ns := b.DT.TXDelayNS
	if so.TxDelayNs != nil {
		ns = so.TxDelayNs
	}
	if ns != nil {
		s.MACTxDelaySteps = int(dwmacmeson8b.TxDelaySteps(*ns))
	}
	s.PHYTxDelay = so.PHYTXDelay != nil && *so.PHYTXDelay
	return s, nil
}

// DefaultTCPTime is a cell's iperf3 test length.
const DefaultTCPTime = 3 * time.Second

// withDefaults fills the zero values.
func (o Options) withDefaults() Options {
	if o.Frames == 0 {
		o.Frames = DefaultFrames
	}
	if o.Size == 0 {
		o.Size = DefaultSize
	}
	if o.Payload == "" {
		o.Payload = DefaultPayload
	}
	if o.Workers == 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Sim.Driver == "" {
		o.Sim.Driver = "fixed"
	}
	if o.TCP && o.TCPTime == 0 {
		o.TCPTime = DefaultTCPTime
	}
	if o.RunTCP == nil {
		o.RunTCP = perfrun.RunReport
	}
	return o
}

// test is the linktest every cell runs.
func (o Options) test() linktest.Options {
	return linktest.Options{Frames: o.Frames, Size: o.Size, Payload: o.Payload, Direction: "tx"}
}

// validate checks what can be checked before booting anything and returns the
// skew axis (nil without a sweep).
func (o Options) validate() ([]float64, error) {
	if err := o.test().Validate(); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if o.Workers < 1 || o.Workers > MaxWorkers {
		return nil, fmt.Errorf("scan: workers %d: want 1..%d", o.Workers, MaxWorkers)
	}
	base := o.Sim
	base.PhyMode = PhyMode
	base.TxDelayNs = nil
	if _, err := base.Validate(); err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if o.Setting.MACTxDelaySteps < 0 || o.Setting.MACTxDelaySteps >= MACSteps {
		return nil, fmt.Errorf("scan: setting TXDLY %d: want 0..%d", o.Setting.MACTxDelaySteps, MACSteps-1)
	}
	if o.Skew == nil {
		return nil, nil
	}
	pts, err := o.Skew.Points()
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	return pts, nil
}
