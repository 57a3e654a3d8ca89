package iperf3

import (
	"io"
	"sync/atomic"
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
)

type readResult struct {
	kind  readKind
	state int8
	body  []byte
	code  Code
	errno int32
	err   error
}

// ctrlReader owns all reads of a control connection.
type ctrlReader struct {
	r       io.Reader
	reqs    chan readKind
	results chan readResult
	quit    chan struct{}
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

func newCtrlReader(r io.Reader, progress *atomic.Uint64) *ctrlReader {
	c := &ctrlReader{
		r:       countingReader{r: r, n: progress},
		reqs:    make(chan readKind, 1),
		results: make(chan readResult),
		quit:    make(chan struct{}),
	}
	go c.run()
	return c
}

func (c *ctrlReader) request(k readKind) { c.reqs <- k }

func (c *ctrlReader) close() { close(c.quit) }

func (c *ctrlReader) run() {
	for {
		var k readKind
		select {
		case k = <-c.reqs:
		case <-c.quit:
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
		select {
		case c.results <- res:
		case <-c.quit:
			return
		}
	}
}
