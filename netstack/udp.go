package netstack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/transport/udp"
	"gvisor.dev/gvisor/pkg/waiter"

	"mesonemu/emu"
	"mesonemu/netstack/linuxmodel"
	"mesonemu/socket"
)

// UDPConn is a UDP socket on a host for a program running as an engine task,
// with the same yielding Read and virtual-clock deadlines as Conn. Dialled,
// it is a net.Conn on its peer; listening, a net.PacketConn (ReadFrom,
// WriteTo).
//
// A Linux UDP socket blocks its writer while its send buffer (SO_SNDBUF)
// holds datagrams the card has not sent yet, so a sender asking for more
// than the host's CPU and link can carry is slowed, not dropped. gVisor
// frees a datagram's buffer as soon as the link endpoint has copied it, so
// here a write waits while the host's transmit queues hold SndBuf bytes
// (each datagram counted with the skb overhead Linux charges it).
type UDPConn struct {
	*Conn
	sndBuf int
	stats  UDPSocketStats
	// ipHeader is the IP header a datagram carries on the wire (20 or 40
	// bytes), for the send buffer's charge.
	ipHeader int
	v4       bool // an AF_INET socket (not IPv6 or dual-stack)
	// dontFragment is IP_PMTUDISC_DO (--dont-fragment): a datagram the
	// link's MTU cannot carry whole is refused with EMSGSIZE, as Linux's
	// ip_append_data does; gVisor sets DF but still fragments what it
	// sends itself (gvisor.dev/issue/5919), so the check is made here.
	dontFragment bool
}

// UDPSocketStats counts what one socket's writes met (engine tasks only).
type UDPSocketStats struct {
	SendWaits  uint64 // writes that waited for room in the send buffer
	SendErrors uint64 // datagrams the stack refused (not sent)
}

// Socket buffer sizes, Linux's defaults (net.core.wmem_default, rmem_default).
const (
	DefaultUDPSndBuf = 212992
	DefaultUDPRcvBuf = 212992
)

// sndBufPoll is how often a write blocked on a full send buffer looks again:
// one full-size frame's time on a gigabit line (1538 bytes with preamble and
// gap), the soonest a frame can leave.
const sndBufPoll = 12304 * emu.Time(1)

func (h *Host) newUDP(proto tcpip.NetworkProtocolNumber, v6only bool) (*UDPConn, error) {
	wq := new(waiter.Queue)
	ep, terr := h.Stack.NewEndpoint(udp.ProtocolNumber, proto, wq)
	if terr != nil {
		return nil, fmt.Errorf("udp socket: %s", terr)
	}
	if proto != ipv4.ProtocolNumber {
		ep.SocketOptions().SetV6Only(v6only)
	}
	ep.SocketOptions().SetReceiveBufferSize(DefaultUDPRcvBuf, false)
	c := &Conn{endpointSocket: endpointSocket{h: h, ep: ep, wq: wq}, rw: h.m.NewWaker(), ww: h.m.NewWaker(), network: "udp", rDeadline: -1, wDeadline: -1}
	c.entry = waiter.NewFunctionEntry(waiter.ReadableEvents|waiter.EventHUp|waiter.EventErr, func(waiter.EventMask) { c.rw.Wake() })
	wq.EventRegister(&c.entry)
	return &UDPConn{Conn: c, sndBuf: DefaultUDPSndBuf, ipHeader: header.IPv4MinimumSize, v4: proto == ipv4.ProtocolNumber}, nil
}

func (u *UDPConn) setAddrs() {
	if a, err := u.ep.GetLocalAddress(); err == nil {
		u.local = &net.UDPAddr{IP: a.Addr.AsSlice(), Port: int(a.Port)}
	}
	if a, err := u.ep.GetRemoteAddress(); err == nil {
		u.remote = &net.UDPAddr{IP: a.Addr.AsSlice(), Port: int(a.Port)}
	}
}

// DialUDP opens a UDP socket connected to addr ("198.18.0.1:5201"), bound to
// localPort (0: any). Call it from an engine task.
func (h *Host) DialUDP(_ context.Context, localPort uint16, addr string) (*UDPConn, error) {
	remote, proto, err := h.dialTarget("dial udp", addr)
	if err != nil {
		return nil, err
	}
	u, err := h.newUDP(proto, false)
	if err != nil {
		return nil, err
	}
	if proto != ipv4.ProtocolNumber {
		u.ipHeader = header.IPv6MinimumSize
	}
	if localPort != 0 {
		if terr := u.ep.Bind(tcpip.FullAddress{NIC: 1, Port: localPort}); terr != nil {
			_ = u.Close()
			return nil, fmt.Errorf("dial udp %s: bind port %d: %s", addr, localPort, terr)
		}
	}
	if terr := u.ep.Connect(remote); terr != nil {
		_ = u.Close()
		return nil, fmt.Errorf("dial udp %s: %s", addr, terr)
	}
	h.settle()
	u.setAddrs()
	return u, nil
}

// ListenUDP opens an unconnected UDP socket on the host's port: IPv4, or
// dual-stack on a host with IPv6, as Listen.
func (h *Host) ListenUDP(port uint16) (*UDPConn, error) {
	proto, v6only, err := h.listenEndpoint(familyAny)
	if err != nil {
		return nil, fmt.Errorf("listen udp :%d: %w", port, err)
	}
	u, err := h.newUDP(proto, v6only)
	if err != nil {
		return nil, err
	}
	if terr := u.ep.Bind(tcpip.FullAddress{NIC: 1, Port: port}); terr != nil {
		_ = u.Close()
		return nil, fmt.Errorf("listen udp :%d: %s", port, terr)
	}
	u.setAddrs()
	u.local = &net.UDPAddr{IP: h.listenAddr(proto).AsSlice(), Port: int(port)}
	return u, nil
}

// SetBuffers sets SO_SNDBUF and SO_RCVBUF (iperf3's -w); 0 keeps a size.
func (u *UDPConn) SetBuffers(snd, rcv int) {
	if snd > 0 {
		u.sndBuf = snd
	}
	if rcv > 0 {
		u.ep.SocketOptions().SetReceiveBufferSize(int64(rcv), true)
	}
}

// Stats returns the socket's write counters.
func (u *UDPConn) Stats() UDPSocketStats { return u.stats }

// waitSendRoom blocks the task while the host's transmit queues hold a send
// buffer's worth of datagrams of n bytes behind an IP header of ipHeader.
func (u *UDPConn) waitSendRoom(n, ipHeader int) error {
	per := linuxmodel.SKBTruesize(n + 8 + ipHeader + 14) // UDP, IP and Ethernet headers
	waited := false
	for {
		if err := u.check("write", true); err != nil {
			return err
		}
		tx, _ := u.h.EP.InFlight()
		if tx == 0 || tx*per < u.sndBuf {
			return nil
		}
		if !waited {
			u.stats.SendWaits++
			waited = true
		}
		u.h.m.Sleep(sndBufPoll)
	}
}

func (u *UDPConn) write(b []byte, to *tcpip.FullAddress, ipHeader int) (int, error) {
	if u.dontFragment && ipHeader+header.UDPMinimumSize+len(b) > int(u.h.mtu) {
		u.stats.SendErrors++
		return 0, u.opError("write", syscall.EMSGSIZE)
	}
	if err := u.waitSendRoom(len(b), ipHeader); err != nil {
		return 0, err
	}
	r := bytes.NewReader(b)
	n, terr := u.ep.Write(r, tcpip.WriteOptions{To: to})
	u.h.settle()
	if terr != nil {
		u.stats.SendErrors++
		return 0, u.opError("write", errors.New(terr.String()))
	}
	return int(n), nil
}

// Write sends one datagram to the connected peer.
func (u *UDPConn) Write(b []byte) (int, error) { return u.write(b, nil, u.ipHeader) }

// WriteTo implements net.PacketConn for UDP addresses (IPv6 ones on a
// socket of a host with IPv6).
func (u *UDPConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	var ip netip.Addr
	ua, ok := addr.(*net.UDPAddr)
	if ok {
		ip, ok = netip.AddrFromSlice(ua.IP)
	}
	if !ok {
		return 0, u.opError("write", fmt.Errorf("not a UDP address: %v", addr))
	}
	ip = ip.Unmap()
	to := tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFromSlice(ip.AsSlice()), Port: uint16(ua.Port)}
	return u.write(b, &to, headerLen(ip))
}

// ReadFrom implements net.PacketConn: one datagram (cut to len(b)) and its
// sender.
func (u *UDPConn) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		if err := u.check("read", false); err != nil {
			return 0, nil, err
		}
		sw := tcpip.SliceWriter(b)
		res, terr := u.ep.Read(&sw, tcpip.ReadOptions{NeedRemoteAddr: true})
		u.h.settle()
		switch terr.(type) {
		case nil:
			a := res.RemoteAddr
			return res.Count, &net.UDPAddr{IP: a.Addr.AsSlice(), Port: int(a.Port)}, nil
		case *tcpip.ErrWouldBlock:
			if err := u.wait("read", u.rw, false); err != nil {
				return 0, nil, err
			}
		default:
			return 0, nil, u.opError("read", errors.New(terr.String()))
		}
	}
}

// Read reads one datagram from the connected peer.
func (u *UDPConn) Read(b []byte) (int, error) {
	n, _, err := u.ReadFrom(b)
	return n, err
}

// DialUDPStream opens a UDP socket on c's host, connected to addr and bound
// to the --cport in ctx: iperf3's UDP streams ride the stack of their
// control connection (iperf3's UDPSockets).
func (c *Conn) DialUDPStream(ctx context.Context, addr string) (net.Conn, error) {
	p, _ := socket.LocalPort(ctx)
	return c.h.DialUDP(ctx, uint16(p), addr)
}

// ListenUDPStream opens an iperf3 server's UDP socket on c's host.
func (c *Conn) ListenUDPStream(_ context.Context, port int) (net.PacketConn, error) {
	return c.h.ListenUDP(uint16(port))
}

// SetDeadline implements net.Conn and net.PacketConn on the virtual clock.
func (u *UDPConn) SetDeadline(t time.Time) error { return u.Conn.SetDeadline(t) }

var (
	_ net.Conn       = (*UDPConn)(nil)
	_ net.PacketConn = (*UDPConn)(nil)
)
