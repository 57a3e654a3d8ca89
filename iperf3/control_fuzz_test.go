package iperf3

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mesonemu/emu"
	"mesonemu/netstack"
)

// The iperf3 control protocol against a fuzz-driven peer, in both roles, over
// net.Pipe connections and a manual test clock. The fuzz input is a small program
// for the peer (see peerOp): raw bytes, canned cookie / parameter / results
// messages (good and hostile), state bytes, length prefixes, data connections,
// waits for the other side's next state, clock steps and closes. A short
// program reaches every phase of a test, and the fuzzer's minimiser stays quick.
//
// Whatever the peer does, the role under test must end with an error or a result,
// must not panic, and must leave no goroutine behind once its connections are
// closed. If the program does not close the control connection, the peer goes
// silent and the test clock is driven forward until the idle timeout ends it.

const (
	fuzzIdle     = 8 * time.Second
	fuzzLimit    = 2000 * time.Minute // past -t 86400 + -O 600 + 40 s
	fuzzWait     = 3 * time.Second    // the longest a peerWait waits
	fuzzMaxOps   = 64
	fuzzWaitStep = 100 * time.Millisecond
)

// Peer program opcodes (first byte of each op, modulo peerOps).
const (
	peerRaw    = iota // n = next%64, then n bytes to the control connection
	peerCookie        // the 37-byte cookie
	peerJSON          // framed message jsonPool[next]
	peerState         // the next byte as a state
	peerLength        // the next 4 bytes as a JSON length prefix
	peerWait          // wait for the other side's state waitStates[next]
	peerStream        // server role: open a data connection (cookie, next%128 bytes);
	//                    client role: next%128 bytes on the client's newest data connection
	peerClose   // close the control connection
	peerAdvance // advance the test clock by next*100 ms
	peerOps
)

// jsonPool holds parameter and results messages, well-formed and hostile.
var jsonPool = []string{
	goodParams,
	`{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"reverse":true,"len":1024,"pacing_timer":1000,"client_version":"3.12"}`,
	`{"tcp":true,"omit":1,"time":2,"parallel":2,"len":1024,"get_server_output":1}`,
	`{"tcp":true,"time":0,"num":4096,"blockcount":0,"parallel":1,"len":1024}`,
	`{"tcp":true,"parallel":0}`,
	`{"tcp":true,"len":18446744073709551615}`,
	`{"udp":true}`,
	`{"tcp":true,"bidirectional":true}`,
	`[1,2]`,
	`null`,
	`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":0,"streams":[{"id":1,"bytes":64,"retransmits":0,"jitter":0,"errors":0,"packets":0}]}`,
	`{"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":1,"streams":[{"id":1,"bytes":18446744073709551615,"retransmits":-5,"jitter":1e308,"errors":0,"packets":0},{"id":3,"bytes":1,"retransmits":0,"jitter":0,"errors":0,"packets":0}]}`,
	`{"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":0,"streams":[{"id":99,"bytes":1}]}`,
	`{"cpu_util_total":"x","streams":{}}`,
	`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":0,"streams":[],"server_output_text":"hello"}`,
	`{"streams":`,
}

var waitStates = []int8{stateParamExchange, stateCreateStreams, stateTestStart, stateTestRunning, stateTestEnd,
	stateExchangeResults, stateDisplayResults, stateIperfDone}

// fuzzBytesReader hands out the program; past its end it reads zeros.
type fuzzBytesReader struct{ b []byte }

func (r *fuzzBytesReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzBytesReader) take(n int) []byte {
	n = min(n, len(r.b))
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func framedJSON(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

// seen records which state bytes arrived from the side under test (roughly: such
// a byte may also sit inside a JSON body or a length).
type seen struct {
	mu    sync.Mutex
	bytes [256]bool
	wake  *emu.Waker // woken after every read, for the peer
}

func (s *seen) has(b byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes[b]
}

// fuzzRig is one input's world: the engine, its clock, and the tasks that
// read what the side under test writes.
type fuzzRig struct {
	m     *emu.Machine
	clock *netstack.Clock
	sched netstack.Sched
	done  atomic.Bool // the side under test has returned
}

func newFuzzRig() *fuzzRig {
	m := emu.NewMachine(1)
	return &fuzzRig{m: m, clock: netstack.NewClock(m), sched: netstack.Sched{M: m}}
}

// drain reads c in a task until it fails, so the side under test never blocks
// writing, and records what it sees in s (if not nil).
func (r *fuzzRig) drain(c net.Conn, s *seen) {
	r.m.Go("drain", func() {
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			if s != nil {
				s.mu.Lock()
				for _, b := range buf[:n] {
					s.bytes[b] = true
				}
				s.mu.Unlock()
				s.wake.Wake()
			}
			if err != nil {
				return
			}
		}
	})
}

// sleep blocks the calling task for d of virtual time.
func (r *fuzzRig) sleep(d time.Duration) {
	r.m.NewWaker().WaitUntil(r.m.Now() + emu.Time(d))
}

// finish runs the engine until the side under test has returned, failing the
// test if it blocks for good or outlives fuzzLimit of virtual time; then
// closeConns closes the peer's connections, and every task must end.
func (r *fuzzRig) finish(t *testing.T, what string, closeConns func()) {
	err := r.m.Run(nil, func() bool { return r.done.Load() || r.m.Now() > emu.Time(fuzzLimit) })
	switch {
	case errors.Is(err, emu.ErrStalled):
		t.Fatalf("%s blocked for good at %v of virtual time", what, r.m.Now().Duration())
	case !r.done.Load():
		t.Fatalf("%s still running after %v of virtual time", what, fuzzLimit)
	}
	closeConns()
	_ = r.m.Run(nil, func() bool { return r.m.Now() > emu.Time(2*fuzzLimit) })
	blocked := r.m.Blocked()
	r.m.Stop()
	if len(blocked) > 0 {
		t.Fatalf("%s returned, but with every connection closed these tasks still wait: %v", what, blocked)
	}
}

// checkNoLeak waits for the goroutine count to come back to base: the engine's
// task goroutines end as Stop unwinds them, a moment after it returns. The
// wait is for that event; the 30 s only bounds a real leak (a loaded host
// once needed more than the 0.3 s this allowed).
func checkNoLeak(t *testing.T, base int) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if runtime.NumGoroutine() <= base {
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("%d goroutines left (was %d):\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
}

// peer runs a program against the side under test, as an engine task.
type peer struct {
	rig    *fuzzRig
	ctrl   net.Conn
	seen   *seen
	stream func(cookie bool, data []byte) // what peerStream does in this role
	closed bool
}

func (p *peer) run(prog *fuzzBytesReader) {
	for range fuzzMaxOps {
		if len(prog.b) == 0 || p.rig.done.Load() {
			return
		}
		switch prog.next() % peerOps {
		case peerRaw:
			_, _ = p.ctrl.Write(prog.take(int(prog.next() % 64)))
		case peerCookie:
			_, _ = p.ctrl.Write(testCookie)
		case peerJSON:
			_, _ = p.ctrl.Write(framedJSON(jsonPool[int(prog.next())%len(jsonPool)]))
		case peerState:
			_, _ = p.ctrl.Write([]byte{prog.next()})
		case peerLength:
			_, _ = p.ctrl.Write(prog.take(4))
		case peerWait:
			want := byte(waitStates[int(prog.next())%len(waitStates)])
			until := p.rig.m.Now() + emu.Time(fuzzWait)
			for !p.seen.has(want) && !p.rig.done.Load() && p.rig.m.Now() < until {
				p.seen.wake.WaitUntil(until)
			}
		case peerStream:
			sel := prog.next()
			p.stream(sel&0x80 == 0, bytes.Repeat([]byte{sel}, int(sel%128)))
		case peerClose:
			_ = p.ctrl.Close()
			p.closed = true
			return
		case peerAdvance:
			p.rig.sleep(time.Duration(prog.next()) * fuzzWaitStep)
		}
	}
}

// prog assembles a peer program for the seeds.
func prog(ops ...[]byte) []byte { return bytes.Join(ops, nil) }

func op(code byte, args ...byte) []byte { return append([]byte{code}, args...) }

// jsonIndex finds a pool entry for the seeds.
func jsonIndex(s string) byte {
	for i, j := range jsonPool {
		if j == s {
			return byte(i)
		}
	}
	panic("not in jsonPool")
}

func FuzzServerControl(f *testing.F) {
	const closeAtEnd = 1
	handshake := prog(op(peerCookie), op(peerWait, 0), op(peerJSON, 0), op(peerWait, 1))
	run := prog(handshake, op(peerStream, 64), op(peerWait, 3))
	results := op(peerJSON, jsonIndex(jsonPool[10]))
	f.Add(append([]byte{closeAtEnd}, prog(run, op(peerState, byte(stateTestEnd)), op(peerWait, 5), results,
		op(peerWait, 6), op(peerState, byte(stateIperfDone)))...))
	f.Add(append([]byte{0}, prog(run, op(peerState, byte(stateTestEnd)), results)...)) // then silent
	f.Add(append([]byte{closeAtEnd}, prog(op(peerCookie), op(peerLength, 0xff, 0xff, 0xff, 0xff))...))
	f.Add(append([]byte{closeAtEnd}, prog(handshake, op(peerStream, 0x80|5), op(peerStream, 1), op(peerStream, 2))...))
	f.Add(append([]byte{closeAtEnd}, prog(op(peerCookie), op(peerJSON, 1), op(peerStream, 0), op(peerWait, 3), op(peerAdvance, 50),
		op(peerState, byte(stateClientTerminate)))...))
	f.Add([]byte{0, peerRaw, 3, 'a', 'b', 'c'})
	f.Fuzz(func(t *testing.T, data []byte) {
		base := runtime.NumGoroutine()
		in := &fuzzBytesReader{b: data}
		closeAll := in.next()&1 != 0
		r := newFuzzRig()
		ln := newEngineListener(r.sched, r.clock)
		var res *Result
		var serr error
		r.m.Go("server", func() {
			res, serr = ServeOne(context.Background(), ln, ServerOptions{Clock: r.clock, Sched: r.sched, IdleTimeout: fuzzIdle, Seed: 1})
			r.done.Store(true)
		})
		var mu sync.Mutex
		var conns []net.Conn
		closeConns := func() {
			mu.Lock()
			defer mu.Unlock()
			for _, c := range conns {
				c.Close()
			}
		}
		r.m.Go("peer", func() {
			ctrl, err := ln.dial()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, ctrl)
			mu.Unlock()
			p := &peer{rig: r, ctrl: ctrl, seen: &seen{wake: r.m.NewWaker()}}
			r.drain(ctrl, p.seen)
			p.stream = func(cookie bool, data []byte) {
				c, err := ln.dial()
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
				r.drain(c, nil)
				if !cookie {
					return // a silent connection
				}
				_, _ = c.Write(testCookie)
				r.m.Go("stream", func() { _, _ = c.Write(data) }) // read once the test runs
			}
			p.run(in)
			if closeAll {
				closeConns()
			}
		})
		r.finish(t, "server", closeConns)
		if serr == nil && res == nil {
			t.Fatal("server ended without an error or a result")
		}
		if serr != nil && res != nil && res.Error == "" {
			t.Fatalf("server error %v not in the result", serr)
		}
		checkNoLeak(t, base)
	})
}

// pipeServer plays the server for the client under test: the client's dials
// land here.
type pipeServer struct {
	rig   *fuzzRig
	mu    sync.Mutex
	conns []net.Conn
	ctrl  net.Conn
	seen  *seen // on the control connection
}

func (p *pipeServer) dial(ctx context.Context, _ string) (net.Conn, error) {
	client, server := newEnginePipe(p.rig.sched, p.rig.clock)
	p.mu.Lock()
	first := len(p.conns) == 0
	p.conns = append(p.conns, server)
	p.mu.Unlock()
	if first {
		p.rig.drain(server, p.seen)
		p.ctrl = server
		p.seen.wake.Wake()
	} else {
		p.rig.drain(server, nil)
	}
	return client, nil
}

func (p *pipeServer) newest() net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.conns) < 2 {
		return nil
	}
	return p.conns[len(p.conns)-1]
}

func (p *pipeServer) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// FuzzClientControl: byte 0 of the input chooses the client's options (bit 0:
// close everything at the end; bits 1-2: -P 1-4; bit 3: -R; bit 4: -J; bit 5:
// --get-server-output; bit 6: -n 4096 instead of -t 1), the rest is the server's
// program.
func FuzzClientControl(f *testing.F) {
	const closeAtEnd = 1
	results := op(peerJSON, jsonIndex(jsonPool[10]))
	full := prog(op(peerState, byte(stateParamExchange)), op(peerWait, 0), // waits for the cookie's bytes
		op(peerState, byte(stateCreateStreams)), op(peerState, byte(stateTestStart)), op(peerState, byte(stateTestRunning)),
		op(peerWait, 4), op(peerState, byte(stateExchangeResults)), results, op(peerState, byte(stateDisplayResults)))
	f.Add(append([]byte{closeAtEnd}, full...))
	f.Add(append([]byte{8 | 16}, full...))          // reverse, JSON, silent at the end
	f.Add(append([]byte{closeAtEnd | 64}, full...)) // -n
	f.Add([]byte{closeAtEnd, peerState, 0xff})      // ACCESS_DENIED
	f.Add([]byte{closeAtEnd, peerState, 0xfe, peerLength, 0, 0, 0, 5, peerLength, 0, 0, 0, 0})
	f.Add(append([]byte{closeAtEnd | 2<<1}, prog(op(peerState, byte(stateParamExchange)), op(peerState, byte(stateCreateStreams)),
		op(peerState, byte(stateTestStart)), op(peerState, byte(stateTestRunning)), op(peerWait, 4),
		op(peerState, byte(stateExchangeResults)), op(peerLength, 0xff, 0xff, 0xff, 0xff))...)) // CVE-2023-38403 length
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		base := runtime.NumGoroutine()
		in := &fuzzBytesReader{b: data}
		mode := in.next()
		r := newFuzzRig()
		srv := &pipeServer{rig: r, seen: &seen{wake: r.m.NewWaker()}}
		opts := ClientOptions{
			Host: "192.0.2.1", Seconds: 1, Parallel: int(mode>>1&3) + 1, Reverse: mode&8 != 0, BlockSize: 1024,
			JSON: mode&16 != 0, GetServerOutput: mode&32 != 0,
			Dial: srv.dial, Clock: r.clock, Sched: r.sched, IdleTimeout: fuzzIdle, Seed: 1,
		}
		if mode&64 != 0 {
			opts.Seconds, opts.Bytes = 0, 4096
		}
		var res *Result
		var cerr error
		r.m.Go("client", func() {
			res, cerr = Run(context.Background(), opts)
			r.done.Store(true)
		})
		r.m.Go("peer", func() {
			for srv.ctrl == nil && !r.done.Load() {
				srv.seen.wake.Wait()
			}
			if srv.ctrl == nil {
				return
			}
			p := &peer{rig: r, ctrl: srv.ctrl, seen: srv.seen}
			p.stream = func(_ bool, data []byte) {
				if c := srv.newest(); c != nil {
					// A client that sends never reads its streams: write aside.
					r.m.Go("stream", func() { _, _ = c.Write(data) })
				}
			}
			p.run(in)
			if mode&1 != 0 {
				srv.closeAll()
			}
		})
		r.finish(t, "client", srv.closeAll)
		if res == nil {
			t.Fatalf("client returned no result (error %v)", cerr)
		}
		if (cerr != nil) != (res.Error != "") {
			t.Fatalf("client error %v, result error %q", cerr, res.Error)
		}
		if cerr == nil && !srv.seen.has(byte(stateIperfDone)) {
			t.Fatal("client succeeded without sending IPERF_DONE")
		}
		checkNoLeak(t, base)
	})
}
