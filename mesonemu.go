// Package mesonemu is the entry point for Go programs: it boots an emulated
// Odroid-C1 (Meson8b) and runs the main job (iperf3 through the Linux
// driver's path), the raw frame link test, or the delay scan, all in virtual
// time and deterministic per seed.
//
// Options' zero values are the defaults; every call that runs takes a
// context and, when it ends early, returns what was measured with its
// error. Results are the structs the command's --json marshals.
package mesonemu

import (
	"context"
	"time"

	"mesonemu/iperf3"
	"mesonemu/linkclass"
	"mesonemu/linktest"
	"mesonemu/perfrun"
	"mesonemu/scan"
	"mesonemu/sim"
)

// Driver is the board's stmmac glue driver.
type Driver string

// The drivers: before and after the clock fix.
const (
	DriverFixed  Driver = "fixed" // the default
	DriverPreFix Driver = "pre-fix"
)

// Watchdog is how the MAC's RX watchdog is read where the databook is
// ambiguous (docs/latency.md).
type Watchdog string

// The readings of the RX watchdog.
const (
	WatchdogBoard  Watchdog = ""       // the board's own reading (default)
	WatchdogFirst  Watchdog = "first"  // a frame completed with DIC starts it if stopped
	WatchdogReload Watchdog = "reload" // every such frame reloads it
)

// Direction is which way the link test sends.
type Direction string

// The link test's directions.
const (
	Both    Direction = linktest.DirectionBoth // the default
	BoardTX Direction = linktest.DirectionTX   // board to PC
	BoardRX Direction = linktest.DirectionRX   // PC to board
)

// Payload is the link test's frame content.
type Payload string

// The link test's payloads.
const (
	PayloadRandom Payload = linktest.PayloadRandom // as iperf3 sends (default)
	PayloadZeros  Payload = linktest.PayloadZeros
)

// Verdict classes.
const (
	Clean = linkclass.Clean
	Lossy = linkclass.Lossy
	Dead  = linkclass.Dead
)

// Board chooses the emulated board. The zero value is the default board
// with the fixed driver and its device tree's settings, seed 0.
type Board struct {
	Name string // "" is the default board
	// DeviceTree is a compiled DTB naming the board and its Ethernet DT
	// (then Name must be "").
	DeviceTree []byte
	Driver     Driver
	// TxDelayNs overrides the DT's amlogic,tx-delay-ns when non-nil (Ns).
	TxDelayNs *uint32
	PhyMode   string // overrides the DT's phy-mode when non-empty
	Seed      uint64
	Watchdog  Watchdog
}

// Ns is a TxDelayNs value.
func Ns(v uint32) *uint32 { return &v }

// Sim is the board as sim.Options, for what Board does not offer.
func (b Board) Sim() sim.Options {
	return sim.Options{Board: b.Name, DeviceTree: b.DeviceTree, Driver: string(b.Driver), TxDelayNs: b.TxDelayNs,
		PhyMode: b.PhyMode, Seed: b.Seed, RXWatchdog: string(b.Watchdog)}
}

// LinkOptions choose the link test's traffic; zero values are the defaults
// (linktest.DefaultFrames frames of 1514 bytes, random, both directions).
type LinkOptions struct {
	Frames    int
	Size      int
	Payload   Payload
	Direction Direction
}

// LinkResult is the link test's result, as linktest --json prints it.
type LinkResult = linktest.Result

// LinkTest pushes raw frames through the board's path and books every one.
func LinkTest(ctx context.Context, b Board, o LinkOptions) (*LinkResult, error) {
	return linktest.Run(ctx, b.Sim(), linktest.Options{Frames: o.Frames, Size: o.Size,
		Payload: string(o.Payload), Direction: string(o.Direction)})
}

// RunOptions choose the main job's iperf3 test; zero values are the defaults
// (10 s of virtual time, the board sending, one stream).
type RunOptions struct {
	Duration time.Duration
	Reverse  bool // the PC sends
	Parallel int
}

// Report is the main job's own result (its --json "mesonemu" object),
// holding the Verdict and, for the commit's configurations, RealBoard.
type Report = perfrun.Report

// IperfResult is iperf3's result (the rest of the main job's --json).
type IperfResult = iperf3.Result

// Run is the main job: boot the board and run iperf3 against the PC.
func Run(ctx context.Context, b Board, o RunOptions) (*IperfResult, *Report, error) {
	return perfrun.Run(ctx, perfrun.Options{Sim: b.Sim(), Duration: o.Duration, Reverse: o.Reverse, Parallel: o.Parallel})
}

// ScanOptions choose the delay scan: every MAC TX delay step with the PHY's
// delay off and on, each cell a short TX link test; zero values are the
// defaults (scan.DefaultFrames per cell, the board's skew, no iperf3).
type ScanOptions struct {
	Frames int
	// Skew, when non-nil, sweeps the board's TX skew too.
	Skew *scan.SkewRange
	// TCP also runs an iperf3 test of TCPTime on every cell.
	TCP     bool
	TCPTime time.Duration
	Workers int // 0: one per CPU
}

// ScanResult is the scan's result, as scan --json prints it.
type ScanResult = scan.Result

// Scan sweeps the delay map on the board.
func Scan(ctx context.Context, b Board, o ScanOptions) (*ScanResult, error) {
	return scan.Run(ctx, scan.Options{Sim: b.Sim(), Frames: o.Frames, Skew: o.Skew, TCP: o.TCP, TCPTime: o.TCPTime, Workers: o.Workers})
}
