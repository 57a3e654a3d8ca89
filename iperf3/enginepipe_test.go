package iperf3

import (
	"io"
	"net"
	"os"
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"
)

// An in-memory connection for programs on the engine: a blocking Read or
// Write parks the calling task on a coop waker instead of a Go channel, and
// deadlines run on the test clock, so a test over it takes no real time.

// pipeBufSize bounds what one direction holds before a Write blocks; a write
// takes its bytes' time at pipeRate, so a timed test ends after a bounded
// number of writes (a test of 1 s: ~120 blocks of 1 KiB).
const (
	pipeBufSize = 64 << 10
	pipeRate    = 1e6 // bit/s
)

// pipeDir is one direction of a pipe: what the writer has put and the
// reader not yet taken.
type pipeDir struct {
	mu      sync.Mutex
	data    []byte
	shut    bool         // the writing end closed: reads drain then EOF
	gone    bool         // the reading end closed: writes fail
	readers coop.Waker   // the one reading activity
	writers []coop.Waker // writers waiting for room (a peer may write from several activities)
	sched   coop.Sched
	clock   tcpip.Clock
}

// wakeWriters releases every writer waiting for room; d.mu held.
func (d *pipeDir) wakeWriters() {
	for _, w := range d.writers {
		w.Wake()
	}
	d.writers = nil
}

// deadline is one end's read or write deadline on the clock.
type deadline struct {
	mu      sync.Mutex
	clock   tcpip.Clock
	at      time.Time // zero: none
	expired bool
	timer   tcpip.Timer
}

func (d *deadline) set(t time.Time, wake func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.at, d.expired = t, false
	if t.IsZero() {
		return
	}
	if wait := t.Sub(d.clock.Now()); wait > 0 {
		d.timer = d.clock.AfterFunc(wait, func() {
			d.mu.Lock()
			d.expired = !d.at.IsZero()
			d.mu.Unlock()
			wake()
		})
		return
	}
	d.expired = true
	wake()
}

func (d *deadline) passed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.expired
}

// enginePipe is one end of the pair.
type enginePipe struct {
	in, out        *pipeDir
	rdl, wdl       *deadline
	closeOnce      sync.Once
	local, remotea net.Addr
}

// newEnginePipe returns two connected ends whose blocking calls go through s.
func newEnginePipe(s coop.Sched, clock tcpip.Clock) (net.Conn, net.Conn) {
	ab := &pipeDir{readers: s.NewWaker(), sched: s, clock: clock}
	ba := &pipeDir{readers: s.NewWaker(), sched: s, clock: clock}
	a := &enginePipe{in: ba, out: ab, rdl: &deadline{clock: clock}, wdl: &deadline{clock: clock}, local: pipeAddr{}, remotea: pipeAddr{}}
	b := &enginePipe{in: ab, out: ba, rdl: &deadline{clock: clock}, wdl: &deadline{clock: clock}, local: pipeAddr{}, remotea: pipeAddr{}}
	return a, b
}

func (p *enginePipe) Read(b []byte) (int, error) {
	d := p.in
	for {
		d.mu.Lock()
		switch {
		case d.gone:
			d.mu.Unlock()
			return 0, net.ErrClosed
		case len(d.data) > 0:
			n := copy(b, d.data)
			d.data = d.data[n:]
			d.wakeWriters()
			d.mu.Unlock()
			return n, nil
		case d.shut:
			d.mu.Unlock()
			return 0, io.EOF
		}
		d.mu.Unlock()
		if p.rdl.passed() {
			return 0, os.ErrDeadlineExceeded
		}
		d.readers.Wait()
	}
}

func (p *enginePipe) Write(b []byte) (int, error) {
	d, n := p.out, 0
	for {
		d.mu.Lock()
		switch {
		case d.shut:
			d.mu.Unlock()
			return n, net.ErrClosed
		case d.gone:
			d.mu.Unlock()
			return n, io.ErrClosedPipe
		case n == len(b):
			d.mu.Unlock()
			return n, nil
		}
		k := min(len(b)-n, pipeBufSize-len(d.data))
		d.data = append(d.data, b[n:n+k]...)
		n += k
		w := d.sched.NewWaker()
		if k == 0 {
			d.writers = append(d.writers, w)
		}
		d.mu.Unlock()
		if k > 0 {
			d.readers.Wake()
			d.clock.AfterFunc(time.Duration(float64(k)*8/pipeRate*float64(time.Second)), w.Wake)
			w.Wait()
			continue
		}
		if p.wdl.passed() {
			return n, os.ErrDeadlineExceeded
		}
		w.Wait()
	}
}

// Close shuts both directions: the peer reads what was written, then EOF,
// and its writes fail; this end's own calls fail at once.
func (p *enginePipe) Close() error {
	p.closeOnce.Do(func() {
		for _, d := range []*pipeDir{p.in, p.out} {
			d.mu.Lock()
			if d == p.in {
				d.gone = true
			} else {
				d.shut = true
			}
			d.wakeWriters()
			d.mu.Unlock()
			d.readers.Wake()
		}
	})
	return nil
}

func (p *enginePipe) LocalAddr() net.Addr  { return p.local }
func (p *enginePipe) RemoteAddr() net.Addr { return p.remotea }

func (p *enginePipe) SetDeadline(t time.Time) error {
	_ = p.SetReadDeadline(t)
	return p.SetWriteDeadline(t)
}

func (p *enginePipe) SetReadDeadline(t time.Time) error {
	p.rdl.set(t, p.in.readers.Wake)
	return nil
}

func (p *enginePipe) SetWriteDeadline(t time.Time) error {
	p.wdl.set(t, func() {
		p.out.mu.Lock()
		defer p.out.mu.Unlock()
		p.out.wakeWriters()
	})
	return nil
}

// engineListener hands out the server ends of dialled engine pipes.
type engineListener struct {
	s      coop.Sched
	clock  tcpip.Clock
	mu     sync.Mutex
	queue  []net.Conn
	closed bool
	wake   coop.Waker
}

func newEngineListener(s coop.Sched, clock tcpip.Clock) *engineListener {
	return &engineListener{s: s, clock: clock, wake: s.NewWaker()}
}

func (l *engineListener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return nil, net.ErrClosed
		}
		if len(l.queue) > 0 {
			c := l.queue[0]
			l.queue = l.queue[1:]
			l.mu.Unlock()
			return c, nil
		}
		l.mu.Unlock()
		l.wake.Wait()
	}
}

func (l *engineListener) Close() error {
	l.mu.Lock()
	l.closed = true
	q := l.queue
	l.queue = nil
	l.mu.Unlock()
	for _, c := range q {
		c.Close()
	}
	l.wake.Wake()
	return nil
}

func (l *engineListener) Addr() net.Addr { return pipeAddr{} }

// dial connects to the listener; it fails once the listener is closed.
func (l *engineListener) dial() (net.Conn, error) {
	client, server := newEnginePipe(l.s, l.clock)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, net.ErrClosed
	}
	l.queue = append(l.queue, server)
	l.mu.Unlock()
	l.wake.Wake()
	return client, nil
}
