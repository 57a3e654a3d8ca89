package netstack

import (
	"encoding/binary"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/emu"
)

// TxCompleter is a FrameNIC that reports when the frames it took are freed
// (the stmmac driver's TX clean). A host on such a card runs TCP Small Queues.
type TxCompleter interface {
	SetTxCompletion(func(frames int))
}

// TCP Small Queues, as Linux v5.4's tcp_small_queue_check decides it: a TCP
// flow may have at most
//
//	limit = max(2 * skb->truesize, sk_pacing_rate >> sk_pacing_shift)
//
// bytes of skb memory (sk_wmem_alloc) below the socket, in the qdisc and the
// driver's TX ring, until TX completion frees them; the flow waits otherwise,
// unless it has nothing unacknowledged (the "rtx queue empty" exception).
// This is what couples a NIC's TX completion latency (stmmac's IC every
// tx_coal_frames frames, else its coalescing timer) to TCP's sending.
//
// gVisor has no TSQ, so the endpoint applies it at the link layer, where the
// flow's packets pass. The inputs Linux reads from the socket are measured
// there too, without reaching into gVisor's locks:
//   - srtt: smoothed (1/8 gain, as tcp_rtt_estimator) from the time between a
//     segment leaving the stack and the ACK that covers it, retransmitted
//     ranges excluded (Karn). Microsecond-exact, as Linux's; gVisor's own
//     estimate comes from millisecond TCP timestamps.
//   - the window: max(cwnd, packets_out) is taken as the bytes in flight
//     (highest sequence sent minus highest acknowledged).
//   - sk_pacing_rate = ratio * window / srtt with tcp_pacing_ss_ratio 200 %
//     until the flow's first retransmission and tcp_pacing_ca_ratio 120 %
//     after it (gVisor's CUBIC leaves slow start at its first loss).
//   - skb->truesize: the flow's next skb as tcp_tso_autosize sizes it (GSO,
//     since stmmac 3.70a has no TSO): the bytes of one sk_pacing_shift period,
//     at least tcp_min_tso_segs = 2 segments, at most 64 KiB; each segment
//     counted at skbTruesize.
//
// Memory is accounted per frame as skbTruesize(frame length).
const (
	pacingShift       = 10  // sk_pacing_shift: ~1 ms of the pacing rate
	pacingSSRatio     = 2.0 // tcp_pacing_ss_ratio 200 %
	pacingCARatio     = 1.2 // tcp_pacing_ca_ratio 120 %
	minTSOSegs        = 2   // tcp_min_tso_segs
	gsoMaxSize        = 65536
	skbDataAlignBytes = 64 // SKB_DATA_ALIGN on a 32-byte cache line, rounded up
	// skbOverhead is SKB_TRUESIZE(0) on 32-bit ARM: struct sk_buff plus struct
	// skb_shared_info, each cache-aligned (approximately 192 + 320 bytes).
	skbOverhead = 512
)

// skbTruesize approximates the truesize of an skb holding an n-byte frame: a
// kmalloc'ed head (power-of-two size class) with NET_SKB_PAD headroom, plus
// the skb's own structures.
func skbTruesize(n int) int {
	data := n + skbDataAlignBytes
	size := 64
	for size < data {
		size <<= 1
	}
	return size + skbOverhead
}

type flowKey struct {
	local, remote [4]byte
	lport, rport  uint16
}

// sentMark is the time a segment ending at end left the stack (RTT sampling).
type sentMark struct {
	end uint32
	at  time.Duration
}

// seqRange is the sequence space [seq, end) one data frame carries.
type seqRange struct{ seq, end uint32 }

type tsqFlow struct {
	wmem     int            // truesize of this flow's frames below the socket
	inHost   fifo[seqRange] // those frames, oldest first (qdisc, then the ring)
	una, nxt uint32
	started  bool
	srtt     time.Duration
	lossSeen bool
	marks    fifo[sentMark] // segments awaiting their ACK, for RTT samples
	sent     uint64         // payload bytes admitted
	held     fifo[*txFrame] // frames waiting for TX completion, in order
}

// stillInHost is skb_still_in_host_queue: the original of a retransmission
// has not been freed by TX completion yet.
func (f *tsqFlow) stillInHost(r seqRange) bool {
	for _, h := range f.inHost.live() {
		if seqAfter(r.end, h.seq) && seqAfter(h.end, r.seq) {
			return true
		}
	}
	return false
}

// leaveHost forgets a frame that was freed (normally the oldest).
func (f *tsqFlow) leaveHost(r seqRange) {
	for i, h := range f.inHost.live() {
		if h == r {
			f.inHost.removeAt(i)
			return
		}
	}
}

// pending is one frame handed to the card, freed when the card completes it.
type pending struct {
	flow     *tsqFlow // nil: not a tracked TCP data frame
	truesize int
	r        seqRange
}

// smallQueues is guarded by its endpoint's lock. A frame over its flow's limit
// is not refused to the stack (gVisor's writers must never block: the engine's
// barrier waits for them) but held below the socket, in order, and let go when
// TX completion or an ACK brings the flow under its limit again.
type smallQueues struct {
	m     *emu.Machine
	mss   int
	flows map[flowKey]*tsqFlow
	order []*tsqFlow    // flows in the order they appeared (release order)
	inNIC fifo[pending] // frames the card holds, oldest first
	out   []*txFrame    // frames released by the last change
	waits uint64        // segments that waited for TX completion (TSQ_THROTTLED)
	held  uint64        // retransmissions held while their original was in the host
	// measureOnly: nothing is held back; the flows' RTTs are still measured
	// (compare --ablate tsq).
	measureOnly bool
}

func newSmallQueues(m *emu.Machine, mtu uint32) *smallQueues {
	return &smallQueues{m: m, mss: int(mtu) - header.IPv4MinimumSize - header.TCPMinimumSize - 12, flows: map[flowKey]*tsqFlow{}}
}

func (q *smallQueues) now() time.Duration { return q.m.Now().Duration() }

// tcpSegment is what the queue needs of an Ethernet/IPv4/TCP frame.
type tcpSegment struct {
	key      flowKey // from the frame's sender's point of view
	seq, ack uint32
	payload  int
	hasACK   bool
	// pureACK: only the ACK flag, no data, no SACK blocks (pcacks.go).
	pureACK bool
}

// hasSACK reports whether TCP options carry SACK blocks (kind 5).
func hasSACK(opts []byte) bool {
	for i := 0; i < len(opts); {
		switch kind := opts[i]; {
		case kind == 0: // end of options
			return false
		case kind == 1: // no-op
			i++
		case i+1 >= len(opts) || opts[i+1] < 2:
			return false // malformed: let it through as it is
		case kind == 5:
			return true
		default:
			i += int(opts[i+1])
		}
	}
	return false
}

// parseTCP reads the IPv4 and TCP headers of an Ethernet frame.
func parseTCP(frame []byte) (tcpSegment, bool) {
	const eth = header.EthernetMinimumSize
	if len(frame) < eth+header.IPv4MinimumSize || binary.BigEndian.Uint16(frame[12:14]) != uint16(header.IPv4ProtocolNumber) {
		return tcpSegment{}, false
	}
	ip := header.IPv4(frame[eth:])
	if !ip.IsValid(len(frame)-eth) || ip.Protocol() != uint8(header.TCPProtocolNumber) || ip.FragmentOffset() != 0 || ip.More() {
		return tcpSegment{}, false
	}
	ihl := int(ip.HeaderLength())
	total := int(ip.TotalLength())
	if total > len(frame)-eth || total < ihl+header.TCPMinimumSize {
		return tcpSegment{}, false
	}
	tcp := header.TCP(frame[eth+ihl : eth+total])
	off := int(tcp.DataOffset())
	if off < header.TCPMinimumSize || off > len(tcp) {
		return tcpSegment{}, false
	}
	var seg tcpSegment
	seg.key.local, seg.key.remote = ip.SourceAddress().As4(), ip.DestinationAddress().As4()
	seg.key.lport, seg.key.rport = tcp.SourcePort(), tcp.DestinationPort()
	seg.seq, seg.ack = tcp.SequenceNumber(), tcp.AckNumber()
	seg.payload = len(tcp) - off
	seg.hasACK = tcp.Flags()&header.TCPFlagAck != 0
	seg.pureACK = tcp.Flags() == header.TCPFlagAck && seg.payload == 0 && !hasSACK(tcp[header.TCPMinimumSize:off])
	return seg, true
}

// seqAfter reports a > b in sequence space.
func seqAfter(a, b uint32) bool { return int32(a-b) > 0 }

// limit is the flow's TSQ limit in bytes of truesize. Lock held.
func (q *smallQueues) limit(f *tsqFlow) int {
	if f.srtt <= 0 {
		return 1 << 30 // sk_pacing_rate is ~0U until the first RTT sample
	}
	ratio := pacingSSRatio
	if f.lossSeen {
		ratio = pacingCARatio
	}
	window := max(int(f.nxt-f.una), q.mss)
	rate := ratio * float64(window) / f.srtt.Seconds() // bytes per second
	perShift := int(rate) >> pacingShift
	segs := max(min(perShift, gsoMaxSize)/q.mss, minTSOSegs)
	skb := segs * skbTruesize(q.mss+header.EthernetMinimumSize+header.IPv4MinimumSize+header.TCPMinimumSize+12)
	return max(2*skb, perShift)
}

// offer is called for every TCP data frame the stack writes. It reports
// whether the frame may go to the qdisc now; otherwise it is held (ready
// returns it later).
func (q *smallQueues) offer(tf *txFrame) bool {
	f := q.flows[tf.seg.key]
	if f == nil {
		f = &tsqFlow{una: tf.seg.seq, nxt: tf.seg.seq}
		q.flows[tf.seg.key] = f
		q.order = append(q.order, f)
	}
	if f.held.len() > 0 || !q.admit(f, tf) {
		f.held.push(tf)
		return false
	}
	return true
}

// admit decides for the flow's next frame, and does its bookkeeping if it
// may go.
func (q *smallQueues) admit(f *tsqFlow, tf *txFrame) bool {
	seg := tf.seg
	end := seg.seq + uint32(seg.payload)
	r := seqRange{seg.seq, end}
	// A retransmission waits while its original is still below the socket:
	// Linux's __tcp_retransmit_skb returns -EBUSY then (the clone is not
	// freed; TCPSpuriousRtxHostQueues) and tries again after TX completion.
	// With stmmac's TX coalescing that is the next IC frame or the timer.
	retrans := f.started && seqAfter(f.nxt, seg.seq)
	switch {
	case q.measureOnly:
	case retrans && f.stillInHost(r):
		count(&tf.held, &q.held)
		return false
	case f.wmem > 0 && f.una != f.nxt && f.wmem > q.limit(f):
		count(&tf.throttled, &q.waits)
		return false
	}
	if !f.started || seqAfter(end, f.nxt) {
		if f.started && seqAfter(f.nxt, seg.seq) {
			f.marks.reset() // partly old data: no clean RTT sample
			f.lossSeen = true
		} else {
			f.marks.push(sentMark{end: end, at: q.now()})
		}
		f.nxt, f.started = end, true
	} else {
		// A retransmission: its ACK would not tell which copy it answers.
		f.lossSeen = true
		f.marks.reset()
	}
	ts := skbTruesize(len(tf.b))
	f.wmem += ts
	f.inHost.push(r)
	f.sent += uint64(seg.payload)
	tf.p = pending{flow: f, truesize: ts, r: r}
	return true
}

// count counts the first wait of a kind for one frame.
func count(counted *bool, counter *uint64) {
	if !*counted {
		*counted = true
		*counter++
	}
}

// ready returns the held frames that may go now, flow by flow in the order the
// flows appeared (valid until the next call).
func (q *smallQueues) ready() []*txFrame {
	q.out = q.out[:0]
	for _, f := range q.order {
		for f.held.len() > 0 && q.admit(f, f.held.live()[0]) {
			q.out = append(q.out, f.held.popFront(1)[0])
		}
	}
	return q.out
}

// heldFrames is how many frames wait below the sockets.
func (q *smallQueues) heldFrames() int {
	n := 0
	for _, f := range q.order {
		n += f.held.len()
	}
	return n
}

// toNIC moves a frame from the queue to the card's ring, before the card is
// called, so that a completion can never overtake it.
func (q *smallQueues) toNIC(p pending) { q.inNIC.push(p) }

// notTaken undoes toNIC for the frame the card just refused.
func (q *smallQueues) notTaken() {
	if n := q.inNIC.len(); n > 0 {
		q.release(q.inNIC.live()[n-1])
		q.inNIC.removeAt(n - 1)
	}
}

func (q *smallQueues) release(p pending) {
	if p.flow != nil {
		p.flow.wmem -= p.truesize
		p.flow.leaveHost(p.r)
	}
}

// completed is the card's TX completion: the oldest frames are freed.
func (q *smallQueues) completed(frames int) {
	for _, p := range q.inNIC.popFront(frames) {
		q.release(p)
	}
}

// received looks at every frame the stack receives for ACKs of tracked flows:
// they move snd_una and give RTT samples.
func (q *smallQueues) received(frame []byte) {
	seg, ok := parseTCP(frame)
	if !ok || !seg.hasACK {
		return
	}
	key := flowKey{local: seg.key.remote, remote: seg.key.local, lport: seg.key.rport, rport: seg.key.lport}
	f := q.flows[key]
	if f == nil || !seqAfter(seg.ack, f.una) || seqAfter(seg.ack, f.nxt) {
		return
	}
	f.una = seg.ack
	covered := 0
	for _, m := range f.marks.live() {
		if seqAfter(m.end, seg.ack) {
			break
		}
		covered++
	}
	if covered > 0 {
		// tcp_clean_rtx_queue's seq_rtt: from the oldest segment newly acked.
		rtt := q.now() - f.marks.live()[0].at
		if f.srtt == 0 {
			f.srtt = rtt
		} else {
			f.srtt += (rtt - f.srtt) / 8
		}
		f.marks.popFront(covered)
	}
}

// close forgets the held frames (the endpoint counted them).
func (q *smallQueues) close() {
	for _, f := range q.order {
		f.held.reset()
	}
}

// SmallQueueStats is what TCP Small Queues did on one host.
type SmallQueueStats struct {
	// Waits counts the times a flow's next segment had to wait for TX
	// completion to free memory below the socket (TSQ_THROTTLED).
	Waits uint64
	// HeldRetransmits counts retransmissions that waited because the frame
	// they repeat was still in the qdisc or the TX ring (Linux's
	// TCPSpuriousRtxHostQueues).
	HeldRetransmits uint64
	// SRTT is the smoothed round-trip time, measured at the link layer in
	// microsecond resolution, of the flow that sent the most data: the path's
	// real RTT under load, next to gVisor's own estimate, which comes from
	// millisecond TCP timestamps.
	SRTT time.Duration
}

func (q *smallQueues) stats() SmallQueueStats {
	st := SmallQueueStats{Waits: q.waits, HeldRetransmits: q.held}
	var most uint64
	for _, f := range q.order {
		if f.sent > most {
			most, st.SRTT = f.sent, f.srtt
		}
	}
	return st
}
