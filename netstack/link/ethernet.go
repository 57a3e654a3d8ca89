package link

import (
	"sync"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
)

// Ethernet is the top of the path, the stack.LinkEndpoint a gVisor stack
// sees: Ethernet framing, packets flattened into frames for the endpoint
// below, and received frames handed to the stack one at a time, each
// followed by the stack's barrier (settle), so that the stack has done all it
// will before the engine goes on. Nothing here blocks: gVisor calls
// WritePackets from its TCP processing, which the barrier runs.
type Ethernet struct {
	lower    Endpoint
	mtu      uint32
	linkAddr tcpip.LinkAddress
	settle   func() // nil: no barrier
	given    bool   // lower gives its received frames: released after delivery

	mu         sync.Mutex // WritePackets comes from gVisor's goroutines
	dispatcher stack.NetworkDispatcher
	closed     bool
	queued     uint64 // frames the stack wrote
}

// NewEthernet puts the stack's endpoint on lower, with the given IP MTU and
// MAC address; settle is the stack's barrier.
func NewEthernet(lower Endpoint, mtu uint32, mac tcpip.LinkAddress, settle func()) *Ethernet {
	e := &Ethernet{lower: lower, mtu: mtu, linkAddr: mac, settle: settle, given: GivesFrames(lower)}
	lower.SetReceiver(e.receive)
	return e
}

// Queued is how many frames the stack has written.
func (e *Ethernet) Queued() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.queued
}

// WritePackets implements stack.LinkWriter. The lock is held for the whole
// batch, so that batches from two of gVisor's goroutines do not interleave.
func (e *Ethernet) WritePackets(pkts stack.PacketBufferList) (int, tcpip.Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return 0, &tcpip.ErrClosedForSend{}
	}
	n := 0
	for _, pkt := range pkts.AsSlice() {
		b := flatten(pkt)
		e.queued++
		n++
		_ = e.lower.Transmit(b) // the endpoints below count what they refuse
	}
	return n, nil
}

// flatten copies the packet into a new frame (from the pool: the card that
// copies it releases it), walking its views in place (PacketBuffer.AsSlices
// would allocate a slice of them per packet).
func flatten(pkt *stack.PacketBuffer) []byte {
	b := AllocFrame(pkt.Size())[:0]
	vl, skip := pkt.AsViewList()
	for v := vl.Front(); v != nil; v = v.Next() {
		s := v.AsSlice()
		if skip >= len(s) {
			skip -= len(s)
			continue
		}
		b = append(b, s[skip:]...)
		skip = 0
	}
	return b
}

// receive gets each frame from below, after the host's processing.
func (e *Ethernet) receive(frame []byte) {
	e.mu.Lock()
	d := e.dispatcher
	e.mu.Unlock()
	if d == nil {
		return
	}
	e.deliver(d, frame)
	if e.given {
		ReleaseFrame(frame) // deliver's packet holds a copy
	}
	if e.settle != nil {
		e.settle()
	}
}

func (e *Ethernet) deliver(d stack.NetworkDispatcher, frame []byte) {
	// MakeWithData copies frame into a buffer of gVisor's own.
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
func (e *Ethernet) MTU() uint32 { return e.mtu }

// SetMTU implements stack.NetworkLinkEndpoint.
func (e *Ethernet) SetMTU(mtu uint32) { e.mtu = mtu }

// MaxHeaderLength implements stack.NetworkLinkEndpoint.
func (e *Ethernet) MaxHeaderLength() uint16 { return header.EthernetMinimumSize }

// LinkAddress implements stack.NetworkLinkEndpoint.
func (e *Ethernet) LinkAddress() tcpip.LinkAddress { return e.linkAddr }

// SetLinkAddress implements stack.NetworkLinkEndpoint.
func (e *Ethernet) SetLinkAddress(a tcpip.LinkAddress) { e.linkAddr = a }

// Capabilities implements stack.NetworkLinkEndpoint: ARP is needed; no offloads,
// so the stack computes checksums as the board's stmmac setup here does.
func (e *Ethernet) Capabilities() stack.LinkEndpointCapabilities {
	return stack.CapabilityResolutionRequired
}

// Attach implements stack.NetworkLinkEndpoint.
func (e *Ethernet) Attach(d stack.NetworkDispatcher) {
	e.mu.Lock()
	e.dispatcher = d
	e.mu.Unlock()
}

// IsAttached implements stack.NetworkLinkEndpoint.
func (e *Ethernet) IsAttached() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dispatcher != nil
}

// Wait implements stack.NetworkLinkEndpoint: the endpoint has no goroutines.
func (e *Ethernet) Wait() {}

// ARPHardwareType implements stack.NetworkLinkEndpoint.
func (e *Ethernet) ARPHardwareType() header.ARPHardwareType { return header.ARPHardwareEther }

// AddHeader implements stack.NetworkLinkEndpoint.
func (e *Ethernet) AddHeader(pkt *stack.PacketBuffer) {
	eth := header.Ethernet(pkt.LinkHeader().Push(header.EthernetMinimumSize))
	eth.Encode(&header.EthernetFields{
		SrcAddr: pkt.EgressRoute.LocalLinkAddress,
		DstAddr: pkt.EgressRoute.RemoteLinkAddress,
		Type:    pkt.NetworkProtocolNumber,
	})
}

// ParseHeader implements stack.NetworkLinkEndpoint.
func (e *Ethernet) ParseHeader(pkt *stack.PacketBuffer) bool {
	_, ok := pkt.LinkHeader().Consume(header.EthernetMinimumSize)
	return ok
}

// Close implements stack.NetworkLinkEndpoint: the stack can write no more.
// The endpoints below are closed by whoever composed them.
func (e *Ethernet) Close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
}

// SetOnCloseAction implements stack.NetworkLinkEndpoint.
func (e *Ethernet) SetOnCloseAction(func()) {}

var _ stack.LinkEndpoint = (*Ethernet)(nil)
