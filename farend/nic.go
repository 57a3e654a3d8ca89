package farend

import (
	"cmp"
	"errors"
	"fmt"

	"mesonemu/emu"
	"mesonemu/ether"
)

// Defaults for Config fields left zero.
const (
	// DefaultTxQueueLen is Linux's default txqueuelen: on a PC the qdisc in front
	// of the NIC is where excess frames wait. Assumption: the NIC's own TX ring is
	// folded into it (the model has one FIFO).
	DefaultTxQueueLen = 1000
	// DefaultRxRingSize is the receive ring that holds frames while interrupt
	// moderation delays their hand-over (igb/e1000e default: 256 descriptors).
	DefaultRxRingSize = 256
	// DefaultMaxFrameLen is the giant threshold including the FCS: an 802.1Q
	// tagged full frame, which PC NICs accept by default.
	DefaultMaxFrameLen = ether.MaxVLANFrameLen
	// DefaultSpeedMbps is the line rate of a gigabit link.
	DefaultSpeedMbps = 1000
)

// maxFrameLenLimit bounds MaxFrameLen: 9216-byte jumbo frames are the largest any
// common NIC takes.
const maxFrameLenLimit = 9216 + ether.FCSLen

// Config sets up a NIC. Zero fields take the defaults above.
type Config struct {
	// SpeedMbps is the negotiated line rate: 10, 100 or 1000.
	SpeedMbps int
	// TxQueueLen is how many frames may wait for the line, the one being sent
	// included; more are dropped and counted as tx_dropped.
	TxQueueLen int
	// MaxFrameLen is the longest frame accepted, FCS included; longer ones are
	// giants (rx_length_errors). The transmitter refuses frames longer than this
	// minus the FCS.
	MaxFrameLen int
	// RxDelay is the interrupt throttle interval of Intel's ITR/EITR (igb,
	// e1000e): at most one receive interrupt per interval, so a frame waits
	// until RxDelay after the previous interrupt, and goes at once when the line
	// was quiet that long. Every frame waiting is handed over at the interrupt,
	// as one NAPI poll. 0 hands each over as it arrives (r8169, which writes
	// IntrMitigate 0). docs/latency.md has the values per NIC.
	RxDelay emu.Time
	// RxBulkDelay, when set, is the interval after an interrupt that handed
	// over at least RxBulkFrames frames (e1000e's "bulk" latency class, its
	// 4000 interrupts/s); RxDelay holds after a smaller one.
	RxBulkDelay  emu.Time
	RxBulkFrames int
	// RxTimer is a coalescing timer started by the first frame of a batch:
	// the batch goes to the stack that long after it (RTL8153's
	// USB_RX_EARLY_TIMEOUT), and no sooner than RxDelay after the previous
	// interrupt (the xHCI's interrupt moderation).
	RxTimer emu.Time
	// Profile names the PC NIC these settings are (PCProfiles); "" none.
	Profile string
	// RxRingSize bounds the frames waiting out RxDelay; more are counted as
	// rx_missed_errors.
	RxRingSize int
}

func (c Config) withDefaults() Config {
	c.SpeedMbps = cmp.Or(c.SpeedMbps, DefaultSpeedMbps)
	c.TxQueueLen = cmp.Or(c.TxQueueLen, DefaultTxQueueLen)
	c.MaxFrameLen = cmp.Or(c.MaxFrameLen, DefaultMaxFrameLen)
	c.RxRingSize = cmp.Or(c.RxRingSize, DefaultRxRingSize)
	return c
}

func validSpeed(mbps int) bool { return mbps == 10 || mbps == 100 || mbps == 1000 }

func (c Config) validate() error {
	var errs []error
	if !validSpeed(c.SpeedMbps) {
		errs = append(errs, fmt.Errorf("speed %d Mbit/s: want 10, 100 or 1000", c.SpeedMbps))
	}
	if c.TxQueueLen < 1 || c.TxQueueLen > 1<<20 {
		errs = append(errs, fmt.Errorf("tx queue length %d: want 1..%d", c.TxQueueLen, 1<<20))
	}
	if c.MaxFrameLen < ether.MinFrameLen || c.MaxFrameLen > maxFrameLenLimit {
		errs = append(errs, fmt.Errorf("max frame length %d: want %d..%d", c.MaxFrameLen, ether.MinFrameLen, maxFrameLenLimit))
	}
	if c.RxDelay < 0 || c.RxBulkDelay < 0 || c.RxTimer < 0 {
		errs = append(errs, fmt.Errorf("rx delays %d, %d, %d ns: negative", c.RxDelay, c.RxBulkDelay, c.RxTimer))
	}
	if c.RxBulkDelay > 0 && c.RxBulkFrames < 1 {
		errs = append(errs, fmt.Errorf("rx bulk delay without a frame count (%d)", c.RxBulkFrames))
	}
	if c.RxRingSize < 1 || c.RxRingSize > 1<<16 {
		errs = append(errs, fmt.Errorf("rx ring size %d: want 1..%d", c.RxRingSize, 1<<16))
	}
	return errors.Join(errs...)
}

// NIC is the far end's network card.
type NIC struct {
	m        *emu.Machine
	cfg      Config
	consumer func(frame []byte)
	sink     func(frameWithFCS []byte)
	stats    Stats

	// Transmit: the line is busy until lineFreeAt; txQueued frames are waiting or
	// on the wire.
	lineFreeAt emu.Time
	txQueued   int

	// Receive moderation: frames accepted but not yet handed over, and when
	// the last receive interrupt was (rxIRQSeen: there was one).
	rxPending [][]byte
	rxFlush   *emu.Event
	rxLastIRQ emu.Time
	rxIRQSeen bool
	rxBulk    bool // the last interrupt was a bulk one (RxBulkDelay holds)
}

// New makes a NIC on machine m.
func New(m *emu.Machine, cfg Config) (*NIC, error) {
	if m == nil {
		return nil, errors.New("far-end NIC: nil machine")
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("far-end NIC: %w", err)
	}
	return &NIC{m: m, cfg: cfg}, nil
}

// Config is the NIC's configuration with defaults filled in.
func (n *NIC) Config() Config { return n.cfg }

// SetConsumer sets where good received frames go: the PC's stack. fn gets the
// frame without its FCS, runs with the machine lock held, must not block or take
// the lock, and must copy the bytes if it keeps them after returning.
func (n *NIC) SetConsumer(fn func(frame []byte)) { n.consumer = fn }

// SetSink sets where transmitted frames go: the cable towards the board. fn gets
// a frame with FCS that it owns, at the virtual time its last bit is sent, with
// the machine lock held.
func (n *NIC) SetSink(fn func(frameWithFCS []byte)) { n.sink = fn }

// SetSpeed changes the line rate after a renegotiation (lock held). Frames
// already scheduled keep their timing; 0 takes the link down.
func (n *NIC) SetSpeed(mbps int) error {
	if mbps != 0 && !validSpeed(mbps) {
		return fmt.Errorf("far-end NIC: speed %d Mbit/s: want 0, 10, 100 or 1000", mbps)
	}
	n.cfg.SpeedMbps = mbps
	return nil
}

// SetRxDelay sets the interrupt-moderation delay (lock held); frames already
// waiting keep their hand-over time.
func (n *NIC) SetRxDelay(d emu.Time) error {
	if d < 0 {
		return fmt.Errorf("far-end NIC: rx delay %d ns: negative", d)
	}
	n.cfg.RxDelay = d
	return nil
}
