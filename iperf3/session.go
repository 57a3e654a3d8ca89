package iperf3

import (
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/socket"
)

// session is the part of a test both roles share: the streams, their interval
// statistics, and the Result being built. Only the test's loop goroutine calls
// its methods; the data goroutines touch nothing but stream.moved.
type session struct {
	role    byte // 'c' or 's', as iperf3's test->role
	clock   tcpip.Clock
	out     *printer // nil when the output is JSON or discarded
	res     *Result
	params  testParams
	sending bool // iperf3's mode == SENDER
	// senderHasRetrans is iperf3's test->sender_has_retransmits: it picks the
	// Retr/Cwnd columns and, on a receiving client, becomes the server's
	// value once results are exchanged.
	senderHasRetrans int
	peerHasRetrans   int           // the peer's sender_has_retransmits, once exchanged (1 or 0)
	interval         time.Duration // 0: no interval reports
	tcpInfo          socket.TCPInfoFunc
	congestion       string // local congestion_used, "" if unknown
	serverOutput     func() // the client's --get-server-output print, once in the summary
	streams          []*stream
	omitting         bool
	peer             *PeerResults
	fileName         string // -F: every data stream's file
	unit             byte   // -f: the bitrates' unit (0: adaptive bits)
	verbose          bool   // -V, text output only
	buffersNoted     bool   // Start's sndbuf/rcvbuf_actual are read (noteBuffers)
}

type stream struct {
	id     int // 1, 3, 4, 5, ... (iperf_add_stream)
	socket int // the "[  5]" number iperf3 prints (its file descriptor)
	sender bool
	conn   net.Conn
	file   *diskFile // -F

	// moved counts bytes written (sender) or read (receiver); the only field
	// the data goroutines touch.
	moved atomic.Uint64

	start, end tcpip.MonotonicTime // result start_time; end of last interval
	snap       uint64              // moved at the last interval boundary
	omitBase   uint64              // moved when the omit period ended
	final      uint64              // moved when the test ended
	frozen     bool
	samples    int
	last       sample
	tcp        tcpTotals

	peer    PeerStream
	hasPeer bool

	// UDP streams only (udp.go, udpreport.go).
	udp         *udpCounters
	viaListener bool                // a server stream: the listener counts its datagrams
	fixedStart  tcpip.MonotonicTime // the throttle's start (never reset)
	snapUDP     udpTotals           // at the last interval boundary
	omitUDP     udpTotals           // when the omit period ended
	finalUDP    udpTotals           // when the test ended
}

type sample struct {
	start, end tcpip.MonotonicTime
	bytes      uint64
	omitted    bool
	first      bool
	tcp        IntervalTCPInfo
	udp        udpTotals // the interval's packets and lost; jitter at its end
}

type tcpTotals struct {
	prevTotalRetrans uint64
	retrans          uint64
	maxCwnd          uint64
	maxSndWnd        uint64
	maxRTT, minRTT   uint32
	sumRTT, countRTT uint64
}

// secs converts a duration to seconds with iperf3's microsecond resolution.
func secs(d time.Duration) float64 { return float64(d/time.Microsecond) / 1e6 }

// addStream registers a connected data stream and reports it the way
// iperf3's connect_msg does.
func (s *session) addStream(conn net.Conn, sender bool) *stream {
	n := len(s.streams)
	st := &stream{id: 1, sender: sender, conn: conn, socket: s.socketNumber(n)}
	if s.params.UDP {
		st.udp = &udpCounters{}
	}
	if n > 0 {
		st.id = n + 2 // iperf3 numbers streams 1, 3, 4, 5, ...
	}
	s.streams = append(s.streams, st)
	lh, lp := splitAddr(conn.LocalAddr())
	rh, rp := splitAddr(conn.RemoteAddr())
	s.res.Start.Connected = append(s.res.Start.Connected, Connected{
		Socket: st.socket, LocalHost: lh, LocalPort: lp, RemoteHost: rh, RemotePort: rp,
	})
	s.out.printf("[%3d] local %s port %d connected to %s port %d\n", st.socket, lh, lp, rh, rp)
	return st
}

// socketNumber mimics the file descriptors a Linux iperf3 3.12 prints: the
// client's streams get 5, 7, 9, ... (each stream also holds a temp-file fd
// for its buffer), the server's 5, 8, 10, ... (plus one /dev/urandom fd
// opened with the first stream). They only label output lines.
func (s *session) socketNumber(i int) int {
	if s.role == 'c' {
		return 5 + 2*i
	}
	if i == 0 {
		return 5
	}
	return 6 + 2*i
}

// splitAddr returns host and port of a TCP address, with IPv4-mapped IPv6
// addresses shown as IPv4 as iperf3 does.
func splitAddr(a net.Addr) (string, int) {
	if a == nil {
		return "", 0
	}
	if t, ok := a.(*net.TCPAddr); ok {
		if v4 := t.IP.To4(); v4 != nil {
			return v4.String(), t.Port
		}
		return t.IP.String(), t.Port
	}
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String(), 0
	}
	p, _ := strconv.Atoi(port)
	return host, p
}

// startTest marks every stream's start (iperf_init_test) and records
// test_start.
func (s *session) startTest(now tcpip.MonotonicTime) {
	for _, st := range s.streams {
		st.start, st.end, st.fixedStart = now, now, now
	}
	s.omitting = s.params.Omit > 0
	reverse := 0
	if s.params.Reverse {
		reverse = 1
	}
	protocol := "TCP"
	if s.params.UDP {
		protocol = "UDP"
	}
	s.res.Start.TestStart = &TestStart{
		Protocol: protocol, NumStreams: s.params.Parallel, BlkSize: s.params.Len,
		Omit: s.params.Omit, Duration: s.params.Time, Bytes: s.params.Num,
		Blocks: s.params.BlockCount, Reverse: reverse, TOS: s.params.TOS, TargetBitrate: int64(s.params.Bandwidth),
	}
}

// takeStats closes the current interval of every stream at now
// (iperf_stats_callback). With final set it also freezes the byte counts the
// summary and the results exchange use.
func (s *session) takeStats(now tcpip.MonotonicTime, final bool) {
	for _, st := range s.streams {
		if st.frozen {
			continue
		}
		moved := st.moved.Load()
		if final {
			st.final, st.frozen = moved, true
		}
		smp := sample{start: st.end, end: now, bytes: moved - st.snap, omitted: s.omitting, first: st.samples == 0}
		if s.senderHasRetrans == 1 && st.sender {
			smp.tcp = s.sampleTCP(st)
		}
		if st.udp != nil {
			u := st.udp.totals(st.sender)
			if final {
				st.finalUDP = u
			}
			smp.udp = udpTotals{packets: u.packets - st.snapUDP.packets, lost: u.lost - st.snapUDP.lost, jitter: u.jitter}
			st.snapUDP = u
		}
		st.last = smp
		st.samples++
		st.snap = moved
		st.end = now
	}
}

// sampleTCP reads the stream's TCP statistics and folds them into the
// stream's totals, as iperf3 does for a sender with TCP_INFO.
func (s *session) sampleTCP(st *stream) IntervalTCPInfo {
	if s.tcpInfo == nil {
		return IntervalTCPInfo{}
	}
	info, ok := s.tcpInfo(st.conn)
	if !ok {
		return IntervalTCPInfo{}
	}
	t := &st.tcp
	var delta uint64
	if uint64(info.Total_retrans) > t.prevTotalRetrans {
		delta = uint64(info.Total_retrans) - t.prevTotalRetrans
	}
	t.prevTotalRetrans = uint64(info.Total_retrans)
	t.retrans += delta
	t.maxCwnd = max(t.maxCwnd, info.CwndBytes())
	t.maxSndWnd = max(t.maxSndWnd, uint64(info.Snd_wnd))
	t.maxRTT = max(t.maxRTT, info.Rtt)
	if t.minRTT == 0 || info.Rtt < t.minRTT {
		t.minRTT = info.Rtt
	}
	t.sumRTT += uint64(info.Rtt)
	t.countRTT++
	return IntervalTCPInfo{
		Retransmits: delta, SndCwnd: info.CwndBytes(), SndWnd: uint64(info.Snd_wnd),
		RTT: info.Rtt, RTTVar: info.Rttvar, PMTU: info.Pmtu,
	}
}

// endOmit drops everything measured so far (iperf_reset_stats): streams
// restart their clocks and counts at now; retransmits count from here.
func (s *session) endOmit(now tcpip.MonotonicTime) {
	s.omitting = false
	for _, st := range s.streams {
		moved := st.moved.Load()
		st.start, st.end = now, now
		st.snap, st.omitBase = moved, moved
		if s.senderHasRetrans == 1 && st.sender && s.tcpInfo != nil {
			if info, ok := s.tcpInfo(st.conn); ok {
				st.tcp.prevTotalRetrans = uint64(info.Total_retrans)
			}
		}
		st.tcp.retrans = 0
		if st.udp != nil {
			st.omitUDP = st.udp.totals(st.sender)
			st.snapUDP = st.omitUDP
			st.udp.resetJitter()
		}
	}
}

// ownUDP is this side's datagram count, lost, out-of-order and jitter, at
// the end of the test once it ended (raw: the omit period included, as
// 3.12 exchanges them).
func (st *stream) ownUDP() udpTotals {
	if st.frozen {
		return st.finalUDP
	}
	return st.udp.totals(st.sender)
}

// allBytes is what this side moved on st, the omit period included.
func (st *stream) allBytes() uint64 {
	if st.frozen {
		return st.final
	}
	return st.moved.Load()
}

// ownBytes is what this side moved on st after the omit period.
func (st *stream) ownBytes() uint64 {
	moved := st.final
	if !st.frozen {
		moved = st.moved.Load()
	}
	return moved - st.omitBase
}

// duration is the stream's measured time, start to last interval end.
func (st *stream) duration() time.Duration { return st.end.Sub(st.start) }

// localResults is what this side tells its peer (send_results).
func (s *session) localResults() PeerResults {
	r := PeerResults{SenderHasRetransmits: s.senderHasRetrans, CongestionUsed: s.congestion}
	if !s.sending {
		r.SenderHasRetransmits = -1
	}
	for _, st := range s.streams {
		retrans := int64(-1)
		if st.sender && s.senderHasRetrans == 1 {
			retrans = int64(st.tcp.retrans)
		}
		ps := PeerStream{
			ID: st.id, Bytes: st.ownBytes(), Retransmits: retrans,
			StartTime: 0, EndTime: secs(st.duration()), HasTimes: true,
		}
		if st.udp != nil {
			u := st.ownUDP()
			ps.Jitter, ps.Errors, ps.Packets = u.jitter, u.lost, u.packets
		}
		r.Streams = append(r.Streams, ps)
	}
	return r
}

// applyPeer takes in the peer's results (get_results).
func (s *session) applyPeer(r PeerResults) error {
	for _, ps := range r.Streams {
		var st *stream
		for _, cand := range s.streams {
			if cand.id == ps.ID {
				st = cand
				break
			}
		}
		if st == nil {
			return fail(CodeStreamID, fmt.Errorf("peer reported stream id %d", ps.ID))
		}
		st.peer, st.hasPeer = ps, true
	}
	if r.SenderHasRetransmits == 1 {
		s.peerHasRetrans = 1
	}
	if !s.sending {
		s.senderHasRetrans = s.peerHasRetrans
	}
	s.peer = &r
	s.res.Peer = &r
	return nil
}

// onTick reports the interval that is due and sets the next report deadline
// (skipping any the loop was too late for). Client and server alike.
func (s *session) onTick(tl *timeline, now tcpip.MonotonicTime) {
	s.takeStats(now, false)
	s.reportInterval()
	next := tl.at[evTick]
	for !next.After(now) {
		next = next.Add(s.interval)
	}
	tl.set(evTick, next)
}

// onOmit ends the omit period and restarts the reports from its end.
func (s *session) onOmit(tl *timeline, now tcpip.MonotonicTime) {
	at := tl.at[evOmit]
	tl.clear(evOmit)
	s.endOmit(now)
	if s.interval > 0 {
		tl.set(evTick, at.Add(s.interval))
	}
}
