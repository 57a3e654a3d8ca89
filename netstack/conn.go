package netstack

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
	"gvisor.dev/gvisor/pkg/waiter"

	"mesonemu/emu"
	"mesonemu/socket"
)

// Conn is a TCP connection on a host for a program running as an engine task:
// Read, Write, and Dial and Accept, never block a goroutine on gVisor; they
// yield to the engine until the stack's waiter queue says there is something
// to do, and deadlines are on the virtual clock. After every call into the
// endpoint the host's barrier runs, so what the call made the stack do is
// done and queued before the task goes on.
type Conn struct {
	endpointSocket
	rw, ww  *emu.Waker
	local   net.Addr
	remote  net.Addr
	network string // for errors: "" is "tcp"

	rDeadline, wDeadline emu.Time // -1: none (mu)
}

// endpointSocket is what a Conn and a Listener share: a gVisor endpoint, its waiter
// registration and the closed flag (mu).
type endpointSocket struct {
	h     *Host
	ep    tcpip.Endpoint
	wq    *waiter.Queue
	entry waiter.Entry

	mu     sync.Mutex
	closed bool

	userMSS int // the MSS iperf3's -M gave it (a listener's passes to its conns), 0: none
}

// shut closes the endpoint once and lets the stack settle; false if it was
// already closed.
func (s *endpointSocket) shut() bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.closed = true
	s.mu.Unlock()
	s.wq.EventUnregister(&s.entry)
	s.ep.Close()
	s.h.settle()
	return true
}

func newConn(h *Host, ep tcpip.Endpoint, wq *waiter.Queue) *Conn {
	c := &Conn{endpointSocket: endpointSocket{h: h, ep: ep, wq: wq}, rw: h.m.NewWaker(), ww: h.m.NewWaker(), rDeadline: -1, wDeadline: -1}
	c.entry = waiter.NewFunctionEntry(waiter.ReadableEvents|waiter.WritableEvents|waiter.EventHUp|waiter.EventErr, func(mask waiter.EventMask) {
		if mask&(waiter.ReadableEvents|waiter.EventHUp|waiter.EventErr) != 0 {
			c.rw.Wake()
		}
		if mask&(waiter.WritableEvents|waiter.EventHUp|waiter.EventErr) != 0 {
			c.ww.Wake()
		}
	})
	wq.EventRegister(&c.entry)
	if a, err := ep.GetLocalAddress(); err == nil {
		c.local = tcpAddr(a)
	}
	if a, err := ep.GetRemoteAddress(); err == nil {
		c.remote = tcpAddr(a)
	}
	return h.track(c)
}

func tcpAddr(a tcpip.FullAddress) net.Addr {
	return &net.TCPAddr{IP: a.Addr.AsSlice(), Port: int(a.Port)}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
func (timeoutError) Unwrap() error   { return os.ErrDeadlineExceeded }

func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: cmp.Or(c.network, "tcp"), Source: c.local, Addr: c.remote, Err: err}
}

// state reads what a blocked call must look at again after each wake.
func (c *Conn) state(write bool) (closed bool, deadline emu.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if write {
		return c.closed, c.wDeadline
	}
	return c.closed, c.rDeadline
}

// wait blocks the task until w is woken or the deadline passes; it returns
// the error that ends the call, if any.
func (c *Conn) wait(op string, w *emu.Waker, write bool) error {
	if err := c.check(op, write); err != nil {
		return err
	}
	_, deadline := c.state(write)
	w.WaitUntil(deadline)
	return nil
}

// Read implements net.Conn.
func (c *Conn) Read(b []byte) (int, error) {
	for {
		if err := c.check("read", false); err != nil {
			return 0, err
		}
		sw := tcpip.SliceWriter(b)
		res, terr := c.ep.Read(&sw, tcpip.ReadOptions{})
		if res.Count > 0 {
			// Receive buffer autotuning (tcp_moderate_rcvbuf) is driven by
			// the reader in gVisor: without this call the window never
			// grows past tcp_rmem's default (gonet makes it too).
			c.ep.ModerateRecvBuf(res.Count)
		}
		c.h.settle()
		switch terr.(type) {
		case nil:
			return res.Count, nil
		case *tcpip.ErrClosedForReceive:
			return 0, io.EOF
		case *tcpip.ErrWouldBlock:
			if err := c.wait("read", c.rw, false); err != nil {
				return 0, err
			}
		default:
			return 0, c.opError("read", errors.New(terr.String()))
		}
	}
}

// check fails a call on a closed conn or after its deadline.
func (c *Conn) check(op string, write bool) error {
	closed, deadline := c.state(write)
	switch {
	case closed:
		return c.opError(op, net.ErrClosed)
	case deadline >= 0 && c.h.m.Now() >= deadline:
		return c.opError(op, timeoutError{})
	}
	return nil
}

// Write implements net.Conn.
func (c *Conn) Write(b []byte) (int, error) {
	var r bytes.Reader
	done := 0
	for done < len(b) {
		if err := c.check("write", true); err != nil {
			return done, err
		}
		r.Reset(b[done:])
		n, terr := c.ep.Write(&r, tcpip.WriteOptions{})
		c.h.settle()
		done += int(n)
		switch terr.(type) {
		case nil:
		case *tcpip.ErrWouldBlock:
			if err := c.wait("write", c.ww, true); err != nil {
				return done, err
			}
		default:
			return done, c.opError("write", errors.New(terr.String()))
		}
	}
	return done, nil
}

// Close implements net.Conn; a task blocked on the conn returns net.ErrClosed.
func (c *Conn) Close() error {
	if c.shut() {
		c.rw.Wake()
		c.ww.Wake()
	}
	return nil
}

// CloseWrite shuts the sending side (a FIN).
func (c *Conn) CloseWrite() error {
	terr := c.ep.Shutdown(tcpip.ShutdownWrite)
	c.h.settle()
	if terr != nil {
		return c.opError("close", errors.New(terr.String()))
	}
	return nil
}

// LocalAddr implements net.Conn.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr implements net.Conn.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline implements net.Conn, on the virtual clock (times on Clock).
func (c *Conn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

// SetReadDeadline implements net.Conn.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.setDeadline(&c.rDeadline, c.rw, t) }

// SetWriteDeadline implements net.Conn.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.setDeadline(&c.wDeadline, c.ww, t) }

// setDeadline sets one direction's deadline and wakes its waiter to look again.
func (c *Conn) setDeadline(d *emu.Time, w *emu.Waker, t time.Time) error {
	c.mu.Lock()
	*d = ToVirtual(t)
	c.mu.Unlock()
	w.Wake()
	return nil
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
	if err != nil || ip.Zone() != "" {
		return tcpip.FullAddress{}, fmt.Errorf("address %q: not an IPv4 or IPv6 address", addr)
	}
	ip = ip.Unmap()
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return tcpip.FullAddress{}, fmt.Errorf("address %q: bad port", addr)
	}
	return tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFromSlice(ip.AsSlice()), Port: uint16(p)}, nil
}

// Dial opens a TCP connection to addr ("198.18.0.1:5201") from the host,
// from the local port socket.LocalPort(ctx) asks for (--cport), if any.
// Call it from an engine task.
func (h *Host) Dial(ctx context.Context, addr string) (net.Conn, error) {
	port, _ := socket.LocalPort(ctx)
	return h.DialFrom(ctx, uint16(port), addr)
}

// dialTarget parses a dial's "host:port" and picks the network protocol
// that reaches it; errors start with what ("dial", "dial udp").
func (h *Host) dialTarget(what, addr string) (tcpip.FullAddress, tcpip.NetworkProtocolNumber, error) {
	remote, err := parseHostPort(addr)
	if err != nil {
		return remote, 0, err
	}
	proto, err := h.dialProto(remote)
	if err != nil {
		return remote, 0, fmt.Errorf("%s %s: %w", what, addr, err)
	}
	return remote, proto, nil
}

// DialFrom is Dial with a fixed local port (iperf3's --cport); 0 picks one.
func (h *Host) DialFrom(ctx context.Context, localPort uint16, addr string) (net.Conn, error) {
	remote, proto, err := h.dialTarget("dial", addr)
	if err != nil {
		return nil, err
	}
	wq := new(waiter.Queue)
	ep, terr := h.Stack.NewEndpoint(tcp.ProtocolNumber, proto, wq)
	if terr != nil {
		return nil, fmt.Errorf("dial %s: %s", addr, terr)
	}
	if localPort != 0 {
		if terr := ep.Bind(tcpip.FullAddress{NIC: 1, Port: localPort}); terr != nil {
			ep.Close()
			return nil, fmt.Errorf("dial %s: bind port %d: %s", addr, localPort, terr)
		}
	}
	o, _ := socket.DialOptions(ctx)
	preConnect(ep, o) // -M must reach the SYN
	c := newConn(h, ep, wq)
	c.userMSS = o.MSS
	stop := context.AfterFunc(ctx, c.ww.Wake)
	defer stop()
	terr = ep.Connect(remote)
	h.settle()
	if _, started := terr.(*tcpip.ErrConnectStarted); started {
		for terr == nil || isConnectStarted(terr) {
			if ctx.Err() != nil {
				_ = c.Close()
				return nil, fmt.Errorf("dial %s: %w", addr, ctx.Err())
			}
			switch tcp.EndpointState(ep.State()) {
			case tcp.StateSynSent, tcp.StateConnecting:
				c.ww.Wait()
				continue
			}
			terr = ep.LastError()
			break
		}
	}
	if terr != nil {
		_ = c.Close()
		return nil, fmt.Errorf("dial %s: %s", addr, terr)
	}
	if a, err := ep.GetLocalAddress(); err == nil {
		c.local = tcpAddr(a)
	}
	if a, err := ep.GetRemoteAddress(); err == nil {
		c.remote = tcpAddr(a)
	}
	return c, nil
}

func isConnectStarted(err tcpip.Error) bool {
	_, ok := err.(*tcpip.ErrConnectStarted)
	return ok
}

// Listener accepts TCP connections on a host, for a program in an engine task.
type Listener struct {
	endpointSocket
	w    *emu.Waker
	addr net.Addr
}

// Listen opens a TCP listener on the host's address and port: IPv4, or
// dual-stack on a host with IPv6 (ListenNet "tcp").
func (h *Host) Listen(port uint16) (*Listener, error) { return h.ListenNet("tcp", port) }

// ListenNet is Listen for one network: "tcp", "tcp4" or "tcp6" (IPv6 only,
// as iperf3 -6 listens).
func (h *Host) ListenNet(network string, port uint16) (*Listener, error) {
	f, err := parseFamily(network)
	if err != nil {
		return nil, fmt.Errorf("listen :%d: %w", port, err)
	}
	proto, v6only, err := h.listenEndpoint(f)
	if err != nil {
		return nil, fmt.Errorf("listen %s :%d: %w", network, port, err)
	}
	wq := new(waiter.Queue)
	ep, terr := h.Stack.NewEndpoint(tcp.ProtocolNumber, proto, wq)
	if terr != nil {
		return nil, fmt.Errorf("listen :%d: %s", port, terr)
	}
	if proto != ipv4.ProtocolNumber {
		ep.SocketOptions().SetV6Only(v6only)
	}
	if terr := ep.Bind(tcpip.FullAddress{NIC: 1, Port: port}); terr != nil {
		ep.Close()
		return nil, fmt.Errorf("listen :%d: %s", port, terr)
	}
	if terr := ep.Listen(128); terr != nil {
		ep.Close()
		return nil, fmt.Errorf("listen :%d: %s", port, terr)
	}
	l := &Listener{endpointSocket: endpointSocket{h: h, ep: ep, wq: wq}, w: h.m.NewWaker(),
		addr: &net.TCPAddr{IP: h.listenAddr(proto).AsSlice(), Port: int(port)}}
	l.entry = waiter.NewFunctionEntry(waiter.ReadableEvents|waiter.EventHUp|waiter.EventErr, func(waiter.EventMask) { l.w.Wake() })
	wq.EventRegister(&l.entry)
	return l, nil
}

// Accept implements net.Listener; the conns are *Conn.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		closed := l.closed
		l.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		nep, nwq, terr := l.ep.Accept(nil)
		l.h.settle()
		if terr == nil {
			c := newConn(l.h, nep, nwq)
			c.userMSS = l.userMSS
			return c, nil
		}
		if _, would := terr.(*tcpip.ErrWouldBlock); !would {
			return nil, fmt.Errorf("accept: %s", terr)
		}
		l.w.Wait()
	}
}

// Close implements net.Listener; a blocked Accept returns net.ErrClosed.
func (l *Listener) Close() error {
	if l.shut() {
		l.w.Wake()
	}
	return nil
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return l.addr }
