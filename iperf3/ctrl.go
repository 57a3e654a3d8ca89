package iperf3

import (
	"io"
	"sync/atomic"

	"mesonemu/coop"
)

// readKind says what the control reader should read next. The loop asks for
// one thing at a time, so the reader never has to guess how a message
// continues and the loop never blocks on a read.
type readKind int

const (
	readStateByte readKind = iota
	readJSONMessage
	readCookie
	readErrorPayload
	readQuit // not a read: the reader ends
)

type readResult struct {
	kind  readKind
	state int8
	body  []byte
	code  Code
	errno int32
	err   error
}

// ctrlReader owns all reads of a control connection; results go to post.
type ctrlReader struct {
	r    io.Reader
	reqs *coop.Inbox[readKind]
	post func(any)
}

// countingReader feeds the watchdog.
type countingReader struct {
	r io.Reader
	n *atomic.Uint64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(uint64(n))
	return n, err
}

func newCtrlReader(sched coop.Sched, r io.Reader, progress *atomic.Uint64, post func(any)) *ctrlReader {
	c := &ctrlReader{
		r:    countingReader{r: r, n: progress},
		reqs: coop.NewInbox[readKind](sched),
		post: post,
	}
	coop.Or(sched).Go(c.run)
	return c
}

func (c *ctrlReader) request(k readKind) { c.reqs.Post(k) }

// close ends the reader once its current read returns (closing the
// connection makes it return).
func (c *ctrlReader) close() { c.reqs.Post(readQuit) }

func (c *ctrlReader) run() {
	for {
		k := c.reqs.Recv()
		if k == readQuit {
			return
		}
		res := readResult{kind: k}
		switch k {
		case readStateByte:
			res.state, res.err = readState(c.r)
		case readJSONMessage:
			res.body, res.err = readJSONBody(c.r)
		case readCookie:
			res.body = make([]byte, CookieSize)
			_, res.err = io.ReadFull(c.r, res.body)
		case readErrorPayload:
			res.code, res.errno, res.err = readServerErrorPayload(c.r)
		}
		c.post(res)
	}
}
