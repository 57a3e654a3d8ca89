package netstack

import (
	"errors"
	"sync"
	"sync/atomic"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// FrameNIC is a network card as a stack sees it: whole Ethernet frames without
// the FCS, which the hardware adds and checks.
type FrameNIC interface {
	// Transmit hands one frame to the card. It may block while the card has no
	// room (a full TX ring) and returns an error once the card is gone. The card
	// copies the frame before returning.
	Transmit(frame []byte) error
	// SetReceiver installs the function that gets every received frame; the
	// slice is only valid during the call.
	SetReceiver(func(frame []byte))
}

// ErrClosed is returned by a FrameNIC that has been shut down.
var ErrClosed = errors.New("network card closed")

// EndpointStats counts what the endpoint's own queues did with frames, so that
// nothing a stack sends or a card receives disappears without a counter.
type EndpointStats struct {
	TxQueued, TxSent, TxDroppedAtClose, TxErrors  uint64
	RxQueued, RxDelivered, RxBacklogDrops, RxRunt uint64
}

// Endpoint is a gVisor stack.LinkEndpoint on a FrameNIC with Ethernet framing.
// Outgoing packets go through a bounded queue (the qdisc; Linux's default
// txqueuelen is 1000) to a goroutine that feeds the card; a full queue makes the
// sender wait, and the hardware's run loop never waits for the stack.
// Received frames go through a bounded backlog (netdev_max_backlog, 1000) to a
// goroutine that delivers them to the stack.
type Endpoint struct {
	nic      FrameNIC
	cpu      *CPU // nil: the host's processing takes no virtual time
	mtu      uint32
	linkAddr tcpip.LinkAddress

	mu         sync.RWMutex
	dispatcher stack.NetworkDispatcher

	writeMu sync.Mutex
	txq     chan txFrame
	rxq     chan []byte
	done    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
	pool    sync.Pool
	tsq     *smallQueues // nil unless the card reports TX completion

	txQueued, txSent, txDroppedAtClose, txErrors  atomic.Uint64
	rxQueued, rxDelivered, rxBacklogDrops, rxRunt atomic.Uint64
}

// Queue lengths, as Linux's defaults for an Ethernet device.
const (
	DefaultTxQueueLen = 1000 // txqueuelen
	DefaultBacklog    = 1000 // net.core.netdev_max_backlog
)

// NewEndpoint makes an endpoint for nic with the given IP MTU and MAC address;
// cpu (may be nil) charges each packet's processing.
func NewEndpoint(nic FrameNIC, mtu uint32, mac tcpip.LinkAddress, cpu *CPU) *Endpoint {
	e := &Endpoint{
		nic: nic, cpu: cpu, mtu: mtu, linkAddr: mac,
		txq:  make(chan txFrame, DefaultTxQueueLen),
		rxq:  make(chan []byte, DefaultBacklog),
		done: make(chan struct{}),
	}
	e.pool.New = func() any { b := make([]byte, 0, header.EthernetMinimumSize+int(mtu)+4); return &b }
	nic.SetReceiver(e.receive)
	e.wg.Add(2)
	go e.txLoop()
	go e.rxLoop()
	return e
}

// txFrame is a frame in the qdisc with its TSQ bookkeeping.
type txFrame struct {
	b []byte
	p pending
}

// EnableSmallQueues turns on TCP Small Queues (smallqueues.go) for the flows
// of this endpoint, measuring time with clock. The card must report TX
// completion; call it before the stack sends anything.
func (e *Endpoint) EnableSmallQueues(clock tcpip.Clock) bool {
	c, ok := e.nic.(TxCompleter)
	if !ok || clock == nil {
		return false
	}
	e.tsq = newSmallQueues(clock, e.mtu)
	c.SetTxCompletion(e.tsq.completed)
	return true
}

// SmallQueueStats reports what TCP Small Queues did (zero when off).
func (e *Endpoint) SmallQueueStats() SmallQueueStats {
	if e.tsq == nil {
		return SmallQueueStats{}
	}
	return e.tsq.stats()
}

func (e *Endpoint) getBuf() []byte  { return (*e.pool.Get().(*[]byte))[:0] }
func (e *Endpoint) putBuf(b []byte) { e.pool.Put(&b) }

// Stats returns the endpoint's queue counters.
func (e *Endpoint) Stats() EndpointStats {
	return EndpointStats{
		TxQueued: e.txQueued.Load(), TxSent: e.txSent.Load(), TxDroppedAtClose: e.txDroppedAtClose.Load(), TxErrors: e.txErrors.Load(),
		RxQueued: e.rxQueued.Load(), RxDelivered: e.rxDelivered.Load(), RxBacklogDrops: e.rxBacklogDrops.Load(), RxRunt: e.rxRunt.Load(),
	}
}

// InFlight is how many frames sit in the endpoint's queues right now.
func (e *Endpoint) InFlight() (tx, rx int) { return len(e.txq), len(e.rxq) }

func (e *Endpoint) txLoop() {
	defer e.wg.Done()
	for {
		select {
		case <-e.done:
			// Packets still queued when the link goes away are counted, not lost.
			e.txDroppedAtClose.Add(uint64(len(e.txq)))
			return
		case f := <-e.txq:
			e.cpu.Charge(len(f.b))
			if e.tsq != nil {
				e.tsq.toNIC(f.p)
			}
			if err := e.nic.Transmit(f.b); err != nil {
				e.txErrors.Add(1)
				if e.tsq != nil {
					e.tsq.notTaken()
				}
			} else {
				e.txSent.Add(1)
			}
			e.putBuf(f.b)
		}
	}
}

func (e *Endpoint) rxLoop() {
	defer e.wg.Done()
	for {
		select {
		case <-e.done:
			return
		case f := <-e.rxq:
			e.cpu.Charge(len(f))
			if e.tsq != nil {
				e.tsq.received(f)
			}
			e.deliver(f)
		}
	}
}

// receive is the card's receive callback: copy and queue, never block.
func (e *Endpoint) receive(frame []byte) {
	if len(frame) < header.EthernetMinimumSize {
		e.rxRunt.Add(1)
		return
	}
	b := append(e.getBuf(), frame...)
	select {
	case e.rxq <- b:
		e.rxQueued.Add(1)
	default:
		e.rxBacklogDrops.Add(1)
		e.putBuf(b)
	}
}

func (e *Endpoint) deliver(frame []byte) {
	e.mu.RLock()
	d := e.dispatcher
	e.mu.RUnlock()
	e.rxDelivered.Add(1)
	if d == nil {
		e.putBuf(frame)
		return
	}
	// The packet gets its own copy: gVisor keeps payload views beyond this call.
	pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(frame)})
	e.putBuf(frame)
	if !e.ParseHeader(pkt) {
		pkt.DecRef()
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
	pkt.DecRef()
}

// WritePackets implements stack.LinkWriter: frames are flattened and queued.
func (e *Endpoint) WritePackets(pkts stack.PacketBufferList) (int, tcpip.Error) {
	// One batch at a time: a batch that waits for queue space must not be
	// overtaken by a later one from another goroutine.
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	n := 0
	for _, pkt := range pkts.AsSlice() {
		b := e.getBuf()
		for _, s := range pkt.AsSlices() {
			b = append(b, s...)
		}
		f := txFrame{b: b}
		if e.tsq != nil {
			p, ok := e.tsq.admit(b)
			if !ok {
				e.putBuf(b)
				return n, &tcpip.ErrClosedForSend{}
			}
			f.p = p
		}
		// A full queue holds the sender back instead of dropping: Linux's TCP
		// Small Queues throttle a local flow long before its qdisc overflows,
		// so a TCP sender never loses its own packets in the host.
		select {
		case e.txq <- f:
			e.txQueued.Add(1)
			n++
		case <-e.done:
			if e.tsq != nil {
				e.tsq.dropped(f.p)
			}
			e.putBuf(b)
			return n, &tcpip.ErrClosedForSend{}
		}
	}
	return n, nil
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
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.dispatcher != nil
}

// Wait implements stack.NetworkLinkEndpoint.
func (e *Endpoint) Wait() { e.wg.Wait() }

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

// Close implements stack.NetworkLinkEndpoint: it stops the queue goroutines.
func (e *Endpoint) Close() {
	e.once.Do(func() {
		close(e.done)
		if e.tsq != nil {
			e.tsq.close()
		}
	})
}

// SetOnCloseAction implements stack.NetworkLinkEndpoint.
func (e *Endpoint) SetOnCloseAction(func()) {}

var _ stack.LinkEndpoint = (*Endpoint)(nil)
