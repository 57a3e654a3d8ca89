package stmmac

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"mesonemu/emu"
	"mesonemu/linux/kernel"
	"mesonemu/linux/lib/dql"
)

// Errors the driver returns.
var (
	// ErrRingFull is NETDEV_TX_BUSY: the TX queue is stopped (the ring is full up to
	// Linux's stop threshold); retry after TxWake fires.
	ErrRingFull = errors.New("stmmac: TX ring full")
	// ErrClosed is returned by Xmit and Transmit while the device is not open.
	ErrClosed = errors.New("stmmac: device not open")
	// ErrFrameSize is returned for frames outside [MinFrameLen, MaxFrameLen].
	ErrFrameSize = errors.New("stmmac: frame length out of range")
	// ErrNoCarrier is returned while the link is down: phylink keeps the carrier off
	// from Open until the first LinkUp and after LinkDown, and Linux's qdisc then
	// drops what the stack sends instead of calling the driver.
	ErrNoCarrier = errors.New("stmmac: no carrier (link down)")
)

// Driver is the stmmac ring driver for one DWMAC 3.70a with normal descriptors in
// ring mode, as Linux v5.4 drives it on Amlogic SoCs.
//
// Locking. txMu guards the TX ring (Linux's netif_tx_lock): Xmit and TX clean take
// it; no kernel Delay and no callback runs under it. irqMu serialises what Linux runs
// in interrupt and softirq context (the interrupt handler, NAPI polls, kernel
// timers) against Close; the receiver callback runs under irqMu only, never under
// txMu. The RX ring is touched only by the NAPI poll, hence only under irqMu.
type Driver struct {
	cfg    Config
	bus    emu.GuestBus
	irq    kernel.IRQ
	k      kernel.Kernel
	layout Layout

	// Probe results.
	probed     bool
	synopsysID uint32
	userID     uint32
	hwFeature  uint32
	hasMMC     bool
	useRIWT    bool

	mdioMu sync.Mutex // mdio bus lock (held across kernel Delay, like mdio_lock)

	txMu        sync.Mutex
	open        bool
	carrier     bool           // netif_carrier_ok
	txCur       int            // next descriptor Xmit fills (cur_tx)
	txDirty     int            // oldest descriptor not yet cleaned (dirty_tx)
	txStopped   bool           // netif_tx_stop_queue
	bqlStopped  bool           // __QUEUE_STATE_STACK_XOFF: BQL's limit is reached
	bql         *dql.Limits    // the TX queue's byte limit (nil without BQL)
	txLen       []int          // bytes of the frame in each TX descriptor (BQL)
	bqlStops    uint64         // times BQL stopped the queue
	txCount     int            // tx_count_frames (coalescing)
	txDescBuf   [descSize]byte // staging for descriptor writes (txMu)
	txTimer     kernel.Timer
	txWakeCh    chan struct{} // closed when the stopped queue is woken
	txScheduled bool          // tx NAPI scheduled (irqMu)

	irqMu        sync.Mutex
	running      bool // handler armed (STMMAC_DOWN clear)
	rxCur        int  // cur_rx
	rxDirty      int  // dirty_rx
	rxToRefill   int  // descriptors harvested but not yet given back
	rxScheduled  bool // rx NAPI scheduled
	rxSuspended  bool // the handler saw RU: kick the RX DMA after refill
	softirqTimer kernel.Timer
	rxBuf        []byte
	receiver     atomic.Pointer[func([]byte)]
	txDone       atomic.Pointer[func(int)]
	txReady      atomic.Pointer[func()]

	tc int // DMA threshold (module parameter tc), bumped on TX underflow

	statsMu sync.Mutex
	mmc     []uint32

	mcMu sync.Mutex
	mc   [][6]byte // the multicast list (rxfilter.go)

	ctr      counters
	asyncErr atomic.Pointer[error]
}

// New binds a driver to the kernel it runs in (its register block is at cfg.Base
// on the kernel's bus) and its interrupt line. It touches no hardware; Probe does.
func New(cfg Config, k kernel.Kernel, irq kernel.IRQ) (*Driver, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if k == nil || k.Bus() == nil || k.IRQName(irq) == "" {
		return nil, errors.New("stmmac: New needs a kernel with a bus and the MAC's interrupt line")
	}
	l, err := cfg.layout()
	if err != nil {
		return nil, err
	}
	d := &Driver{
		cfg: cfg, bus: k.Bus(), irq: irq, k: k, layout: l,
		rxBuf: make([]byte, cfg.BufSize),
		mmc:   make([]uint32, len(mmcCounters)),
		tc:    64, // TC_DEFAULT
	}
	if cfg.BQL {
		d.bql = dql.New(cfg.HZ)
		d.txLen = make([]int, cfg.TxRingSize)
	}
	return d, nil
}

// Config returns the configuration in use (defaults filled in).
func (d *Driver) Config() Config { return d.cfg }

// Layout returns where the rings and buffers live in guest RAM.
func (d *Driver) Layout() Layout { return d.layout }

// Err returns the first bus error met where no caller could be told (the interrupt
// handler, timers), or nil.
func (d *Driver) Err() error {
	if p := d.asyncErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (d *Driver) noteAsync(err error) {
	if err != nil {
		d.asyncErr.CompareAndSwap(nil, &err)
	}
}

// rd and wr are readl / writel on the register block.
func (d *Driver) rd(off uint32) (uint32, error) { return d.bus.Read32(d.cfg.Base + off) }
func (d *Driver) wr(off, v uint32) error        { return d.bus.Write32(d.cfg.Base+off, v) }

// rmw reads a register, applies f and writes it back.
func (d *Driver) rmw(off uint32, f func(uint32) uint32) error {
	v, err := d.rd(off)
	if err != nil {
		return err
	}
	return d.wr(off, f(v))
}

// Probe is the part of stmmac_dvr_probe that talks to the hardware: read the
// version and the HW feature word (stmmac_hw_init), decide on RX interrupt
// mitigation, and reset the MDIO interface (stmmac_mdio_reset's dummy write that
// gives some PHYs an MDC edge). The MDIO bus is usable afterwards.
func (d *Driver) Probe() error {
	v, err := d.rd(gmacVersion)
	if err != nil {
		return fmt.Errorf("stmmac probe: read version: %w", err)
	}
	d.synopsysID = v & synopsysIDMask
	d.userID = (v >> 8) & 0xff
	hw, err := d.rd(dmaHWFeature)
	if err != nil {
		return fmt.Errorf("stmmac probe: read HW feature: %w", err)
	}
	d.hwFeature = hw
	// A zero word means "no capability register"; Linux then keeps the platform's
	// normal descriptors, which is also what this driver implements.
	if hw&hwFeatEnhDesc != 0 {
		return fmt.Errorf("stmmac probe: HW feature %#08x selects enhanced descriptors; this driver implements normal descriptors only", hw)
	}
	d.hasMMC = hw&hwFeatMMC != 0
	// "Enable RX Mitigation via HW Watchdog Timer": cores from 3.50 on.
	d.useRIWT = d.synopsysID >= dwmacCore3_50 && !d.cfg.RIWTOff
	if err := d.wr(gmacMIIAddr, 0); err != nil {
		return fmt.Errorf("stmmac probe: MDIO reset: %w", err)
	}
	d.probed = true
	return nil
}

// SynopsysID and UserID are the version register fields read at probe.
func (d *Driver) SynopsysID() uint32 { return d.synopsysID }

// UserID is bits 15:8 of GMAC_VERSION.
func (d *Driver) UserID() uint32 { return d.userID }

// HWFeature is the DMA_HW_FEATURE word read at probe.
func (d *Driver) HWFeature() uint32 { return d.hwFeature }

// UsesRIWT reports whether RX interrupt mitigation through the RX watchdog is on.
func (d *Driver) UsesRIWT() bool { return d.useRIWT }

// Open is stmmac_open: build the rings, set the hardware up (stmmac_hw_setup) in
// Linux's order, start the DMA and install the interrupt handler. The MAC
// transmitter and receiver follow the link (LinkUp / LinkDown).
func (d *Driver) Open() error {
	if !d.probed {
		return errors.New("stmmac open: device not probed")
	}
	d.txMu.Lock()
	isOpen := d.open
	d.txMu.Unlock()
	if isOpen {
		return errors.New("stmmac open: already open")
	}
	d.ctr.reset()
	// stmmac_dma_operation_mode puts TX and RX in store-and-forward mode because the
	// core has TX checksum offload (plat->tx_coe): threshold reads SF_DMA_MODE (1).
	d.ctr.x[xThreshold].Store(1)
	if err := d.initRings(); err != nil {
		return fmt.Errorf("stmmac open: %w", err)
	}
	if err := d.hwSetup(); err != nil {
		return fmt.Errorf("stmmac open: %w", err)
	}
	if err := d.setRxMode(); err != nil {
		return fmt.Errorf("stmmac open: %w", err)
	}
	d.irqMu.Lock()
	d.running = true
	d.rxScheduled, d.txScheduled, d.rxSuspended = false, false, false
	d.irqMu.Unlock()
	d.txMu.Lock()
	d.open = true
	d.carrier = false // phylink_start: netif_carrier_off until the link resolves
	d.txStopped, d.bqlStopped = false, false
	d.txMu.Unlock()
	// request_irq comes after the DMA is started, as in stmmac_open.
	if err := d.k.RequestIRQ(d.irq, d.interrupt); err != nil {
		return fmt.Errorf("stmmac open: %w", err)
	}
	return nil
}

// Close is stmmac_release: stop the timers and the interrupt handler, stop the DMA
// (RX then TX) and disable the MAC transmitter and receiver.
func (d *Driver) Close() error {
	d.txMu.Lock()
	if !d.open {
		d.txMu.Unlock()
		return nil
	}
	d.open = false
	d.wakeTxQueue() // blocked Transmit calls return ErrClosed
	if d.txTimer != nil {
		d.txTimer.Stop()
	}
	d.txMu.Unlock()
	_ = d.k.RequestIRQ(d.irq, nil) // free_irq; the line was requested at open
	// Wait for a handler or timer still running (free_irq / del_timer_sync).
	d.irqMu.Lock()
	d.running = false
	if d.softirqTimer != nil {
		d.softirqTimer.Stop()
	}
	d.irqMu.Unlock()
	if err := d.rmw(dmaControl, func(v uint32) uint32 { return v &^ dmaControlSR }); err != nil {
		return fmt.Errorf("stmmac close: stop RX DMA: %w", err)
	}
	if err := d.rmw(dmaControl, func(v uint32) uint32 { return v &^ dmaControlST }); err != nil {
		return fmt.Errorf("stmmac close: stop TX DMA: %w", err)
	}
	// dma_free_tx_skbufs: whatever the ring still holds is freed now, sent or
	// not, so whoever waits for those frames' completion is told.
	d.txMu.Lock()
	left := (d.txCur - d.txDirty + d.cfg.TxRingSize) % d.cfg.TxRingSize
	d.txMu.Unlock()
	d.reportTxDone(left)
	if err := d.macSet(false); err != nil {
		return fmt.Errorf("stmmac close: %w", err)
	}
	return nil
}

// macSet is stmmac_set_mac: TE and RE together.
func (d *Driver) macSet(enable bool) error {
	err := d.rmw(gmacControl, func(v uint32) uint32 {
		if enable {
			return v | gmacControlTE | gmacControlRE
		}
		return v &^ (gmacControlTE | gmacControlRE)
	})
	if err != nil {
		return fmt.Errorf("set MAC TE/RE: %w", err)
	}
	return nil
}
