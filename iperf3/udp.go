package iperf3

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"

	"mesonemu/socket"
)

// UDP mode (iperf_udp.c in 3.12). A stream is set up by one 4-byte datagram
// each way; iperf3 writes the magic numbers as host-order C unsigned ints, so
// on the little-endian hosts it runs on the wire carries "9876" and "6789".
var (
	udpConnectMsg   = []byte{0x39, 0x38, 0x37, 0x36} // UDP_CONNECT_MSG 0x36373839
	udpConnectReply = []byte{0x36, 0x37, 0x38, 0x39} // UDP_CONNECT_REPLY 0x39383736
	udpLegacyReply  = []byte{0xb1, 0x68, 0xde, 0x3a} // LEGACY_UDP_CONNECT_REPLY 987654321
)

// udpConnectTimeout is how long a client waits for the set-up reply
// (iperf3's SO_RCVTIMEO of 30 s on the stream socket).
const udpConnectTimeout = 30 * time.Second

// udpEarlyDatagrams bounds the data datagrams a reverse-mode client skips
// while it waits for a set-up reply.
const udpEarlyDatagrams = 64

// udpHeaderLen is the datagram header: seconds, microseconds, sequence.
func udpHeaderLen(counters64 bool) int {
	if counters64 {
		return 16
	}
	return 12
}

// putUDPHeader writes the sender's monotonic time and the sequence number
// at the start of a datagram (big-endian, as iperf_udp_send does).
func putUDPHeader(b []byte, now tcpip.MonotonicTime, seq uint64, counters64 bool) {
	d := now.Sub(tcpip.MonotonicTime{})
	binary.BigEndian.PutUint32(b[0:], uint32(d/time.Second))
	binary.BigEndian.PutUint32(b[4:], uint32(d%time.Second/time.Microsecond))
	if counters64 {
		binary.BigEndian.PutUint64(b[8:], seq)
	} else {
		binary.BigEndian.PutUint32(b[8:], uint32(seq))
	}
}

// parseUDPHeader reads a datagram's send time (seconds) and sequence number;
// ok is false for a datagram too short to hold the header.
func parseUDPHeader(b []byte, counters64 bool) (sent float64, seq uint64, ok bool) {
	if len(b) < udpHeaderLen(counters64) {
		return 0, 0, false
	}
	sent = float64(binary.BigEndian.Uint32(b[0:])) + float64(binary.BigEndian.Uint32(b[4:]))/1e6
	if counters64 {
		seq = binary.BigEndian.Uint64(b[8:])
	} else {
		seq = uint64(binary.BigEndian.Uint32(b[8:]))
	}
	return sent, seq, true
}

// udpCounters is one UDP stream's datagram accounting. The sender counts
// sequence numbers used; the receiver keeps iperf_udp_recv's highest sequence
// seen, lost, out-of-order and RFC 1889 jitter. Touched by the stream's
// activity and read by the test loop.
type udpCounters struct {
	mu          sync.Mutex
	sent        int64 // sender: sequence numbers used (a failed send uses one)
	max         int64 // receiver: highest sequence number seen
	lost, ooo   int64
	jitter      float64 // seconds
	prevTransit float64
	got         bool  // a datagram was counted (the first sets prevTransit)
	malformed   int64 // datagrams too short for the header (not counted)
}

// udpTotals is a copy of the counters at one moment.
type udpTotals struct {
	packets   int64 // sender: sent; receiver: highest sequence seen
	lost, ooo int64
	jitter    float64
}

func (u *udpCounters) nextSeq() uint64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sent++
	return uint64(u.sent)
}

// arrive accounts one datagram read in TEST_RUNNING at time now (seconds on
// the receiver's clock).
func (u *udpCounters) arrive(b []byte, now float64, counters64 bool) bool {
	sent, seq, ok := parseUDPHeader(b, counters64)
	u.mu.Lock()
	defer u.mu.Unlock()
	if !ok {
		u.malformed++
		return false
	}
	// Sequence numbers are C ints in 3.12: a forged huge one cannot make the
	// loss count overflow here.
	s := int64(seq & (1<<62 - 1))
	if s >= u.max+1 {
		if s > u.max+1 {
			u.lost += s - 1 - u.max
		}
		u.max = s
	} else {
		u.ooo++
		if u.lost > 0 {
			u.lost--
		}
	}
	transit := now - sent
	if !u.got {
		u.prevTransit, u.got = transit, true
	}
	d := transit - u.prevTransit
	if d < 0 {
		d = -d
	}
	u.prevTransit = transit
	u.jitter += (d - u.jitter) / 16
	return true
}

func (u *udpCounters) totals(sender bool) udpTotals {
	u.mu.Lock()
	defer u.mu.Unlock()
	t := udpTotals{packets: u.max, lost: u.lost, ooo: u.ooo, jitter: u.jitter}
	if sender {
		t = udpTotals{packets: u.sent}
	}
	return t
}

// resetJitter is iperf_reset_stats at the end of the omit period.
func (u *udpCounters) resetJitter() {
	u.mu.Lock()
	u.jitter = 0
	u.mu.Unlock()
}

// monoSeconds is a monotonic time in seconds, as the datagram header has it.
func monoSeconds(t tcpip.MonotonicTime) float64 {
	return t.Sub(tcpip.MonotonicTime{}).Seconds()
}

// pacing is iperf3's sender throttle (iperf_check_throttle): a stream may
// send while its average rate since the test started is below rate, checked
// after every datagram and again every timer period.
type pacing struct {
	rate  uint64 // bit/s; 0: unlimited
	burst int
	timer time.Duration
}

func (p testParams) pacing() pacing {
	return pacing{rate: p.Bandwidth, burst: p.Burst, timer: time.Duration(p.pacingTimer()) * time.Microsecond}
}

// green reports whether a stream that has sent bytes since start may send
// at now.
func (p pacing) green(bytes uint64, start, now tcpip.MonotonicTime) bool {
	if p.rate == 0 {
		return true
	}
	secs := now.Sub(start).Seconds()
	if secs <= 0 {
		return bytes == 0 // iperf3 divides by a tiny time: only the first is green
	}
	return float64(bytes)*8/secs < float64(p.rate)
}

// round is how many blocks a green stream sends in one pass: the burst, 10
// unthrottled (iperf3's multisend) or 1.
func (p pacing) round() int {
	switch {
	case p.burst > 0:
		return p.burst
	case p.rate == 0:
		return 10
	}
	return 1
}

// pace waits for a stream's next pacing check: the timer period on the test
// clock.
func (t *transfer) pace(w coop.Waker, d time.Duration) {
	tm := t.clock.AfterFunc(d, w.Wake)
	w.Wait()
	tm.Stop()
}

// sendUDP sends datagrams of len(base) bytes, each with its own header, at
// the pace the test asks for. A datagram the socket refuses keeps its
// sequence number, so the receiver counts it lost (3.12 skips ENOBUFS the
// same way); any other error ends the stream.
func (t *transfer) sendUDP(st *stream, base []byte) {
	defer t.senderDone()
	buf := append([]byte(nil), base...)
	size := uint64(len(buf))
	w := t.sched.NewWaker()
	p := t.pacing
	for !t.stop.Load() && !t.fileDone.Load() {
		if !p.green(st.moved.Load(), st.fixedStart, t.clock.NowMonotonic()) {
			t.pace(w, p.timer)
			continue
		}
		for i := 0; i < p.round() && !t.stop.Load(); i++ {
			if t.limit > 0 && t.reserved.Add(size)-size >= t.limit {
				return
			}
			if st.file != nil && st.file.fill(buf) == 0 {
				t.fileDone.Store(true)
				return
			}
			putUDPHeader(buf, t.clock.NowMonotonic(), st.udp.nextSeq(), t.counters64)
			n, err := st.conn.Write(buf)
			if err != nil && !errors.Is(err, errNoBuffers) {
				if !t.stop.Load() {
					t.report(streamError(CodeStreamWrite, err))
				}
				return
			}
			st.moved.Add(uint64(n))
			t.progress.Add(uint64(n))
			if p.burst == 0 && !p.green(st.moved.Load(), st.fixedStart, t.clock.NowMonotonic()) {
				break
			}
		}
	}
}

// errNoBuffers marks a datagram the sending socket dropped (ENOBUFS).
var errNoBuffers = errors.New("no buffer space available")

// receiveUDP counts the datagrams a client's stream socket receives.
func (t *transfer) receiveUDP(st *stream) {
	buf := make([]byte, maxUDPBlockSize)
	for {
		n, err := st.conn.Read(buf)
		if err != nil {
			if !t.stop.Load() && !errors.Is(err, net.ErrClosed) {
				t.report(streamError(CodeStreamRead, err))
			}
			return
		}
		t.countUDP(st, buf[:n])
	}
}

// countUDP accounts a datagram that arrived on a receiving stream while the
// test runs.
func (t *transfer) countUDP(st *stream, b []byte) {
	if t.stop.Load() {
		return
	}
	if st.file != nil {
		st.file.write(b)
	}
	before := st.udp.totals(false).packets
	if !st.udp.arrive(b, monoSeconds(t.clock.NowMonotonic()), t.counters64) {
		return
	}
	st.moved.Add(uint64(len(b)))
	t.progress.Add(uint64(len(b)))
	// A -n or -k reverse test ends when the sequence numbers say the
	// senders are through: lost datagrams never arrive.
	ahead := st.udp.totals(false).packets - before
	if t.limit > 0 && ahead > 0 && t.received.Add(uint64(ahead)*uint64(len(b))) >= t.limit &&
		t.limitHit.CompareAndSwap(false, true) {
		t.post(limitReached{})
	}
}

// connectUDP is the client's side of one stream's set-up: the 4-byte
// message, then the server's reply within udpConnectTimeout. A reverse-mode
// client skips data datagrams that overtake the reply.
func connectUDP(conn net.Conn, clock tcpip.Clock) error {
	if _, err := conn.Write(udpConnectMsg); err != nil {
		return fail(CodeStreamWrite, err)
	}
	_ = conn.SetReadDeadline(clock.Now().Add(udpConnectTimeout))
	defer func() { _ = conn.SetReadDeadline(time.Time{}) }()
	buf := make([]byte, maxUDPBlockSize)
	for i := 0; i < udpEarlyDatagrams; i++ {
		n, err := conn.Read(buf)
		if err != nil {
			return fail(CodeStreamRead, err)
		}
		if n != 4 {
			continue
		}
		if string(buf[:4]) == string(udpConnectReply) || string(buf[:4]) == string(udpLegacyReply) {
			return nil
		}
		return fail(CodeStreamRead, fmt.Errorf("bad UDP connect reply % x", buf[:4]))
	}
	return fail(CodeStreamRead, errors.New("no UDP connect reply among the first datagrams"))
}

// UDPSockets is implemented by a control connection whose transport has UDP
// sockets too (a netstack connection): a UDP test's streams then ride the
// same stack as its control connection. Host TCP connections use the
// host's UDP; any other transport must be given DialUDP / ListenUDP.
type UDPSockets interface {
	DialUDPStream(ctx context.Context, addr string) (net.Conn, error)
	ListenUDPStream(ctx context.Context, port int) (net.PacketConn, error)
}

var errNoUDP = errors.New("this transport has no UDP sockets")

// udpDialer picks the UDP dialer for a test whose control connection is
// ctrl: the one given, the control connection's stack's, or the host's.
func udpDialer(d socket.DialFunc, ctrl net.Conn) (socket.DialFunc, error) {
	return udpSocketsFor(d, d != nil, ctrl, func(u UDPSockets) socket.DialFunc { return u.DialUDPStream }, socket.HostDialUDP)
}

// udpListenFunc opens the server's UDP socket on a port.
type udpListenFunc = func(context.Context, int) (net.PacketConn, error)

// udpListenerFor is udpDialer for the server.
func udpListenerFor(l udpListenFunc, ctrl net.Conn) (udpListenFunc, error) {
	return udpSocketsFor(l, l != nil, ctrl, func(u UDPSockets) udpListenFunc { return u.ListenUDPStream }, socket.HostListenUDP)
}

// udpSocketsFor is given if set, else the control connection's stack's
// (from its UDPSockets) or, over a host socket, host.
func udpSocketsFor[F any](given F, set bool, ctrl net.Conn, stack func(UDPSockets) F, host F) (F, error) {
	if set {
		return given, nil
	}
	switch c := ctrl.(type) {
	case UDPSockets:
		return stack(c), nil
	case *net.TCPConn:
		return host, nil
	}
	var none F
	return none, fail(CodeProtocol, errNoUDP)
}
