package netstack

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/network/arp"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/waiter"
)

// HostConfig describes one TCP/IP host: the board or the PC.
type HostConfig struct {
	Name   string
	Addr   netip.Prefix // e.g. 198.18.0.2/24
	MAC    tcpip.LinkAddress
	MTU    uint32 // IP MTU, 1500
	CC     string // "cubic" or "reno"
	Clock  tcpip.Clock
	NIC    FrameNIC
	Seeded int64 // seed for the stack's random source (ports, ISNs)
	// CPU, when set, charges each packet's processing in virtual time.
	CPU *CPU
	// RACK turns on gVisor's RACK-TLP loss detection. It is off by default:
	// gVisor arms its tail loss probe at 2·SRTT with no floor (Linux adds
	// TCP_TIMEOUT_MIN, 2 jiffies), so on a LAN round trip of ~100 µs any
	// scheduling hiccup of the host sets off a spurious retransmission that
	// the emulated system would not make. Without it a host recovers by SACK
	// and duplicate ACKs (RFC 6675) and the RTO, as Linux does for real losses.
	RACK bool
}

// Host is a gVisor stack with one Ethernet NIC.
type Host struct {
	Name  string
	Stack *stack.Stack
	EP    *Endpoint
	addr  netip.Prefix
	clock tcpip.Clock // the stack's: cfg.Clock, or gVisor's wall clock

	mu    sync.Mutex
	conns []*Conn // every connection opened, for the drop counters
}

func (h *Host) track(c *Conn) *Conn {
	h.mu.Lock()
	h.conns = append(h.conns, c)
	h.mu.Unlock()
	return c
}

// SegmentQueueDrops is how many received segments the host's TCP endpoints
// dropped because their receive queue was full (the reading goroutine fell
// behind): drops inside the PC or board, not on the wire.
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

// CongestionControls lists the algorithms a host accepts.
var CongestionControls = []string{"cubic", "reno"}

// NewHost builds the stack: ARP, IPv4, TCP with SACK and the chosen congestion control.
func NewHost(cfg HostConfig) (*Host, error) {
	if !cfg.Addr.Addr().Is4() {
		return nil, fmt.Errorf("host %s: address %v is not IPv4", cfg.Name, cfg.Addr)
	}
	if cfg.MTU == 0 {
		cfg.MTU = 1500
	}
	if cfg.CC == "" {
		cfg.CC = "cubic"
	}
	okCC := false
	for _, c := range CongestionControls {
		okCC = okCC || c == cfg.CC
	}
	if !okCC {
		return nil, fmt.Errorf("host %s: congestion control %q not one of %v", cfg.Name, cfg.CC, CongestionControls)
	}
	s := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol, arp.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol},
		Clock:              cfg.Clock,
		RandSource:         newLockedSource(cfg.Seeded),
	})
	sack := tcpip.TCPSACKEnabled(true)
	if err := s.SetTransportProtocolOption(tcp.ProtocolNumber, &sack); err != nil {
		return nil, fmt.Errorf("host %s: enable SACK: %s", cfg.Name, err)
	}
	rec := tcpip.TCPRecovery(0)
	if cfg.RACK {
		rec = tcpip.TCPRACKLossDetection
	}
	if err := s.SetTransportProtocolOption(tcp.ProtocolNumber, &rec); err != nil {
		return nil, fmt.Errorf("host %s: loss recovery: %s", cfg.Name, err)
	}
	cc := tcpip.CongestionControlOption(cfg.CC)
	if err := s.SetTransportProtocolOption(tcp.ProtocolNumber, &cc); err != nil {
		return nil, fmt.Errorf("host %s: congestion control %s: %s", cfg.Name, cfg.CC, err)
	}
	// Socket buffers. Send: the 4 MiB Linux's autotuning reaches in a bulk
	// transfer (net.ipv4.tcp_wmem max); gVisor's send buffer does not grow by
	// itself. Receive: 32 MiB, more than any window the 4 MiB send buffer can
	// fill even with gVisor's ~1.4x per-segment memory accounting, so a reading
	// goroutine that the host schedules late never makes the stack drop a
	// segment (an emulation artefact, not a property of either machine).
	wmem := tcpip.TCPSendBufferSizeRangeOption{Min: 4096, Default: 4 << 20, Max: 4 << 20}
	rmem := tcpip.TCPReceiveBufferSizeRangeOption{Min: 4096, Default: 32 << 20, Max: 32 << 20}
	_ = s.SetTransportProtocolOption(tcp.ProtocolNumber, &wmem)
	_ = s.SetTransportProtocolOption(tcp.ProtocolNumber, &rmem)
	mod := tcpip.TCPModerateReceiveBufferOption(false)
	_ = s.SetTransportProtocolOption(tcp.ProtocolNumber, &mod)

	ep := NewEndpoint(cfg.NIC, cfg.MTU, cfg.MAC, cfg.CPU)
	// Linux runs TCP Small Queues on every host; here it needs a card that
	// reports TX completion (the board's stmmac driver does).
	ep.EnableSmallQueues(cfg.Clock)
	if err := s.CreateNICWithOptions(1, ep, stack.NICOptions{Name: cfg.Name}); err != nil {
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
	s.SetRouteTable([]tcpip.Route{{Destination: subnet, NIC: 1}})
	return &Host{Name: cfg.Name, Stack: s, EP: ep, addr: cfg.Addr, clock: s.Clock()}, nil
}

// Addr is the host's IPv4 address.
func (h *Host) Addr() netip.Addr { return h.addr.Addr() }

// lingerPoll is how often Linger looks at the connections' states.
const lingerPoll = time.Millisecond

// Linger does what a kernel does when a program exits: it closes every
// connection the host opened or accepted (a FIN, or a reset where unread data
// remains, as Linux does) and keeps the stack retransmitting until none still
// has data or a FIN that the peer has not acknowledged, up to limit on the
// host's clock or until ctx ends. It returns how many were still unsettled.
// Close without it drops the connections without a word on the wire
// (TestLingerDeliversLastMessage), so a last message lost on the wire
// (iperf3's IPERF_DONE, say) would never reach a peer that waits for it.
func (h *Host) Linger(ctx context.Context, limit time.Duration) int {
	start := h.clock.NowMonotonic()
	h.mu.Lock()
	conns := append([]*Conn(nil), h.conns...)
	h.mu.Unlock()
	for _, c := range conns {
		_ = c.Close() // already closed by the program: nothing to do
	}
	tick := time.NewTicker(lingerPoll)
	defer tick.Stop()
	for {
		n := h.unsettled()
		if n == 0 {
			return 0
		}
		if h.clock.NowMonotonic().Sub(start) >= limit {
			return n
		}
		select {
		case <-ctx.Done():
			return n
		case <-tick.C:
		}
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

// Close shuts the stack and its endpoint down. The endpoint's goroutines are
// stopped and waited for before Stack.Wait: gVisor waits for link endpoints
// with the stack's lock held, and a frame the RX goroutine is delivering at
// that moment may need the same lock (a TCP reset looks up its route), which
// deadlocked a close now and then.
func (h *Host) Close() {
	h.Stack.Close()
	h.EP.Close()
	h.EP.Wait()
	h.Stack.Wait()
}

// Conn is a TCP connection on a gVisor host that can report its TCP statistics.
type Conn struct {
	*gonet.TCPConn
	ep tcpip.Endpoint
}

// Retransmits is the number of segments this connection retransmitted.
func (c *Conn) Retransmits() uint64 {
	if st, ok := c.ep.Stats().(*tcp.Stats); ok {
		return st.SendErrors.Retransmits.Value()
	}
	return 0
}

// Info reports the sender-side TCP state (cwnd in segments, smoothed RTT).
func (c *Conn) Info() tcpip.TCPInfoOption {
	var info tcpip.TCPInfoOption
	_ = c.ep.GetSockOpt(&info)
	return info
}

func parseHostPort(addr string) (tcpip.FullAddress, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return tcpip.FullAddress{}, fmt.Errorf("address %q: %w", addr, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Is4() {
		return tcpip.FullAddress{}, fmt.Errorf("address %q: not an IPv4 address", addr)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return tcpip.FullAddress{}, fmt.Errorf("address %q: bad port", addr)
	}
	return tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFromSlice(ip.AsSlice()), Port: uint16(p)}, nil
}

// Dial opens a TCP connection to addr ("198.18.0.1:5201") from the host.
func (h *Host) Dial(ctx context.Context, addr string) (net.Conn, error) {
	return h.DialFrom(ctx, 0, addr)
}

// DialFrom is Dial with a fixed local port (iperf3's --cport); 0 picks one.
func (h *Host) DialFrom(ctx context.Context, localPort uint16, addr string) (net.Conn, error) {
	remote, err := parseHostPort(addr)
	if err != nil {
		return nil, err
	}
	var wq waiter.Queue
	ep, terr := h.Stack.NewEndpoint(tcp.ProtocolNumber, ipv4.ProtocolNumber, &wq)
	if terr != nil {
		return nil, fmt.Errorf("dial %s: %s", addr, terr)
	}
	if localPort != 0 {
		if terr := ep.Bind(tcpip.FullAddress{NIC: 1, Port: localPort}); terr != nil {
			ep.Close()
			return nil, fmt.Errorf("dial %s: bind port %d: %s", addr, localPort, terr)
		}
	}
	entry, notify := waiter.NewChannelEntry(waiter.WritableEvents)
	wq.EventRegister(&entry)
	defer wq.EventUnregister(&entry)
	terr = ep.Connect(remote)
	if _, started := terr.(*tcpip.ErrConnectStarted); started {
		select {
		case <-ctx.Done():
			ep.Close()
			return nil, fmt.Errorf("dial %s: %w", addr, ctx.Err())
		case <-notify:
		}
		terr = ep.LastError()
	}
	if terr != nil {
		ep.Close()
		return nil, fmt.Errorf("dial %s: %s", addr, terr)
	}
	return h.track(&Conn{TCPConn: gonet.NewTCPConn(&wq, ep), ep: ep}), nil
}

// Listener accepts TCP connections on a gVisor host.
type Listener struct {
	h      *Host
	ep     tcpip.Endpoint
	wq     *waiter.Queue
	addr   net.Addr
	closed chan struct{}
	once   sync.Once
}

// Listen opens a TCP listener on the host's address and port.
func (h *Host) Listen(port uint16) (*Listener, error) {
	var wq waiter.Queue
	ep, terr := h.Stack.NewEndpoint(tcp.ProtocolNumber, ipv4.ProtocolNumber, &wq)
	if terr != nil {
		return nil, fmt.Errorf("listen :%d: %s", port, terr)
	}
	if terr := ep.Bind(tcpip.FullAddress{NIC: 1, Port: port}); terr != nil {
		ep.Close()
		return nil, fmt.Errorf("listen :%d: %s", port, terr)
	}
	if terr := ep.Listen(128); terr != nil {
		ep.Close()
		return nil, fmt.Errorf("listen :%d: %s", port, terr)
	}
	return &Listener{h: h, ep: ep, wq: &wq, closed: make(chan struct{}),
		addr: &net.TCPAddr{IP: h.addr.Addr().AsSlice(), Port: int(port)}}, nil
}

// Accept implements net.Listener; the conns are *Conn.
func (l *Listener) Accept() (net.Conn, error) {
	entry, notify := waiter.NewChannelEntry(waiter.ReadableEvents)
	l.wq.EventRegister(&entry)
	defer l.wq.EventUnregister(&entry)
	for {
		nep, nwq, terr := l.ep.Accept(nil)
		if terr == nil {
			return l.h.track(&Conn{TCPConn: gonet.NewTCPConn(nwq, nep), ep: nep}), nil
		}
		if _, would := terr.(*tcpip.ErrWouldBlock); !would {
			return nil, fmt.Errorf("accept: %s", terr)
		}
		select {
		case <-notify:
		case <-l.closed:
			return nil, net.ErrClosed
		}
	}
}

// Close implements net.Listener.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed); l.ep.Close() })
	return nil
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return l.addr }
