package netstack

import (
	"errors"
	"sync"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/stack"

	"mesonemu/emu"
)

// FrameNIC is a network card as a stack sees it: whole Ethernet frames without
// the FCS, which the hardware adds and checks. The endpoint calls it from guest
// context (engine events, never with the machine lock held).
type FrameNIC interface {
	// Transmit hands one frame to the card, which copies it. ErrBusy: the
	// card has no room now and calls the SetTxReady function when it has;
	// another error means the frame is gone (counted by the endpoint).
	Transmit(frame []byte) error
	// SetTxReady installs the function the card calls (from guest context)
	// when it has room again after ErrBusy.
	SetTxReady(func())
	// SetReceiver installs the function that gets every received frame, in
	// guest context; the slice is only valid during the call.
	SetReceiver(func(frame []byte))
}

// ErrClosed is returned by a FrameNIC that has been shut down.
var ErrClosed = errors.New("network card closed")

// ErrBusy is returned by a FrameNIC whose transmit queue is full.
var ErrBusy = errors.New("network card busy")

// EndpointStats counts what the endpoint's own queues did with frames, so that
// nothing a stack sends or a card receives disappears without a counter.
type EndpointStats struct {
	TxQueued, TxSent, TxDroppedAtClose, TxErrors  uint64
	RxQueued, RxDelivered, RxBacklogDrops, RxRunt uint64
}

// Endpoint is a gVisor stack.LinkEndpoint on a FrameNIC with Ethernet framing,
// driven by the engine. What the stack writes goes through TCP Small Queues
// (when the card reports TX completion) into the qdisc, then, one frame at a
// time, through the host's CPU to the card; a busy card holds the qdisc until
// it has room. Received frames wait in the backlog (netdev_max_backlog; more
// are dropped and counted), then, one at a time, pass the CPU and are handed
// to the stack as an event of their own, followed by the stack's barrier.
// Nothing here blocks: gVisor calls WritePackets from its TCP processors, and
// the barrier waits for those to drain.
type Endpoint struct {
	m        *emu.Machine
	nic      FrameNIC
	cpu      *CPU // nil: the host's processing takes no virtual time
	mtu      uint32
	linkAddr tcpip.LinkAddress
	settle   func() // the stack's barrier, after each delivered frame

	mu         sync.Mutex // WritePackets comes from gVisor's goroutines
	dispatcher stack.NetworkDispatcher
	closed     bool
	qdisc      fifo[*txFrame]
	txFrame    *txFrame // in the CPU, or refused by a busy card
	txCharged  bool     // txFrame's CPU work is done
	nicBusy    bool     // the card said ErrBusy; wait for TxReady
	backlog    fifo[[]byte]
	rxBusy     bool // the head of the backlog is in the CPU
	txEv, rxEv *emu.Event
	readyEv    *emu.Event
	tsq        *smallQueues // nil unless the card reports TX completion
	stats      EndpointStats
}

// Queue lengths, as Linux's defaults for an Ethernet device.
const (
	DefaultBacklog = 1000 // net.core.netdev_max_backlog
)

// NewEndpoint makes an endpoint for nic with the given IP MTU and MAC address;
// cpu (may be nil) charges each packet's processing.
func NewEndpoint(m *emu.Machine, nic FrameNIC, mtu uint32, mac tcpip.LinkAddress, cpu *CPU) *Endpoint {
	e := &Endpoint{m: m, nic: nic, cpu: cpu, mtu: mtu, linkAddr: mac}
	e.txEv = m.NewGuestEvent(e.txDone)
	e.rxEv = m.NewGuestEvent(e.rxDone)
	e.readyEv = m.NewGuestEvent(e.txReady)
	nic.SetReceiver(e.receive)
	nic.SetTxReady(func() {
		m.Lock()
		m.Schedule(e.readyEv, m.Now())
		m.Unlock()
	})
	return e
}

// txFrame is a frame on its way to the card, with its TSQ bookkeeping.
type txFrame struct {
	b   []byte
	seg tcpSegment
	tcp bool // seg is valid and carries data (TSQ tracks it)
	p   pending
	// throttled and held: it waited for TX completion (counted once each).
	throttled, held bool
}

// EnableSmallQueues turns on TCP Small Queues (smallqueues.go) for the flows
// of this endpoint; with measureOnly it never holds a frame back but still
// measures the path RTT. The card must report TX completion; call it before
// the stack sends anything.
func (e *Endpoint) EnableSmallQueues(measureOnly bool) bool {
	c, ok := e.nic.(TxCompleter)
	if !ok {
		return false
	}
	e.tsq = newSmallQueues(e.m, e.mtu)
	e.tsq.measureOnly = measureOnly
	c.SetTxCompletion(e.txCompleted)
	return true
}

// SmallQueueStats reports what TCP Small Queues did (zero when off).
func (e *Endpoint) SmallQueueStats() SmallQueueStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tsq == nil {
		return SmallQueueStats{}
	}
	return e.tsq.stats()
}

// Stats returns the endpoint's queue counters.
func (e *Endpoint) Stats() EndpointStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// InFlight is how many frames sit in the endpoint's queues right now.
func (e *Endpoint) InFlight() (tx, rx int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tx = e.qdisc.len()
	if e.txFrame != nil {
		tx++
	}
	if e.tsq != nil {
		tx += e.tsq.heldFrames()
	}
	return tx, e.backlog.len()
}

// WritePackets implements stack.LinkWriter: frames are flattened and queued.
func (e *Endpoint) WritePackets(pkts stack.PacketBufferList) (int, tcpip.Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0, &tcpip.ErrClosedForSend{}
	}
	n := 0
	for _, pkt := range pkts.AsSlice() {
		f := &txFrame{b: make([]byte, 0, pkt.Size())}
		for _, s := range pkt.AsSlices() {
			f.b = append(f.b, s...)
		}
		e.stats.TxQueued++
		n++
		if e.tsq != nil {
			if seg, ok := parseTCP(f.b); ok && seg.payload > 0 {
				f.seg, f.tcp = seg, true
				if !e.tsq.offer(f) {
					continue // held below the socket until TX completion
				}
			}
		}
		e.qdisc.push(f)
	}
	e.pumpTxLocked()
	return n, nil
}

// pumpTxLocked starts the next frame through the CPU when the TX path is free.
func (e *Endpoint) pumpTxLocked() {
	if e.closed || e.txFrame != nil || e.nicBusy || e.qdisc.len() == 0 {
		return
	}
	e.txFrame = e.qdisc.popFront(1)[0]
	e.txCharged = false
	done := e.cpu.reserve(e.m.Now(), len(e.txFrame.b))
	e.m.Lock()
	e.m.Schedule(e.txEv, done)
	e.m.Unlock()
}

// txDone: the CPU has finished the frame; hand it to the card.
func (e *Endpoint) txDone() {
	e.mu.Lock()
	f := e.txFrame
	if f == nil || e.closed {
		e.mu.Unlock()
		return
	}
	e.txCharged = true
	if e.tsq != nil {
		e.tsq.toNIC(f.p)
	}
	e.mu.Unlock()
	// The card is called without e.mu: its TX completion comes back here.
	err := e.nic.Transmit(f.b)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tsq != nil && err != nil {
		e.tsq.notTaken()
	}
	switch {
	case errors.Is(err, ErrBusy):
		e.nicBusy = true // f stays, charged, until the card has room
		return
	case err != nil:
		e.stats.TxErrors++
	default:
		e.stats.TxSent++
	}
	e.txFrame = nil
	e.pumpTxLocked()
}

// txReady: the card has room again.
func (e *Endpoint) txReady() {
	e.mu.Lock()
	if !e.nicBusy {
		e.mu.Unlock()
		return
	}
	e.nicBusy = false
	if e.txFrame != nil && e.txCharged {
		e.mu.Unlock()
		e.txDone()
		return
	}
	e.pumpTxLocked()
	e.mu.Unlock()
}

// txCompleted is the card's TX completion (sock_wfree): TSQ may let held
// frames go.
func (e *Endpoint) txCompleted(frames int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tsq.completed(frames)
	e.releaseHeldLocked()
}

func (e *Endpoint) releaseHeldLocked() {
	for _, f := range e.tsq.ready() {
		e.qdisc.push(f)
	}
	e.pumpTxLocked()
}

// receive is the card's receive callback: copy into the backlog, never block.
func (e *Endpoint) receive(frame []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case len(frame) < header.EthernetMinimumSize:
		e.stats.RxRunt++
		return
	case e.closed || e.backlog.len() >= DefaultBacklog:
		e.stats.RxBacklogDrops++
		return
	}
	e.backlog.push(append([]byte(nil), frame...))
	e.stats.RxQueued++
	e.pumpRxLocked()
}

func (e *Endpoint) pumpRxLocked() {
	if e.closed || e.rxBusy || e.backlog.len() == 0 {
		return
	}
	e.rxBusy = true
	done := e.cpu.reserve(e.m.Now(), len(e.backlog.live()[0]))
	e.m.Lock()
	e.m.Schedule(e.rxEv, done)
	e.m.Unlock()
}

// rxDone: the CPU has finished the oldest received frame; the stack gets it,
// and the barrier makes sure the stack has done all it will at this instant.
func (e *Endpoint) rxDone() {
	e.mu.Lock()
	if e.closed || e.backlog.len() == 0 {
		e.mu.Unlock()
		return
	}
	f := e.backlog.popFront(1)[0]
	e.rxBusy = false
	if e.tsq != nil {
		e.tsq.received(f)
		e.releaseHeldLocked()
	}
	d := e.dispatcher
	e.stats.RxDelivered++
	e.mu.Unlock()
	if d != nil {
		e.deliver(d, f)
		if e.settle != nil {
			e.settle()
		}
	}
	e.mu.Lock()
	e.pumpRxLocked()
	e.mu.Unlock()
}

func (e *Endpoint) deliver(d stack.NetworkDispatcher, frame []byte) {
	// The packet owns frame from here: gVisor keeps payload views beyond this call.
	pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(frame)})
	defer pkt.DecRef()
	if !e.ParseHeader(pkt) {
		return
	}
	eth := header.Ethernet(pkt.LinkHeader().Slice())
	dst := eth.DestinationAddress()
	switch {
	case dst == header.EthernetBroadcastAddress:
		pkt.PktType = tcpip.PacketBroadcast
	case header.IsMulticastEthernetAddress(dst):
		pkt.PktType = tcpip.PacketMulticast
	case dst == e.linkAddr:
		pkt.PktType = tcpip.PacketHost
	default:
		pkt.PktType = tcpip.PacketOtherHost
	}
	d.DeliverNetworkPacket(eth.Type(), pkt)
}

// MTU implements stack.NetworkLinkEndpoint.
func (e *Endpoint) MTU() uint32 { return e.mtu }

// SetMTU implements stack.NetworkLinkEndpoint.
func (e *Endpoint) SetMTU(mtu uint32) { e.mtu = mtu }

// MaxHeaderLength implements stack.NetworkLinkEndpoint.
func (e *Endpoint) MaxHeaderLength() uint16 { return header.EthernetMinimumSize }

// LinkAddress implements stack.NetworkLinkEndpoint.
func (e *Endpoint) LinkAddress() tcpip.LinkAddress { return e.linkAddr }

// SetLinkAddress implements stack.NetworkLinkEndpoint.
func (e *Endpoint) SetLinkAddress(a tcpip.LinkAddress) { e.linkAddr = a }

// Capabilities implements stack.NetworkLinkEndpoint: ARP is needed; no offloads,
// so the stack computes checksums as the board's stmmac setup here does.
func (e *Endpoint) Capabilities() stack.LinkEndpointCapabilities {
	return stack.CapabilityResolutionRequired
}

// Attach implements stack.NetworkLinkEndpoint.
func (e *Endpoint) Attach(d stack.NetworkDispatcher) {
	e.mu.Lock()
	e.dispatcher = d
	e.mu.Unlock()
}

// IsAttached implements stack.NetworkLinkEndpoint.
func (e *Endpoint) IsAttached() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dispatcher != nil
}

// Wait implements stack.NetworkLinkEndpoint: the endpoint has no goroutines.
func (e *Endpoint) Wait() {}

// ARPHardwareType implements stack.NetworkLinkEndpoint.
func (e *Endpoint) ARPHardwareType() header.ARPHardwareType { return header.ARPHardwareEther }

// AddHeader implements stack.NetworkLinkEndpoint.
func (e *Endpoint) AddHeader(pkt *stack.PacketBuffer) {
	eth := header.Ethernet(pkt.LinkHeader().Push(header.EthernetMinimumSize))
	eth.Encode(&header.EthernetFields{
		SrcAddr: pkt.EgressRoute.LocalLinkAddress,
		DstAddr: pkt.EgressRoute.RemoteLinkAddress,
		Type:    pkt.NetworkProtocolNumber,
	})
}

// ParseHeader implements stack.NetworkLinkEndpoint.
func (e *Endpoint) ParseHeader(pkt *stack.PacketBuffer) bool {
	_, ok := pkt.LinkHeader().Consume(header.EthernetMinimumSize)
	return ok
}

// Close implements stack.NetworkLinkEndpoint: what is still queued is counted
// as dropped at close, and the events stop.
func (e *Endpoint) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.closed = true
	left := uint64(e.qdisc.len())
	if e.txFrame != nil {
		left++
	}
	if e.tsq != nil {
		left += uint64(e.tsq.heldFrames())
		e.tsq.close()
	}
	e.stats.TxDroppedAtClose += left
	e.m.Lock()
	e.m.Cancel(e.txEv)
	e.m.Cancel(e.rxEv)
	e.m.Cancel(e.readyEv)
	e.m.Unlock()
}

// SetOnCloseAction implements stack.NetworkLinkEndpoint.
func (e *Endpoint) SetOnCloseAction(func()) {}

var _ stack.LinkEndpoint = (*Endpoint)(nil)
