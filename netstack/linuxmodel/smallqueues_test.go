package linuxmodel

import (
	"net/netip"
	"testing"
	"time"

	"mesonemu/emu"
	"mesonemu/netstack/internal/frametest"
	"mesonemu/netstack/link"
	"mesonemu/netstack/tcpseg"
)

// offerFrame offers one TCP data frame (or any frame) to the queue.
func offerFrame(t *testing.T, q *smallQueues, b []byte) (*frame, bool) {
	t.Helper()
	f := &frame{b: b}
	seg, ok := tcpseg.Parse(b)
	if !ok || seg.Payload == 0 {
		t.Fatalf("not a TCP data frame")
	}
	f.seg, f.tcp = seg, true
	return f, q.offer(f)
}

// admitAll admits frames for seq, seq+1448, ... and hands them to the card.
func admitAll(t *testing.T, q *smallQueues, seq uint32, n int) uint32 {
	t.Helper()
	for range n {
		f, ok := offerFrame(t, q, frametest.Data(seq))
		if !ok || f.p.flow == nil {
			t.Fatalf("frame at seq %d not admitted as TCP data (ok %v)", seq, ok)
		}
		q.toNIC(f.p)
		seq += 1448
	}
	return seq
}

// mustHold offers a frame that must be held; it returns the frame.
func mustHold(t *testing.T, q *smallQueues, seq uint32, why string) *frame {
	t.Helper()
	f, ok := offerFrame(t, q, frametest.Data(seq))
	if ok {
		t.Fatal(why)
	}
	return f
}

// readyIs checks what the queue lets go after a change.
func readyIs(t *testing.T, q *smallQueues, want []*frame, why string) {
	t.Helper()
	got := q.ready()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames released, want %d", why, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: frame %d released out of order", why, i)
		}
		q.toNIC(got[i].p)
	}
}

// TestSmallQueuesThrottleUntilCompletion: once the flow has an RTT sample its
// memory below the socket is limited; a segment over the limit is held until
// the card's TX completion, and only until then; the flow's later segments
// queue behind it in order.
func TestSmallQueuesThrottleUntilCompletion(t *testing.T) {
	m := emu.NewMachine(1)
	q := newSmallQueues(m, 1500)
	if q.mss != 1448 {
		t.Fatalf("mss %d, want 1448", q.mss)
	}
	// Before an RTT sample there is no pacing rate and no limit.
	seq := admitAll(t, q, 1000, 100)
	f := q.flows[tcpseg.FlowKey{Local: netip.AddrFrom4(frametest.Board), Remote: netip.AddrFrom4(frametest.PC), LPort: 40000, RPort: 5201}]
	if f == nil || f.wmem != 100*SKBTruesize(1514) {
		t.Fatalf("flow %+v, want wmem %d", f, 100*SKBTruesize(1514))
	}
	// The card sends and frees everything; the PC acknowledges the first 10
	// segments 500 us after they left: srtt 500 us.
	q.completed(100)
	m.Advance(500 * emu.Microsecond)
	q.received(frametest.Ack(1000 + 10*1448))
	if f.srtt != 500*time.Microsecond || f.wmem != 0 || q.inNIC.Len() != 0 {
		t.Fatalf("srtt %v wmem %d inNIC %d", f.srtt, f.wmem, q.inNIC.Len())
	}
	// 90 segments in flight, slow start (200 %): rate 2*90*1448/500us = 521 MB/s,
	// 509 KB per 1.024 ms: the pacing term is the limit.
	if got, want := q.limit(f), 521_280_000>>10; got != want {
		t.Fatalf("slow-start limit %d, want %d", got, want)
	}
	// Congestion avoidance (120 %) with 20 segments in flight: 69.5 MB/s, 67.9 KB
	// per period, so the GSO skb is capped at 64 KiB (45 segments) and twice
	// its truesize is the limit.
	f.lossSeen = true
	f.una = f.nxt - 20*1448
	want := 2 * 45 * SKBTruesize(1514)
	if got := q.limit(f); got != want {
		t.Fatalf("congestion-avoidance limit %d, want %d", got, want)
	}
	// Just under the limit one more segment goes; the one after it waits for
	// the card to free that segment, and the next one waits behind it.
	f.wmem = want - 100
	seq = admitAll(t, q, seq, 1)
	first := mustHold(t, q, seq, "segment admitted over the limit")
	second := mustHold(t, q, seq+1448, "segment overtook a held one")
	readyIs(t, q, nil, "nothing changed")
	q.completed(1)
	readyIs(t, q, []*frame{first}, "TX completion of one frame")
	q.completed(1)
	readyIs(t, q, []*frame{second}, "TX completion of the next")
	if q.waits != 2 || q.heldFrames() != 0 {
		t.Fatalf("waits %d held %d, want 2 and 0", q.waits, q.heldFrames())
	}
}

// TestSmallQueuesBookkeeping: retransmissions end slow start and give no RTT
// sample, a refused frame releases what it held, and close forgets held frames.
func TestSmallQueuesBookkeeping(t *testing.T) {
	m := emu.NewMachine(1)
	q := newSmallQueues(m, 1500)
	seq := admitAll(t, q, 5000, 3)
	f := q.flows[tcpseg.FlowKey{Local: netip.AddrFrom4(frametest.Board), Remote: netip.AddrFrom4(frametest.PC), LPort: 40000, RPort: 5201}]
	// Retransmit the first segment once the card has freed it: Karn, and
	// congestion avoidance from now on.
	q.completed(3)
	admitAll(t, q, 5000, 1)
	if !f.lossSeen || f.marks.Len() != 0 {
		t.Fatalf("after a retransmission: lossSeen %v, %d RTT marks", f.lossSeen, f.marks.Len())
	}
	m.Advance(emu.Millisecond)
	q.received(frametest.Ack(seq))
	if f.srtt != 0 || f.una != seq {
		t.Fatalf("srtt %v una %d after an ACK of retransmitted data", f.srtt, f.una)
	}
	// A busy card refuses the newest frame: it stays below the socket, and its
	// memory with it. A card that drops it gives the memory back.
	before := f.wmem
	newest := q.inNIC.Live()[q.inNIC.Len()-1]
	q.notTaken(false)
	if f.wmem != before {
		t.Fatalf("wmem %d after a busy card refused a frame, want %d", f.wmem, before)
	}
	q.toNIC(newest)
	q.notTaken(true)
	if f.wmem != before-SKBTruesize(1514) {
		t.Fatalf("wmem %d after a dropped frame, want %d", f.wmem, before-SKBTruesize(1514))
	}
	// Closing forgets what was held.
	seq = admitAll(t, q, seq, 1) // something unacknowledged
	f.srtt, f.wmem = time.Second, 1<<30
	mustHold(t, q, seq, "a frame over the limit was admitted")
	if q.heldFrames() != 1 {
		t.Fatalf("held %d, want 1", q.heldFrames())
	}
	q.close()
	if q.heldFrames() != 0 || len(q.ready()) != 0 {
		t.Fatal("a closed queue still holds or releases frames")
	}
}

// TestSkbTruesize: the kmalloc size class plus the skb's own structures.
func TestSkbTruesize(t *testing.T) {
	for _, c := range []struct{ n, want int }{{60, 128 + 512}, {1514, 2048 + 512}, {9000, 16384 + 512}} {
		if got := SKBTruesize(c.n); got != c.want {
			t.Errorf("SKBTruesize(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestRetransmitWaitsForItsOriginal: a retransmission of a segment whose
// original frame is still in the TX ring waits until TX completion frees it
// (skb_still_in_host_queue), and is counted.
func TestRetransmitWaitsForItsOriginal(t *testing.T) {
	q := newSmallQueues(emu.NewMachine(1), 1500)
	admitAll(t, q, 100, 3)
	rtx := mustHold(t, q, 100+1448, "retransmission admitted while its original was in the ring")
	q.completed(1) // the first segment only: the original is still there
	readyIs(t, q, nil, "after an unrelated completion")
	q.completed(1)
	readyIs(t, q, []*frame{rtx}, "completion of the original")
	if st := q.stats(); st.HeldRetransmits != 1 {
		t.Fatalf("held retransmits %d, want 1", st.HeldRetransmits)
	}
}

// completingCard is a card that reports TX completion when told to.
type completingCard struct {
	timedCard
	seqs     []uint32
	complete func(int)
}

func (c *completingCard) Transmit(b []byte) error {
	seg, _ := tcpseg.Parse(b)
	c.seqs = append(c.seqs, seg.Seq)
	return c.timedCard.Transmit(b)
}
func (c *completingCard) SetTxCompletion(fn func(int)) { c.complete = fn }

// TestSmallQueuesInThePath: with Admit above the qdisc and Free on the card, a
// flow over its limit waits for the card's TX completion, and its frames
// reach the card in order once the card frees the ones before them.
func TestSmallQueuesInThePath(t *testing.T) {
	m := emu.NewMachine(1)
	card := &completingCard{timedCard: timedCard{m: m}}
	tsq, err := NewSmallQueues(m, 1500, TSQOn)
	if err != nil {
		t.Fatal(err)
	}
	free, err := tsq.Free(card)
	if err != nil {
		t.Fatal(err)
	}
	top := tsq.Admit(link.NewQdisc(NewSoftnet(m, nil, free)))
	top.SetReceiver(func([]byte) {})
	// One segment and its ACK 5 ms later: srtt 5 ms, nothing in flight.
	_ = top.Transmit(frametest.Data(1000))
	m.Advance(5 * emu.Millisecond)
	card.complete(1)
	card.recv(frametest.Ack(1000 + 1448))
	m.Advance(emu.Microsecond)
	seq := uint32(1000 + 1448)
	for i := range 20 {
		_ = top.Transmit(frametest.Data(seq + uint32(i)*1448))
	}
	m.Advance(emu.Microsecond)
	sent := len(card.seqs)
	if sent >= 21 || tsq.Stats().Waits == 0 {
		t.Fatalf("%d of 21 frames reached the card, %d waits: the limit did not bind", sent, tsq.Stats().Waits)
	}
	for range 40 {
		card.complete(len(card.seqs))
		m.Advance(emu.Microsecond)
	}
	if len(card.seqs) != 21 {
		t.Fatalf("%d frames reached the card after TX completion, want 21", len(card.seqs))
	}
	for i, s := range card.seqs[1:] {
		if s != seq+uint32(i)*1448 {
			t.Fatalf("frame %d at the card has seq %d, want %d (out of order)", i+1, s, seq+uint32(i)*1448)
		}
	}
	if n := tsq.Close(); n != 0 {
		t.Fatalf("%d frames still held", n)
	}
}

// TestSmallQueuesNeedTxCompletion: a card that does not report TX completion
// is refused with a reason, and so is a mode that is not a TSQ.
func TestSmallQueuesNeedTxCompletion(t *testing.T) {
	tsq, err := NewSmallQueues(emu.NewMachine(1), 1500, TSQMeasureOnly)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tsq.Free(plainCard{}); err == nil {
		t.Fatal("a card without TX completion was accepted")
	}
	if _, err := NewSmallQueues(emu.NewMachine(1), 1500, TSQOff); err == nil {
		t.Fatal("TSQOff made a model")
	}
}
