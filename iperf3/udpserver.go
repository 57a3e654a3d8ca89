package iperf3

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// udpListener is a server test's one UDP socket on the test port. 3.12
// connect()s its listening socket to each client and binds a fresh one; here
// one socket serves every stream, told apart by the sender's address (the
// same datagrams on the wire). Its reader activity answers set-up messages
// through the test's loop and counts data datagrams itself, so a datagram
// never costs an inbox message.
type udpListener struct {
	pc         net.PacketConn
	post       func(any)
	counters64 bool
	now        func() float64 // the test clock in seconds
	progress   *atomic.Uint64 // the idle watchdog's

	mu      sync.Mutex
	streams map[string]*stream // by the client's address
	asked   map[string]bool    // set-up messages posted, not yet answered
	open    bool               // set-up messages are taken (CREATE_STREAMS sent)
	want    int                // streams the test needs

	counting atomic.Bool // TEST_RUNNING: data datagrams count
	drops    UDPDrops
}

// UDPDrops counts the datagrams a server's UDP socket received and did not
// count for any stream.
type UDPDrops struct {
	UnknownSource atomic.Uint64 // not from a stream's client, outside the set-up
	NotRunning    atomic.Uint64 // from a stream's client before or after the test ran
	ToSender      atomic.Uint64 // to a stream that sends (a reverse test)
	Malformed     atomic.Uint64 // too short for the datagram header
}

// UDPDropCounts is a copy of UDPDrops.
type UDPDropCounts struct {
	UnknownSource, NotRunning, ToSender, Malformed uint64
}

// Total is every datagram the server counted for no stream.
func (d UDPDropCounts) Total() uint64 {
	return d.UnknownSource + d.NotRunning + d.ToSender + d.Malformed
}

func (d *UDPDrops) counts() *UDPDropCounts {
	return &UDPDropCounts{UnknownSource: d.UnknownSource.Load(), NotRunning: d.NotRunning.Load(),
		ToSender: d.ToSender.Load(), Malformed: d.Malformed.Load()}
}

// udpSetup is a set-up message from a new client address.
type udpSetup struct{ addr net.Addr }

func newUDPListener(pc net.PacketConn, post func(any), want int, counters64 bool, now func() float64, progress *atomic.Uint64) *udpListener {
	return &udpListener{pc: pc, post: post, want: want, counters64: counters64, now: now, progress: progress,
		streams: map[string]*stream{}, asked: map[string]bool{}, open: true}
}

// run reads until the socket closes.
func (l *udpListener) run() {
	buf := make([]byte, maxUDPBlockSize+1)
	for {
		n, addr, err := l.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		l.datagram(buf[:n], addr)
	}
}

func (l *udpListener) datagram(b []byte, addr net.Addr) {
	key := addr.String()
	l.mu.Lock()
	st := l.streams[key]
	if st == nil {
		// 3.12 takes any datagram as a set-up message and does not look at
		// its content; at most the streams still missing are asked for.
		take := l.open && !l.asked[key] && len(l.streams)+len(l.asked) < l.want
		if take {
			l.asked[key] = true
		}
		l.mu.Unlock()
		if take {
			l.post(udpSetup{addr})
		} else {
			l.drops.UnknownSource.Add(1)
		}
		return
	}
	l.mu.Unlock()
	switch {
	case st.sender:
		l.drops.ToSender.Add(1)
	case !l.counting.Load():
		l.drops.NotRunning.Add(1)
	default:
		if st.file != nil {
			st.file.write(b) // -F: 3.12 writes every datagram its stream reads
		}
		if !st.udp.arrive(b, l.now(), l.counters64) {
			l.drops.Malformed.Add(1)
			return
		}
		st.moved.Add(uint64(len(b)))
		l.progress.Add(uint64(len(b)))
	}
}

// admit makes addr's stream and answers its set-up message.
func (l *udpListener) admit(addr net.Addr, add func(net.Conn) (*stream, error)) (*stream, error) {
	key := addr.String()
	l.mu.Lock()
	delete(l.asked, key)
	if !l.open || len(l.streams) >= l.want {
		l.mu.Unlock()
		return nil, nil
	}
	l.mu.Unlock()
	st, err := add(&udpPeer{l: l, addr: addr})
	if err != nil {
		return nil, err
	}
	st.viaListener = true
	l.mu.Lock()
	l.streams[key] = st
	if len(l.streams) == l.want {
		l.open = false
	}
	l.mu.Unlock()
	if _, err := l.pc.WriteTo(udpConnectReply, addr); err != nil {
		return st, fail(CodeStreamWrite, fmt.Errorf("UDP connect reply: %w", err))
	}
	return st, nil
}

func (l *udpListener) close() { _ = l.pc.Close() }

// udpPeer is one stream of the listener as a net.Conn: writes go to the
// client's address; reads are the listener's.
type udpPeer struct {
	l    *udpListener
	addr net.Addr
}

func (p *udpPeer) Read([]byte) (int, error)           { return 0, net.ErrClosed }
func (p *udpPeer) Write(b []byte) (int, error)        { return p.l.pc.WriteTo(b, p.addr) }
func (p *udpPeer) Close() error                       { return nil } // the listener closes the socket
func (p *udpPeer) LocalAddr() net.Addr                { return p.l.pc.LocalAddr() }
func (p *udpPeer) RemoteAddr() net.Addr               { return p.addr }
func (p *udpPeer) SetDeadline(t time.Time) error      { return p.l.pc.SetWriteDeadline(t) }
func (p *udpPeer) SetReadDeadline(time.Time) error    { return nil }
func (p *udpPeer) SetWriteDeadline(t time.Time) error { return p.l.pc.SetWriteDeadline(t) }
