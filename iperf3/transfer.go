package iperf3

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"
)

// maxReadChunk bounds each receiving stream's buffer whatever block length a
// peer asks for, so 128 streams of 1 MiB blocks cost 16 MiB, not 128 MiB.
// Read sizes are invisible on the wire.
const maxReadChunk = 128 * 1024

// transfer runs the data streams: one activity per stream, sending the
// fixed random payload block after block or reading and counting. It posts
// xferFailed for a broken stream, limitReached once the receivers have the
// -n total and sendersFinished when the last sender returns (none failed).
type transfer struct {
	sched    coop.Sched
	post     func(any)
	limit    uint64 // bytes to move in total, 0 = until stopped
	progress *atomic.Uint64

	stop     atomic.Bool   // set when the test ends; later errors are expected
	reserved atomic.Uint64 // bytes handed out to senders (the -n quota)
	received atomic.Uint64 // bytes read by all receivers
	limitHit atomic.Bool   // limitReached was posted
	senders  atomic.Int64  // senders still running
	failed   atomic.Bool   // a stream reported a failure
	all      *coop.Group

	// UDP streams (udp.go): the test clock for headers and pacing.
	udp        bool
	clock      tcpip.Clock
	pacing     pacing
	counters64 bool
	fileDone   atomic.Bool // -F: a sender reached the end of its file
}

func newTransfer(sched coop.Sched, post func(any), limit uint64, progress *atomic.Uint64) *transfer {
	return &transfer{sched: sched, post: post, limit: limit, progress: progress, all: coop.NewGroup(sched)}
}

// setUDP makes the streams datagram streams when the test is UDP, and sets
// the pacing any sender uses.
func (t *transfer) configure(p testParams, clock tcpip.Clock) {
	t.udp, t.clock, t.pacing, t.counters64 = p.UDP, clock, p.pacing(), p.Counters64
}

// start launches every stream's activity.
func (t *transfer) start(streams []*stream, payload []byte, readSize int) {
	readSize = min(readSize, maxReadChunk)
	for _, st := range streams { // all counted before any can finish
		if st.sender {
			t.senders.Add(1)
		}
	}
	for _, st := range streams {
		switch {
		case st.sender && t.udp:
			t.all.Go(t.sched, func() { t.sendUDP(st, payload) })
		case st.sender:
			t.all.Go(t.sched, func() { t.send(st, payload) })
		case t.udp && st.viaListener:
			// The server's listener activity counts its datagrams.
		case t.udp:
			t.all.Go(t.sched, func() { t.receiveUDP(st) })
		default:
			t.all.Go(t.sched, func() { t.receive(st, readSize) })
		}
	}
}

// report posts a stream's failure. A test with a failed stream has not
// finished its sending: the failure (or the peer's reason for it) ends it.
func (t *transfer) report(err error) {
	t.failed.Store(true)
	t.post(xferFailed{err})
}

// send writes whole blocks (with -F the file's short last one too). Under
// -n each block is reserved from the shared quota first, so all streams
// together send ceil(n/len) blocks, as iperf3's "bytes_sent >= bytes" check
// after every block does.
func (t *transfer) send(st *stream, payload []byte) {
	defer t.senderDone()
	reserve := uint64(len(payload))
	w := t.sched.NewWaker()
	if st.file != nil {
		payload = append([]byte(nil), payload...)
	}
	for !t.stop.Load() && !t.fileDone.Load() {
		if !t.pacing.green(st.moved.Load(), st.fixedStart, t.clock.NowMonotonic()) {
			t.pace(w, t.pacing.timer) // -b: iperf3's throttle, as for UDP
			continue
		}
		if t.limit > 0 && t.reserved.Add(reserve)-reserve >= t.limit {
			return
		}
		block := payload
		if st.file != nil {
			if block = payload[:st.file.fill(payload)]; len(block) == 0 {
				t.fileDone.Store(true) // end of file: the test ends (3.12 sets test->done)
				return
			}
		}
		size := uint64(len(block))
		// A block counts as sent when it is handed over: a blocking Write
		// may have passed most of it on before it returns, and the
		// receiver must never have seen more than the sender reports. A
		// block the end of the test cuts short is taken back below, except
		// when the final count was already taken: then the sender reports
		// at most one block per stream more than it wrote.
		st.moved.Add(size)
		n, err := st.conn.Write(block)
		t.progress.Add(uint64(n))
		if unwritten := size - uint64(n); unwritten > 0 {
			st.moved.Add(-unwritten)
		}
		if err != nil {
			if !t.stop.Load() {
				t.report(streamError(CodeStreamWrite, err))
			}
			return
		}
	}
}

// senderDone is a sending activity's end: the last one posts
// sendersFinished, unless a stream failed.
func (t *transfer) senderDone() {
	if t.senders.Add(-1) == 0 && !t.failed.Load() {
		t.post(sendersFinished{})
	}
}

// receive counts what arrives until the connection ends. It keeps draining
// after the test ends so a sender never stalls on it, but what arrives then
// is not progress for the idle watchdog: a peer that streams for ever and
// never sends the results cannot hold the test open. An end of stream or an
// error after the test ended is normal.
func (t *transfer) receive(st *stream, size int) {
	buf := make([]byte, size)
	for {
		n, err := st.conn.Read(buf)
		if n > 0 {
			if st.file != nil {
				st.file.write(buf[:n]) // before it counts (see diskFile)
			}
			st.moved.Add(uint64(n))
			if !t.stop.Load() { // after the end only the control connection is progress
				t.progress.Add(uint64(n))
			}
			if t.limit > 0 && t.received.Add(uint64(n)) >= t.limit && t.limitHit.CompareAndSwap(false, true) {
				t.post(limitReached{})
			}
		}
		if err != nil {
			if !t.stop.Load() && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				t.report(streamError(CodeStreamRead, err))
			}
			return
		}
	}
}

// unblock closes a connection after putting its deadlines in the past, so a
// Read or Write blocked in any net.Conn implementation returns at once.
func unblock(c net.Conn) {
	_ = c.SetDeadline(time.Unix(1, 0))
	_ = c.Close()
}
