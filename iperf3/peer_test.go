package iperf3

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakePeer drives one side of the control protocol by hand.
type fakePeer struct {
	t    *testing.T
	conn net.Conn
}

func (p fakePeer) send(b ...byte) {
	p.t.Helper()
	if _, err := p.conn.Write(b); err != nil {
		p.t.Fatalf("send %v: %v", b, err)
	}
}

func (p fakePeer) sendJSON(body []byte) {
	p.t.Helper()
	if err := writeJSONBytes(p.conn, body); err != nil {
		p.t.Fatalf("send JSON: %v", err)
	}
}

func (p fakePeer) expect(want int8) {
	p.t.Helper()
	got, err := readState(p.conn)
	if err != nil {
		p.t.Fatalf("waiting for state %d: %v", want, err)
	}
	if got != want {
		p.t.Fatalf("state %d, want %d", got, want)
	}
}

func (p fakePeer) readJSON() []byte {
	p.t.Helper()
	b, err := readJSONBody(p.conn)
	if err != nil {
		p.t.Fatalf("read JSON: %v", err)
	}
	return b
}

// expectEOF checks the other side closed the connection (after reading any
// remaining bytes into rest).
func (p fakePeer) expectEOF() (rest []byte) {
	p.t.Helper()
	rest, err := io.ReadAll(p.conn)
	var opErr *net.OpError
	if err != nil && !errors.As(err, &opErr) { // a reset also means closed
		p.t.Fatalf("waiting for close: %v", err)
	}
	return rest
}

// jsonKeys lists an object's keys in order, and those of the first element
// of any array-of-objects value as "key[].sub".
func jsonKeys(t *testing.T, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	var keys []string
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("JSON %s: %v", truncate(body, 40), err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, _ := dec.Token()
				key := prefix + k.(string)
				if depth == 0 || prefix != "" {
					keys = append(keys, key)
				}
				walk(key+".", depth+1)
			}
			_, _ = dec.Token()
		case json.Delim('['):
			first := true
			for dec.More() {
				if first {
					walk(prefix[:len(prefix)-1]+"[].", depth+1)
					first = false
					continue
				}
				var skip json.RawMessage
				_ = dec.Decode(&skip)
			}
			_, _ = dec.Token()
		}
	}
	walk("", 0)
	return keys
}

// sink counts everything a data connection delivers until it closes.
type sink struct {
	wg    sync.WaitGroup
	total atomic.Uint64
	per   []*atomic.Uint64
}

func (s *sink) drain(conns []net.Conn) {
	for _, c := range conns {
		n := new(atomic.Uint64)
		s.per = append(s.per, n)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			buf := make([]byte, 64*1024)
			for {
				k, err := c.Read(buf)
				n.Add(uint64(k))
				s.total.Add(uint64(k))
				if err != nil {
					return
				}
			}
		}()
	}
}

// source writes blocks to data connections until stopped or closed.
type source struct {
	stop    atomic.Bool
	wg      sync.WaitGroup
	written atomic.Uint64
}

func (s *source) fill(conns []net.Conn) {
	block := bytes.Repeat([]byte{0x5a}, 64*1024)
	for _, c := range conns {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for !s.stop.Load() {
				_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
				k, err := c.Write(block)
				s.written.Add(uint64(k))
				if err != nil {
					return
				}
			}
		}()
	}
}
