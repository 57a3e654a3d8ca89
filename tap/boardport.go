package tap

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"mesonemu/emu"
	"mesonemu/linux/stmmac"
	"mesonemu/netstack"
	"mesonemu/netstack/link"
	"mesonemu/netstack/linuxmodel"
)

// BoardTxQueueLen is the board's eth0 qdisc limit (Linux's default
// txqueuelen): frames from the board-side TAP beyond it are dropped and
// counted, as pfifo_fast drops them.
const BoardTxQueueLen = 1000

// BoardPort is the board's eth0 below a stack that is not in the machine: a
// Linux behind a TAP plays the board's network stack, and each frame it sends
// takes the path gVisor's would have taken below the stack (qdisc, the board
// CPU's per-packet cost, the stmmac ring driver); each frame the driver's
// NAPI poll receives passes the CPU the same way and goes to the TAP.
type BoardPort struct {
	m       *emu.Machine
	port    io.ReadWriteCloser
	qdisc   *link.Qdisc
	softnet *linuxmodel.Softnet

	writeq  chan []byte
	done    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
	unwatch func() // ends the loop's watch of port

	in                                          hostReader
	written, writerBusy, writeErrors, unwritten atomic.Uint64
	heldAtClose                                 atomic.Uint64

	// acct orders the fate of each frame read against Close: a frame whose
	// event had not run when Close settled the books is counted as
	// notTaken, and its event, should it still run, counts nothing.
	acct               sync.Mutex
	final              bool
	qdiscFull, toQdisc uint64
	notTaken           uint64
}

// BoardPortCounters account for every frame the board port handled:
//
//	TapRead = TooLong + Runt + QdiscFull + ToQdisc + NotTaken
//	ToQdisc = DriverTook + DriverRefused + HeldAtClose
//	RxQueued = RxDelivered + RxLeftInBacklog
//	RxDelivered = WrittenToTAP + WriterBusy + WriteErrors + Unwritten
//
// hold once the port is closed with the machine stopped.
type BoardPortCounters struct {
	// Board's Linux -> wire.
	TapRead       uint64 // frames read from the board-side TAP
	TooLong       uint64 // longer than MaxFrameLen
	Runt          uint64 // shorter than an Ethernet header
	QdiscFull     uint64 // dropped: BoardTxQueueLen frames already queued
	ToQdisc       uint64 // queued for the driver
	NotTaken      uint64 // read, but the machine stopped before its event ran
	DriverTook    uint64 // Xmit put them on the TX ring
	DriverRefused uint64 // Xmit refused them for good (no carrier)
	HeldAtClose   uint64 // still in the qdisc or the CPU when the port closed
	ReadErrors    uint64 // failed reads (no frame)
	// Wire -> board's Linux.
	RxQueued        uint64 // frames the driver's NAPI poll handed up
	RxBacklogDrops  uint64 // netdev_max_backlog exceeded
	RxRunt          uint64 // shorter than an Ethernet header
	RxDelivered     uint64 // passed the board's CPU
	RxLeftInBacklog uint64 // still waiting for the CPU when the port closed
	WrittenToTAP    uint64
	WriterBusy      uint64 // writer queue full
	WriteErrors     uint64 // the TAP refused the frame
	Unwritten       uint64 // still queued when the port closed
}

// NewBoardPort joins the board's stmmac driver to port (a TAP, or anything
// that reads and writes one Ethernet frame per call, without FCS). cpu (nil:
// no cost) is the board CPU's per-packet cost. Close stops it and closes port.
// writeQueue (<= 0: DefaultWriteQueue) bounds the frames waiting for the TAP
// write.
func NewBoardPort(m *emu.Machine, drv *stmmac.Driver, cpu *linuxmodel.CPU, port io.ReadWriteCloser, writeQueue int) *BoardPort {
	if writeQueue <= 0 {
		writeQueue = DefaultWriteQueue
	}
	p := &BoardPort{m: m, port: port, writeq: make(chan []byte, writeQueue), done: make(chan struct{})}
	p.softnet = linuxmodel.NewSoftnet(m, cpu, netstack.StmmacNIC{Driver: drv})
	p.qdisc = link.NewQdisc(p.softnet)
	// The reader first: fromDriver writes through the fd it watches.
	p.unwatch = p.in.run(m, port, p.done, &p.wg, func(f []byte) { p.m.Inject(func() { p.enqueue(f) }) })
	p.qdisc.SetReceiver(p.fromDriver)
	p.wg.Add(1)
	go p.writeLoop()
	return p
}

// fromDriver gets each frame that passed the board's CPU (guest context). It
// writes it to the TAP the loop watches, or copies it for the writer; it
// never blocks.
func (p *BoardPort) fromDriver(frame []byte) {
	if p.in.writeNow(frame, &p.written, &p.writeErrors, &p.unwritten) {
		return
	}
	select {
	case p.writeq <- append([]byte(nil), frame...):
	default:
		p.writerBusy.Add(1)
	}
}

func (p *BoardPort) writeLoop() {
	defer p.wg.Done()
	for {
		select {
		case <-p.done:
			return
		case f := <-p.writeq:
			if _, err := p.port.Write(f); errors.Is(err, os.ErrClosed) {
				p.unwritten.Add(1)
			} else if err != nil {
				p.writeErrors.Add(1)
			} else {
				p.written.Add(1)
			}
		}
	}
}

// enqueue is dev_queue_xmit on the board (guest context): the frame joins the
// qdisc unless it is full.
func (p *BoardPort) enqueue(frame []byte) {
	p.acct.Lock()
	defer p.acct.Unlock()
	switch {
	case p.final:
		// Counted in notTaken.
	case p.qdisc.Len() >= BoardTxQueueLen:
		p.qdiscFull++
	case p.qdisc.Transmit(frame) != nil:
		p.qdiscFull++ // closed under us
	default:
		p.toQdisc++
	}
}

// Close stops the port: call it with the machine's loop stopped, so no event
// adds to the queues while they are counted.
func (p *BoardPort) Close() error {
	var err error
	p.once.Do(func() {
		close(p.done)
		held := p.qdisc.Close()
		held += p.softnet.Close()
		p.heldAtClose.Store(uint64(held))
		p.unwatch()
		err = p.port.Close()
		p.wg.Wait()
		for len(p.writeq) > 0 {
			<-p.writeq
			p.unwritten.Add(1)
		}
		// The reader is gone: every frame it read that neither a drop nor
		// the qdisc has counted is still an event the machine never ran.
		p.acct.Lock()
		p.final = true
		p.notTaken = p.in.tapRead.Load() - p.in.tooLong.Load() - p.in.runt.Load() - p.qdiscFull - p.toQdisc
		p.acct.Unlock()
	})
	return err
}

// Counters reads the port's counters.
func (p *BoardPort) Counters() BoardPortCounters {
	sn := p.softnet.Stats()
	_, backlog := p.softnet.Queued()
	p.acct.Lock()
	full, queued, notTaken := p.qdiscFull, p.toQdisc, p.notTaken
	p.acct.Unlock()
	return BoardPortCounters{
		TapRead: p.in.tapRead.Load(), TooLong: p.in.tooLong.Load(), Runt: p.in.runt.Load(), QdiscFull: full,
		ToQdisc: queued, NotTaken: notTaken, DriverTook: sn.TxSent, DriverRefused: sn.TxErrors + p.qdisc.Errors(),
		HeldAtClose: p.heldAtClose.Load(), ReadErrors: p.in.readErrors.Load(),
		RxQueued: sn.RxQueued, RxBacklogDrops: sn.RxBacklogDrops, RxRunt: sn.RxRunt, RxDelivered: sn.RxDelivered,
		RxLeftInBacklog: uint64(backlog),
		WrittenToTAP:    p.written.Load(), WriterBusy: p.writerBusy.Load(), WriteErrors: p.writeErrors.Load(), Unwritten: p.unwritten.Load(),
	}
}
