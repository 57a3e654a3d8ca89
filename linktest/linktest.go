// Package linktest pushes raw Ethernet frames through the whole emulated path —
// the guest's stmmac driver, its DMA rings, the MAC, the RGMII wire, the PHY and
// the far-end NIC — in discrete-event time, without any TCP/IP, and accounts for
// every frame: sent = received + drops by cause, per direction. Next to the
// measured loss it reports the loss the analytic wire model predicts.
package linktest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/platform"
	"mesonemu/rgmiiwire"
	"mesonemu/sim"
	"mesonemu/stmmac/stmmaceth"
)

// Options choose the traffic.
type Options struct {
	Frames    int    // per direction
	Size      int    // frame length without FCS, 60..1514
	Payload   string // "random" (iperf3-like) or "zeros"
	Direction string // "tx", "rx" or "both"
	// Taps see every frame as it left the wire (pcap capture).
	Taps []platform.Tap
}

// Limits for what a user may ask.
const (
	MaxFrames = 100_000_000
	MinSize   = ether.MinFrameLenNoFCS
	MaxSize   = 1514
)

// Validate checks the options.
func (o Options) Validate() error {
	if o.Frames < 1 || o.Frames > MaxFrames {
		return fmt.Errorf("frames %d: want 1..%d", o.Frames, MaxFrames)
	}
	if o.Size < MinSize || o.Size > MaxSize {
		return fmt.Errorf("size %d: want %d..%d bytes (without FCS)", o.Size, MinSize, MaxSize)
	}
	if o.Payload != "random" && o.Payload != "zeros" {
		return fmt.Errorf("payload %q: want random or zeros", o.Payload)
	}
	if o.Direction != "tx" && o.Direction != "rx" && o.Direction != "both" {
		return fmt.Errorf("direction %q: want tx, rx or both", o.Direction)
	}
	return nil
}

// Drop is one loss cause with its count.
type Drop struct {
	Cause string `json:"cause"`
	Count uint64 `json:"count"`
}

// DirResult is one direction's account.
type DirResult struct {
	Direction     string  `json:"direction"`
	Sent          uint64  `json:"sent"`
	Received      uint64  `json:"received"`
	CRCErrors     uint64  `json:"crc_errors"`
	OtherDrops    uint64  `json:"other_drops"`
	Drops         []Drop  `json:"drops"`
	InFlight      uint64  `json:"in_flight"`
	PredictedLoss float64 `json:"predicted_loss"`
	MeasuredLoss  float64 `json:"measured_loss"`
	// Sigmas is how many binomial standard deviations measured is from predicted.
	Sigmas float64           `json:"sigmas"`
	Budget rgmiiwire.Budget  `json:"-"`
	Timing *rgmiiwire.Timing `json:"timing,omitempty"`
}

// addDrop books a loss cause that occurred.
func (d *DirResult) addDrop(cause string, n uint64) {
	if n > 0 {
		d.Drops = append(d.Drops, Drop{cause, n})
	}
}

// settle derives the other drops and what is still in flight from the causes.
func (d *DirResult) settle() {
	var dropped uint64
	for _, x := range d.Drops {
		dropped += x.Count
	}
	d.OtherDrops = dropped - d.CRCErrors
	d.InFlight = d.Sent - d.Received - dropped
}

// Result is a whole run.
type Result struct {
	Board       string     `json:"board"`
	Driver      string     `json:"driver"`
	PhyMode     string     `json:"phy_mode"`
	TxDelayNs   uint32     `json:"tx_delay_ns"`
	Seed        uint64     `json:"seed"`
	Speed       int        `json:"speed_mbps"`
	Size        int        `json:"size"`
	Payload     string     `json:"payload"`
	TX          *DirResult `json:"tx,omitempty"`
	RX          *DirResult `json:"rx,omitempty"`
	VirtualSecs float64    `json:"virtual_seconds"`
	WallSecs    float64    `json:"wall_seconds"`
}

// EtherType of the test frames: IEEE 802 local experimental 1.
const etherType = 0x88b5

func makeFrame(buf []byte, dst, src ether.MAC, rng *rand.Rand, zeros bool) {
	copy(buf[0:6], dst[:])
	copy(buf[6:12], src[:])
	buf[12], buf[13] = etherType>>8, etherType&0xff
	if zeros {
		clear(buf[14:])
		return
	}
	for i := 14; i < len(buf); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < len(buf); j++ {
			buf[i+j] = byte(v >> (8 * j))
		}
	}
}

// ErrStuck is returned when the machine has nothing left to run but frames are
// still unaccounted for: a modelling bug, reported rather than hidden.
var ErrStuck = errors.New("linktest: frames unaccounted for and nothing left to run")

// Run boots a board and runs the test.
func Run(so sim.Options, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	wallStart := time.Now()
	s, err := sim.New(so)
	if err != nil {
		return nil, err
	}
	return run(s, o, wallStart)
}

func run(s *sim.Sim, o Options, wallStart time.Time) (*Result, error) {
	hw, m := s.Hardware(), s.Machine()
	drv := s.Guest.MAC
	nic := hw.FarEnd()
	for _, t := range o.Taps {
		hw.AddTap(t)
	}
	res := &Result{Board: s.Board.Name, Driver: s.Opts.Driver, PhyMode: s.DT.PhyMode, Seed: s.Opts.Seed,
		Size: o.Size, Payload: o.Payload}
	if s.DT.TxDelayNs != nil {
		res.TxDelayNs = *s.DT.TxDelayNs
	} else {
		res.TxDelayNs = 2
	}
	res.Speed = hw.State().Link.Speed
	doTX := o.Direction == "tx" || o.Direction == "both"
	doRX := o.Direction == "rx" || o.Direction == "both"
	var boardRx uint64
	drv.SetReceiver(func([]byte) { boardRx++ })
	var farRx uint64
	m.Lock()
	nic.SetConsumer(func([]byte) { farRx++ })
	m.Unlock()

	start := m.VirtualNow()
	pathStart := hw.Path()
	macStart := hw.MACCounters()
	nicStart := nic.Stats()
	drvStart := drv.NetStats()

	rng := m.Rand("linktest.payload")
	zeros := o.Payload == "zeros"
	txFrame := make([]byte, o.Size)
	rxFrame := make([]byte, o.Size)
	farMAC := platform.FarEndMAC
	var txQueued, rxQueued uint64
	for (doTX && txQueued < uint64(o.Frames)) || (doRX && rxQueued < uint64(o.Frames)) {
		progress := false
		if doTX && txQueued < uint64(o.Frames) {
			makeFrame(txFrame, farMAC, s.Board.MAC, rng, zeros)
			switch err := drv.Xmit(txFrame); {
			case err == nil:
				txQueued++
				progress = true
			case errors.Is(err, stmmaceth.ErrRingFull):
			default:
				return nil, fmt.Errorf("linktest: xmit frame %d: %w", txQueued, err)
			}
		}
		if doRX && rxQueued < uint64(o.Frames) {
			makeFrame(rxFrame, s.Board.MAC, farMAC, rng, zeros)
			m.Lock()
			queueFull := false
			if nic.TxQueued() < 64 {
				if err := nic.SendLocked(rxFrame); err != nil {
					m.Unlock()
					return nil, fmt.Errorf("linktest: far end send frame %d: %w", rxQueued, err)
				}
				rxQueued++
				progress = true
			} else {
				queueFull = true
			}
			m.Unlock()
			_ = queueFull
		}
		if !progress {
			if !m.Step() {
				return nil, fmt.Errorf("%w (tx %d queued, rx %d queued)", ErrStuck, txQueued, rxQueued)
			}
		}
	}
	// Drain: run until every frame is accounted for in both directions.
	account := func() (tx, rx *DirResult) {
		path := hw.Path()
		mac := hw.MACCounters()
		ns := nic.Stats()
		ds := drv.NetStats()
		if doTX {
			tx = &DirResult{Direction: "tx", Sent: txQueued, Received: farRx}
			add := tx.addDrop
			tx.CRCErrors = ns.RxCRCErrors - nicStart.RxCRCErrors
			add("far end: bad FCS (rx_crc_errors)", tx.CRCErrors)
			add("far end: lost SFD or nibble shift (rx_align_errors)", ns.RxAlignErrors-nicStart.RxAlignErrors)
			add("far end: runt or giant (rx_length_errors)", ns.RxShortLengthErrors+ns.RxLongLengthErrors-nicStart.RxShortLengthErrors-nicStart.RxLongLengthErrors)
			add("far end: receive ring full (rx_missed_errors)", ns.RxMissedErrors-nicStart.RxMissedErrors)
			add("far end: no consumer (rx_dropped)", ns.RxDropped-nicStart.RxDropped)
			add("board: RGMII TX clock off", path.TxNoClock-pathStart.TxNoClock)
			add("board: PHY without link", path.TxNoLink-pathStart.TxNoLink)
			add("board: no valid TX wire timing", path.TxBadTiming-pathStart.TxBadTiming)
			add("board MAC: jabber cut-off", mac.TxJabberFlushed-macStart.TxJabberFlushed)
			add("board MAC: TX FIFO flushed", mac.TxFIFOFlushed-macStart.TxFIFOFlushed)
			add("board driver: flushed after a DMA error", ds.TxErrFlushed-drvStart.TxErrFlushed)
			tx.settle()
		}
		if doRX {
			rx = &DirResult{Direction: "rx", Sent: rxQueued, Received: boardRx}
			add := rx.addDrop
			rx.CRCErrors = mac.RxDroppedCRC - macStart.RxDroppedCRC
			add("board MAC: bad FCS (mmc_rx_crc_error)", rx.CRCErrors)
			add("board MAC: lost SFD (never seen)", path.RxSFDLost-pathStart.RxSFDLost)
			add("board PHY: no link", path.RxNoLink-pathStart.RxNoLink)
			add("board: no valid RX wire timing", path.RxBadTiming-pathStart.RxBadTiming)
			add("board MAC: length", mac.RxDroppedLength-macStart.RxDroppedLength)
			add("board MAC: no RX descriptor (rx_missed)", mac.RxDroppedNoDescriptor-macStart.RxDroppedNoDescriptor)
			add("board MAC: receiver or RX DMA off", mac.RxDroppedDisabled-macStart.RxDroppedDisabled)
			add("board MAC: DMA bus error", mac.RxDroppedBusError-macStart.RxDroppedBusError)
			add("board MAC: address filter", mac.RxDroppedFiltered-macStart.RxDroppedFiltered)
			add("board driver: error status (rx_errors)", ds.RxErrors-drvStart.RxErrors)
			rx.settle()
		}
		return tx, rx
	}
	deadline := m.VirtualNow() + 10*emu.Second
	for {
		tx, rx := account()
		if (tx == nil || tx.InFlight == 0) && (rx == nil || rx.InFlight == 0) {
			res.TX, res.RX = tx, rx
			break
		}
		if m.VirtualNow() > deadline || !m.Step() {
			res.TX, res.RX = tx, rx
			return res, fmt.Errorf("%w: tx %+v rx %+v", ErrStuck, tx, rx)
		}
	}
	tb, rb, _ := hw.Budgets()
	predTX, predRX := hw.PredictedLoss(o.Size)
	if zeros {
		fr := make([]byte, o.Size)
		makeFrame(fr, farMAC, s.Board.MAC, nil, true)
		predTX = tb.FrameLossProbability(ether.AppendFCS(fr))
		makeFrame(fr, s.Board.MAC, farMAC, nil, true)
		predRX = rb.FrameLossProbability(ether.AppendFCS(fr))
	}
	finish := func(d *DirResult, pred float64, b rgmiiwire.Budget) {
		if d == nil {
			return
		}
		d.PredictedLoss = pred
		d.Budget = b
		t := b.Timing
		d.Timing = &t
		if d.Sent > 0 {
			d.MeasuredLoss = float64(d.Sent-d.Received) / float64(d.Sent)
			sd := math.Sqrt(pred * (1 - pred) / float64(d.Sent))
			switch {
			case sd > 0:
				d.Sigmas = (d.MeasuredLoss - pred) / sd
			case d.MeasuredLoss == pred:
				d.Sigmas = 0
			default:
				d.Sigmas = math.Inf(1)
			}
		}
	}
	finish(res.TX, predTX, tb)
	finish(res.RX, predRX, rb)
	res.VirtualSecs = (m.VirtualNow() - start).Seconds()
	res.WallSecs = time.Since(wallStart).Seconds()
	return res, nil
}
