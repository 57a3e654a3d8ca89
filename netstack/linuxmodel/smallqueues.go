package linuxmodel

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/emu"
	"mesonemu/netstack/internal/fifo"
	"mesonemu/netstack/link"
	"mesonemu/netstack/tcpseg"
)

// TCP Small Queues, as Linux v5.4's tcp_small_queue_check decides it: a TCP
// flow may have at most max(2 * skb->truesize, sk_pacing_rate >>
// sk_pacing_shift) bytes of skb memory in the qdisc and the card's TX ring
// until TX completion frees them. It is what couples a card's TX completion
// latency (stmmac's TX coalescing) to TCP's sending, and gVisor has none, so
// it sits in the link path where the flow's frames pass, measuring there what
// Linux reads from the socket (srtt, the window, the pacing rate). How each
// input is derived: docs/linux-models.md.
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

// SKBTruesize approximates the truesize of an skb holding an n-byte frame: a
// kmalloc'ed head (power-of-two size class) with NET_SKB_PAD headroom, plus
// the skb's own structures.
func SKBTruesize(n int) int {
	data := n + skbDataAlignBytes
	size := 64
	for size < data {
		size <<= 1
	}
	return size + skbOverhead
}

// sentMark is the time a segment ending at end left the stack (RTT sampling).
type sentMark struct {
	end uint32
	at  time.Duration
}

// seqRange is the sequence space [seq, end) one data frame carries.
type seqRange struct{ seq, end uint32 }

type tsqFlow struct {
	wmem     int                  // truesize of this flow's frames below the socket
	inHost   fifo.Queue[seqRange] // those frames, oldest first (qdisc, then the ring)
	una, nxt uint32
	started  bool
	srtt     time.Duration
	lossSeen bool
	marks    fifo.Queue[sentMark] // segments awaiting their ACK, for RTT samples
	sent     uint64               // payload bytes admitted
	held     fifo.Queue[*frame]   // frames waiting for TX completion, in order
}

// stillInHost is skb_still_in_host_queue: the original of a retransmission
// has not been freed by TX completion yet.
func (f *tsqFlow) stillInHost(r seqRange) bool {
	for _, h := range f.inHost.Live() {
		if tcpseg.SeqAfter(r.end, h.seq) && tcpseg.SeqAfter(h.end, r.seq) {
			return true
		}
	}
	return false
}

// leaveHost forgets a frame that was freed (normally the oldest).
func (f *tsqFlow) leaveHost(r seqRange) {
	for i, h := range f.inHost.Live() {
		if h == r {
			f.inHost.RemoveAt(i)
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

// smallQueues is the model's state, guarded by SmallQueues.mu. A frame over its flow's limit
// is not refused to the stack (gVisor's writers must never block: the engine's
// barrier waits for them) but held below the socket, in order, and let go when
// TX completion or an ACK brings the flow under its limit again.
type smallQueues struct {
	m     *emu.Machine
	mss   int
	flows map[tcpseg.FlowKey]*tsqFlow
	order []*tsqFlow          // flows in the order they appeared (release order)
	inNIC fifo.Queue[pending] // frames the card holds, oldest first
	out   []*frame            // frames released by the last change
	waits uint64              // segments that waited for TX completion (TSQ_THROTTLED)
	held  uint64              // retransmissions held while their original was in the host
	// measureOnly: nothing is held back; the flows' RTTs are still measured
	// (compare --ablate tsq).
	measureOnly bool
}

func newSmallQueues(m *emu.Machine, mtu uint32) *smallQueues {
	return &smallQueues{m: m, mss: int(mtu) - header.IPv4MinimumSize - header.TCPMinimumSize - 12, flows: map[tcpseg.FlowKey]*tsqFlow{}}
}

// frame is a frame on its way down, with its TSQ bookkeeping.
type frame struct {
	b   []byte
	seg tcpseg.Segment // valid when tcp
	tcp bool           // a data segment: TSQ tracks it
	p   pending
	// throttled and held: it waited for TX completion (counted once each).
	throttled, held bool
}

func (q *smallQueues) now() time.Duration { return q.m.Now().Duration() }

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
	skb := segs * SKBTruesize(q.mss+header.EthernetMinimumSize+header.IPv4MinimumSize+header.TCPMinimumSize+12)
	return max(2*skb, perShift)
}

// offer is called for every TCP data frame the stack writes. It reports
// whether the frame may go to the qdisc now; otherwise it is held (ready
// returns it later).
func (q *smallQueues) offer(tf *frame) bool {
	f := q.flows[tf.seg.Key]
	if f == nil {
		f = &tsqFlow{una: tf.seg.Seq, nxt: tf.seg.Seq}
		q.flows[tf.seg.Key] = f
		q.order = append(q.order, f)
	}
	if f.held.Len() > 0 || !q.admit(f, tf) {
		f.held.Push(tf)
		return false
	}
	return true
}

// admit decides for the flow's next frame, and does its bookkeeping if it
// may go.
func (q *smallQueues) admit(f *tsqFlow, tf *frame) bool {
	seg := tf.seg
	end := seg.Seq + uint32(seg.Payload)
	r := seqRange{seg.Seq, end}
	// A retransmission waits while its original is still below the socket:
	// Linux's __tcp_retransmit_skb returns -EBUSY then (the clone is not
	// freed; TCPSpuriousRtxHostQueues) and tries again after TX completion.
	// With stmmac's TX coalescing that is the next IC frame or the timer.
	retrans := f.started && tcpseg.SeqAfter(f.nxt, seg.Seq)
	switch {
	case q.measureOnly:
	case retrans && f.stillInHost(r):
		count(&tf.held, &q.held)
		return false
	case f.wmem > 0 && f.una != f.nxt && f.wmem > q.limit(f): // unless nothing is unacknowledged
		count(&tf.throttled, &q.waits)
		return false
	}
	if !f.started || tcpseg.SeqAfter(end, f.nxt) {
		if f.started && tcpseg.SeqAfter(f.nxt, seg.Seq) {
			f.marks.Reset() // partly old data: no clean RTT sample
			f.lossSeen = true
		} else {
			f.marks.Push(sentMark{end: end, at: q.now()})
		}
		f.nxt, f.started = end, true
	} else {
		// A retransmission: its ACK would not tell which copy it answers.
		f.lossSeen = true
		f.marks.Reset()
	}
	ts := SKBTruesize(len(tf.b))
	f.wmem += ts
	f.inHost.Push(r)
	f.sent += uint64(seg.Payload)
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
func (q *smallQueues) ready() []*frame {
	q.out = q.out[:0]
	for _, f := range q.order {
		for f.held.Len() > 0 && q.admit(f, f.held.Live()[0]) {
			q.out = append(q.out, f.held.PopFront(1)[0])
		}
	}
	return q.out
}

// heldFrames is how many frames wait below the sockets.
func (q *smallQueues) heldFrames() int {
	n := 0
	for _, f := range q.order {
		n += f.held.Len()
	}
	return n
}

// toNIC moves a frame from the queue to the card's ring, before the card is
// called, so that a completion can never overtake it.
func (q *smallQueues) toNIC(p pending) { q.inNIC.Push(p) }

// notTaken undoes toNIC for the frame the card just refused. A busy card's
// frame stays below the socket (it waits above the card and is offered again),
// so its memory stays charged; a frame the card dropped gives it back.
func (q *smallQueues) notTaken(dropped bool) {
	if n := q.inNIC.Len(); n > 0 {
		if dropped {
			q.release(q.inNIC.Live()[n-1])
		}
		q.inNIC.RemoveAt(n - 1)
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
	for _, p := range q.inNIC.PopFront(frames) {
		q.release(p)
	}
}

// received looks at every frame the stack receives for ACKs of tracked flows:
// they move snd_una and give RTT samples.
func (q *smallQueues) received(frame []byte) {
	seg, ok := tcpseg.Parse(frame)
	if !ok || !seg.HasACK {
		return
	}
	f := q.flows[seg.Key.Reverse()]
	if f == nil || !tcpseg.SeqAfter(seg.Ack, f.una) || tcpseg.SeqAfter(seg.Ack, f.nxt) {
		return
	}
	f.una = seg.Ack
	covered := 0
	for _, m := range f.marks.Live() {
		if tcpseg.SeqAfter(m.end, seg.Ack) {
			break
		}
		covered++
	}
	if covered > 0 {
		// tcp_clean_rtx_queue's seq_rtt: from the oldest segment newly acked.
		rtt := q.now() - f.marks.Live()[0].at
		if f.srtt == 0 {
			f.srtt = rtt
		} else {
			f.srtt += (rtt - f.srtt) / 8
		}
		f.marks.PopFront(covered)
	}
}

// close forgets the held frames (the endpoint counted them).
func (q *smallQueues) close() {
	for _, f := range q.order {
		f.held.Reset()
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

// SmallQueues is TSQ as two link endpoints on one state: Admit, above the
// qdisc, where the stack writes (tcp_small_queue_check), and Free, on the
// card, where TX completion frees a frame's memory (sock_wfree). Frames pass
// the qdisc and the core in order, so Free meets them in the order Admit let
// them go.
type SmallQueues struct {
	mu     sync.Mutex // frames come from gVisor's goroutines and the engine
	q      *smallQueues
	lower  link.Endpoint // below Admit: the qdisc
	card   link.Endpoint
	up     func([]byte)
	below  fifo.Queue[*frame] // frames Admit let go that Free has not passed on
	closed bool
}

// TSQMode is what TCP Small Queues does on a host.
type TSQMode int

// The modes; the zero value leaves TSQ out of the path.
const (
	TSQOff TSQMode = iota
	TSQOn
	// TSQMeasureOnly never holds a frame back but still measures the flows'
	// path RTT (compare --ablate tsq).
	TSQMeasureOnly
)

// NewSmallQueues makes the model for a host with the given IP MTU, in mode
// TSQOn or TSQMeasureOnly.
func NewSmallQueues(m *emu.Machine, mtu uint32, mode TSQMode) (*SmallQueues, error) {
	if mode != TSQOn && mode != TSQMeasureOnly {
		return nil, fmt.Errorf("TCP Small Queues: mode %d is not TSQOn or TSQMeasureOnly", mode)
	}
	q := newSmallQueues(m, mtu)
	q.measureOnly = mode == TSQMeasureOnly
	return &SmallQueues{q: q}, nil
}

// Admit puts the admission endpoint on lower (the qdisc). Call Free first:
// the card's TX completion drives what Admit lets go.
func (s *SmallQueues) Admit(lower link.Endpoint) link.Endpoint {
	s.lower = lower
	return (*tsqAdmit)(s)
}

// Free puts the freeing endpoint on card, which must report TX completion.
func (s *SmallQueues) Free(card link.Endpoint) (link.Endpoint, error) {
	c, ok := card.(link.TxCompleter)
	if !ok {
		return nil, fmt.Errorf("TCP Small Queues: the card (%T) does not report TX completion", card)
	}
	s.card = card
	c.SetTxCompletion(s.completed)
	return (*tsqFree)(s), nil
}

// passLocked sends a frame on below Admit.
func (s *SmallQueues) passLocked(f *frame) {
	s.below.Push(f)
	_ = s.lower.Transmit(f.b) // the qdisc never refuses; the core counts
}

func (s *SmallQueues) releaseLocked() {
	for _, f := range s.q.ready() {
		s.passLocked(f)
	}
}

// completed is the card's TX completion: held frames may go.
func (s *SmallQueues) completed(frames int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.completed(frames)
	s.releaseLocked()
}

// Stats reports what TSQ did.
func (s *SmallQueues) Stats() SmallQueueStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.stats()
}

// Held is how many frames TSQ holds back.
func (s *SmallQueues) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.heldFrames()
}

// Close forgets the held frames and returns how many there were.
func (s *SmallQueues) Close() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	n := s.q.heldFrames()
	s.q.close()
	return n
}

// tsqAdmit is SmallQueues' endpoint above the qdisc.
type tsqAdmit SmallQueues

// Transmit implements link.Endpoint: a data segment over its flow's limit is
// held; everything else goes on.
func (a *tsqAdmit) Transmit(b []byte) error {
	s := (*SmallQueues)(a)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return link.ErrClosed
	}
	f := &frame{b: b}
	if seg, ok := tcpseg.Parse(b); ok && seg.Payload > 0 {
		f.seg, f.tcp = seg, true
		if !s.q.offer(f) {
			return nil // held below the socket until TX completion
		}
	}
	s.passLocked(f)
	return nil
}

// SetTxReady implements link.Endpoint: Admit never refuses a frame.
func (a *tsqAdmit) SetTxReady(func()) {}

// SetReceiver implements link.Endpoint: the ACKs of the flows move their
// windows and RTT samples on their way up.
func (a *tsqAdmit) SetReceiver(fn func([]byte)) {
	s := (*SmallQueues)(a)
	s.mu.Lock()
	s.up = fn
	s.mu.Unlock()
	s.lower.SetReceiver(a.receive)
}

// GivesFrames implements link.FrameGiver: received frames pass straight up.
func (a *tsqAdmit) GivesFrames() bool { return link.GivesFrames((*SmallQueues)(a).lower) }

func (a *tsqAdmit) receive(b []byte) {
	s := (*SmallQueues)(a)
	s.mu.Lock()
	s.q.received(b)
	s.releaseLocked()
	up := s.up
	s.mu.Unlock()
	if up != nil {
		up(b)
	}
}

// tsqFree is SmallQueues' endpoint on the card.
type tsqFree SmallQueues

// Transmit implements link.Endpoint: the frame's memory is the card's from
// before the call, so that a completion inside it can never overtake it.
func (t *tsqFree) Transmit(b []byte) error {
	s := (*SmallQueues)(t)
	s.mu.Lock()
	var f *frame
	if h := s.below.Live(); len(h) > 0 && len(b) > 0 && len(h[0].b) > 0 && &h[0].b[0] == &b[0] {
		f = h[0]
		s.q.toNIC(f.p)
	} else {
		s.q.toNIC(pending{}) // not through Admit: counted by the card all the same
	}
	s.mu.Unlock()
	err := s.card.Transmit(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.q.notTaken(!errors.Is(err, link.ErrBusy))
	}
	if f != nil && !errors.Is(err, link.ErrBusy) {
		s.below.PopFront(1) // a busy card gets the same frame again
	}
	return err
}

// SetTxReady implements link.Endpoint.
func (t *tsqFree) SetTxReady(fn func()) { t.card.SetTxReady(fn) }

// SetReceiver implements link.Endpoint.
func (t *tsqFree) SetReceiver(fn func([]byte)) { t.card.SetReceiver(fn) }

// GivesFrames implements link.FrameGiver: received frames pass straight up.
func (t *tsqFree) GivesFrames() bool { return link.GivesFrames(t.card) }
