package tap

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"mesonemu/emu"
	"mesonemu/farend"
)

// Frame bounds for what the host sends, without FCS.
const (
	// MaxFrameLen is a full 1500-byte frame with an 802.1Q tag (1514 + 4).
	MaxFrameLen = 1514 + 4
	// MinFrameLen is an Ethernet header; the far-end NIC pads short frames.
	MinFrameLen = 14
)

// BridgeConfig tunes the bridge; zero fields take the defaults.
type BridgeConfig struct {
	WriteQueue int           // frames waiting for the TAP write; default 1000
	RetryEvery time.Duration // wait between sends to a full NIC queue; default 100 us
	RetryFor   time.Duration // give up on a frame after this; default 20 ms
}

// Defaults for BridgeConfig.
const (
	DefaultWriteQueue = 1000
	DefaultRetryEvery = 100 * time.Microsecond
	DefaultRetryFor   = 20 * time.Millisecond
)

// readBufLen exceeds any frame a TAP without offloads delivers, so that an
// oversize frame shows as too long instead of being truncated by the kernel.
const readBufLen = 1 << 16

// Bridge joins the far-end NIC of the emulated cable to a TAP device (or any
// port that reads and writes one Ethernet frame per call, without FCS).
type Bridge struct {
	m    *emu.Machine
	nic  *farend.NIC
	port io.ReadWriteCloser
	cfg  BridgeConfig

	writeq  chan []byte
	pool    sync.Pool
	done    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
	unwatch func() // ends the loop's watch of port

	in                                                     hostReader
	sentToBoard, queueFull, sendErrors                     atomic.Uint64
	fromBoard, written, writerBusy, writeErrors, unwritten atomic.Uint64

	// acct orders each host frame's fate against Close: a frame whose offer
	// had not ended when Close settled the books (the machine had stopped
	// first) is counted in notOffered, and its offer, should it still run,
	// counts nothing.
	acct       sync.Mutex
	final      bool
	notOffered uint64
}

// NewBridge starts moving frames between nic (on machine m) and port. It
// replaces the NIC's consumer. Close stops it and closes port.
func NewBridge(m *emu.Machine, nic *farend.NIC, port io.ReadWriteCloser, cfg BridgeConfig) *Bridge {
	if cfg.WriteQueue <= 0 {
		cfg.WriteQueue = DefaultWriteQueue
	}
	if cfg.RetryEvery <= 0 {
		cfg.RetryEvery = DefaultRetryEvery
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = DefaultRetryFor
	}
	b := &Bridge{m: m, nic: nic, port: port, cfg: cfg,
		writeq: make(chan []byte, cfg.WriteQueue), done: make(chan struct{})}
	b.pool.New = func() any { s := make([]byte, 0, MaxFrameLen+4); return &s }
	// The reader first: fromNIC writes through the fd it watches.
	b.unwatch = b.in.run(m, port, b.done, &b.wg, b.send)
	b.wg.Add(1)
	go b.writeLoop()
	m.Lock()
	nic.SetConsumer(b.fromNIC)
	m.Unlock()
	return b
}

// fromNIC is the far-end NIC's consumer: a hardware event under the machine
// lock. It writes the frame to the TAP the loop watches, or copies it and
// queues it for the writer; it never blocks.
func (b *Bridge) fromNIC(frame []byte) {
	b.fromBoard.Add(1)
	if b.in.writeNow(frame, &b.written, &b.writeErrors, &b.unwritten) {
		return
	}
	buf := append((*b.pool.Get().(*[]byte))[:0], frame...)
	select {
	case b.writeq <- buf:
	default:
		b.writerBusy.Add(1)
		b.pool.Put(&buf)
	}
}

func (b *Bridge) writeLoop() {
	defer b.wg.Done()
	for {
		select {
		case <-b.done:
			return
		case f := <-b.writeq:
			if _, err := b.port.Write(f); errors.Is(err, os.ErrClosed) {
				b.unwritten.Add(1) // Close raced the write
			} else if err != nil {
				b.writeErrors.Add(1)
			} else {
				b.written.Add(1)
			}
			b.pool.Put(&f)
		}
	}
}

// send hands one host frame to the machine: it enters as an event at the
// virtual time it arrived (emu.Inject), where offer gives it to the NIC.
func (b *Bridge) send(frame []byte) {
	b.m.Inject(func() { b.offer(frame, 0) })
}

// offer gives a frame to the NIC (guest context on the machine's loop),
// retrying a full queue every RetryEvery for up to RetryFor of virtual time.
func (b *Bridge) offer(frame []byte, waited time.Duration) {
	b.acct.Lock()
	defer b.acct.Unlock()
	if b.final {
		return // counted in notOffered
	}
	if b.closed() {
		b.queueFull.Add(1)
		return
	}
	b.m.Lock()
	err := b.nic.SendLocked(frame)
	b.m.Unlock()
	switch {
	case err == nil:
		b.sentToBoard.Add(1)
	case !errors.Is(err, farend.ErrTxQueueFull):
		b.sendErrors.Add(1)
	case waited >= b.cfg.RetryFor:
		b.queueFull.Add(1)
	default:
		b.m.GuestAfter(emu.Time(b.cfg.RetryEvery), func() { b.offer(frame, waited+b.cfg.RetryEvery) })
	}
}

func (b *Bridge) closed() bool { return isClosed(b.done) }

// Close detaches the NIC, closes the port (which wakes the reader), waits for
// both goroutines and counts frames left in the writer queue as unwritten.
func (b *Bridge) Close() error {
	var err error
	b.once.Do(func() {
		b.m.Lock()
		b.nic.SetConsumer(nil)
		b.m.Unlock()
		close(b.done)
		b.unwatch()
		err = b.port.Close()
		b.wg.Wait()
		// The consumer is detached and the writer gone: nothing adds to the
		// queue any more.
		for len(b.writeq) > 0 {
			<-b.writeq
			b.unwritten.Add(1)
		}
		// The reader is gone: what it read and no outcome has counted is
		// an offer still waiting in the machine's queue.
		b.acct.Lock()
		b.final = true
		b.notOffered = b.in.tapRead.Load() - b.sentToBoard.Load() - b.in.tooLong.Load() - b.in.runt.Load() -
			b.queueFull.Load() - b.sendErrors.Load()
		b.acct.Unlock()
	})
	return err
}

func (b *Bridge) notOfferedCount() uint64 {
	b.acct.Lock()
	defer b.acct.Unlock()
	return b.notOffered
}

// Counters reads the bridge's counters (Wire is left zero).
func (b *Bridge) Counters() Counters {
	return Counters{
		TapRead: b.in.tapRead.Load(), SentToBoard: b.sentToBoard.Load(), TooLong: b.in.tooLong.Load(), Runt: b.in.runt.Load(),
		QueueFull: b.queueFull.Load(), SendErrors: b.sendErrors.Load(), ReadErrors: b.in.readErrors.Load(),
		NotOffered: b.notOfferedCount(),
		FromBoard:  b.fromBoard.Load(), WrittenToHost: b.written.Load(), WriterBusy: b.writerBusy.Load(),
		WriteErrors: b.writeErrors.Load(), Unwritten: b.unwritten.Load(),
	}
}
