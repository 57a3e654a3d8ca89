package netstack

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/network/arp"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/tcpip/transport/udp"

	"mesonemu/emu"
	"mesonemu/netstack/linuxmodel"
)

// HostConfig describes one TCP/IP host: the board or the PC. The Linux
// behaviour below TCP is chosen here, each model one endpoint of the link
// path NewHost composes (see Link); a model left off is not in the path.
type HostConfig struct {
	Name    string
	Machine *emu.Machine // the engine the host runs on
	Addr    netip.Prefix // e.g. 198.18.0.2/24
	MAC     tcpip.LinkAddress
	MTU     uint32 // IP MTU, 1500
	CC      string // "cubic" or "reno"
	NIC     FrameNIC
	Seeded  int64 // seed of every random source of the stack (ports, ISNs, hashes)
	// Addr6 is the host's IPv6 address (e.g. 2001:2::2/64); zero leaves the
	// host IPv4-only, with no IPv6 protocol in its stack (see ipv6.go).
	Addr6 netip.Prefix
	// TCP is the stack's TCP configuration; nil is LinuxTCP().
	TCP *TCPConfig
	// CPU charges each packet's processing in virtual time; nil: no cost.
	CPU *linuxmodel.CPU
	// SmallQueues puts TCP Small Queues in the path, holding frames or only
	// measuring; the NIC must then report TX completion (link.TxCompleter;
	// the board's stmmac driver does).
	SmallQueues linuxmodel.TSQMode
	// DelayedAcks puts a Linux receiver's ACK policy on the NIC (the PC's;
	// the board keeps gVisor's); the NIC must be a link.LockedSender.
	DelayedAcks bool
}

// Host is a gVisor stack with one Ethernet NIC, on the engine.
type Host struct {
	Name  string
	Stack *stack.Stack
	EP    *Link
	m     *emu.Machine
	addr  netip.Prefix
	addr6 netip.Prefix // invalid: no IPv6
	mtu   uint32       // the link's IP MTU
	clock *Clock
	// drain is the barrier's work: the TCP protocol's Pause, which runs the
	// queued processing inline; nil if the protocol cannot (then the
	// whole stack's Pause and Resume wait for its processor goroutines).
	drain func()

	mu     sync.Mutex
	closed bool
	conns  []*Conn // every connection opened, for the drop counters
}

func (h *Host) track(c *Conn) *Conn {
	h.mu.Lock()
	h.conns = append(h.conns, c)
	h.mu.Unlock()
	return c
}

// SegmentQueueDrops is how many received segments the host's TCP endpoints
// dropped because their receive queue was full: drops inside the PC or
// board, not on the wire.
func (h *Host) SegmentQueueDrops() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var n uint64
	for _, c := range h.conns {
		if st, ok := c.ep.Stats().(*tcp.Stats); ok {
			n += st.ReceiveErrors.SegmentQueueDropped.Value()
		}
	}
	return n
}

// settle is the stack's barrier. gVisor's TCP queues received segments to its
// processors; the stack here runs them inline (a patch to tcp/dispatcher.go),
// so Stack.Pause does the queued processing on the caller's goroutine, until
// every queue is empty, and Resume has nothing to do. So after Pause; Resume
// the stack has done all it will at this instant, and whatever it wrote or
// woke is already in the engine's queue, in order.
//
// With the processing inline only TCP's Pause has work (UDP's and Resume's are
// empty), so settle calls it alone, without the stack's map walks.
func (h *Host) settle() {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return // the processors are gone; Pause would wait for them forever
	}
	if h.drain != nil {
		h.drain()
		return
	}
	h.Stack.Pause()
	h.Stack.Resume()
}

// CongestionControls lists the algorithms a host accepts.
var CongestionControls = []string{"cubic", "reno"}

// NewHost builds the stack: ARP, IPv4, TCP with SACK and the chosen congestion
// control; IPv6 (with NDP) too when the config has an IPv6 address.
func NewHost(cfg HostConfig) (*Host, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	h := &Host{Name: cfg.Name, m: cfg.Machine, addr: cfg.Addr, addr6: cfg.Addr6, mtu: cfg.MTU}
	h.clock = &Clock{m: cfg.Machine, settle: h.settle, strict: true}
	rng := newLockedSource(cfg.Seeded)
	protocols := []stack.NetworkProtocolFactory{ipv4.NewProtocol, arp.NewProtocol}
	if cfg.Addr6.IsValid() {
		protocols = append(protocols, ipv6Protocol())
	}
	s := stack.New(stack.Options{
		NetworkProtocols:   protocols,
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol, udp.NewProtocol},
		Clock:              h.clock,
		RandSource:         rng,
		// ISN and timestamp-offset secrets; the dispatcher's hash seed comes
		// from RandSource.
		SecureRNG: newSeededReader(cfg.Seeded ^ 0x5ec),
	})
	// The barrier does the TCP processing itself, on the engine's goroutine
	// (docs/engine.md, "Speed"): no processor goroutines to hand off to.
	if in, ok := s.TransportProtocolInstance(tcp.ProtocolNumber).(interface {
		ProcessInline()
		Pause()
	}); ok {
		in.ProcessInline()
		h.drain = in.Pause
	}
	tcpCfg := LinuxTCP()
	if cfg.TCP != nil {
		tcpCfg = *cfg.TCP
	}
	if err := tcpCfg.apply(s); err != nil {
		return nil, fmt.Errorf("host %s: TCP: %w", cfg.Name, err)
	}
	cc := tcpip.CongestionControlOption(cfg.CC)
	if err := s.SetTransportProtocolOption(tcp.ProtocolNumber, &cc); err != nil {
		return nil, fmt.Errorf("host %s: congestion control %s: %s", cfg.Name, cfg.CC, err)
	}
	ep, err := newLink(cfg, h.settle)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", cfg.Name, err)
	}
	if err := s.CreateNICWithOptions(1, ep.eth, stack.NICOptions{Name: cfg.Name}); err != nil {
		ep.Close()
		return nil, fmt.Errorf("host %s: create NIC: %s", cfg.Name, err)
	}
	pa := tcpip.ProtocolAddress{
		Protocol:          ipv4.ProtocolNumber,
		AddressWithPrefix: tcpip.AddrFromSlice(cfg.Addr.Addr().AsSlice()).WithPrefix(),
	}
	pa.AddressWithPrefix.PrefixLen = cfg.Addr.Bits()
	if err := s.AddProtocolAddress(1, pa, stack.AddressProperties{}); err != nil {
		return nil, fmt.Errorf("host %s: add address: %s", cfg.Name, err)
	}
	subnet := pa.AddressWithPrefix.Subnet()
	routes := []tcpip.Route{{Destination: subnet, NIC: 1}}
	if cfg.Addr6.IsValid() {
		r, err := addIPv6(s, cfg)
		if err != nil {
			ep.Close()
			return nil, fmt.Errorf("host %s: %w", cfg.Name, err)
		}
		routes = append(routes, r)
	}
	s.SetRouteTable(routes)
	h.Stack, h.EP = s, ep
	return h, nil
}

// withDefaults checks a host's configuration and fills in the defaults
// (MTU 1500, CUBIC).
func (cfg HostConfig) withDefaults() (HostConfig, error) {
	if !cfg.Addr.Addr().Is4() {
		return cfg, fmt.Errorf("host %s: address %v is not IPv4", cfg.Name, cfg.Addr)
	}
	if cfg.MTU == 0 {
		cfg.MTU = 1500
	}
	if cfg.CC == "" {
		cfg.CC = "cubic"
	}
	if !slices.Contains(CongestionControls, cfg.CC) {
		return cfg, fmt.Errorf("host %s: congestion control %q not one of %v", cfg.Name, cfg.CC, CongestionControls)
	}
	if cfg.Machine == nil {
		return cfg, fmt.Errorf("host %s: no machine", cfg.Name)
	}
	if err := checkAddr6(cfg); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// Addr is the host's IPv4 address.
func (h *Host) Addr() netip.Addr { return h.addr.Addr() }

// Clock is the host's clock (virtual time; its timers end with the barrier).
func (h *Host) Clock() *Clock { return h.clock }

// lingerPoll is how often Linger looks at the connections' states.
const lingerPoll = emu.Millisecond

// Linger does what a kernel does when a program exits: it closes every
// connection the host opened or accepted (a FIN, or a reset where unread data
// remains, as Linux does) and keeps the stack retransmitting until none still
// has data or a FIN that the peer has not acknowledged, up to limit of virtual
// time or until ctx ends. It returns how many were still unsettled. Close
// without it drops the connections without a word on the wire
// (TestLingerDeliversLastMessage), so a last message lost on the wire
// (iperf3's IPERF_DONE, say) would never reach a peer that waits for it. Call
// it from an engine task.
func (h *Host) Linger(ctx context.Context, limit time.Duration) int {
	start := h.m.Now()
	h.mu.Lock()
	conns := append([]*Conn(nil), h.conns...)
	h.mu.Unlock()
	for _, c := range conns {
		_ = c.Close() // already closed by the program: nothing to do
	}
	for {
		n := h.unsettled()
		if n == 0 || ctx.Err() != nil || h.m.Now()-start >= emu.Time(limit) {
			return n
		}
		h.m.Sleep(lingerPoll)
	}
}

// unsettled counts the connections whose own sending is not over: every
// state in which the host may still (re)transmit data or its FIN. FIN-WAIT-2,
// TIME-WAIT and CLOSED are settled: our FIN was acknowledged, or the
// connection is gone.
func (h *Host) unsettled() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.conns {
		switch tcp.EndpointState(c.ep.State()) {
		case tcp.StateSynSent, tcp.StateSynRecv, tcp.StateConnecting, tcp.StateEstablished,
			tcp.StateCloseWait, tcp.StateFinWait1, tcp.StateClosing, tcp.StateLastAck:
			n++
		}
	}
	return n
}

// Close shuts the stack and its endpoint down. The barrier is off from here:
// the processors stop.
func (h *Host) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	h.mu.Unlock()
	h.EP.Close()
	h.Stack.Close()
	h.Stack.Wait()
}
