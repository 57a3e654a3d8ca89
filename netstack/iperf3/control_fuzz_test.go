package iperf3

import (
	"fmt"
	"os"
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip/faketime"
)

// The iperf3 control protocol against a fuzz-driven peer, in both roles, over
// net.Pipe connections and a manual test clock.
//
// Input layout (both targets): byte 0 is the mode: bit 0 set = the peer closes its
// connections when its script is done, clear = it goes silent and the test clock
// is driven forward until the idle timeout ends the test; bits 1-2 = the number
// of data connections the peer opens or feeds (0-3); bit 3 = reverse (client
// role). Byte 1 splits the script: the first part goes out at once, the rest once
// the data connections are open. The script is the bytes after byte 1; data
// connections (server role) send the script's first 37 bytes as their cookie,
// then 64 bytes of it as data.
//
// Whatever the peer sends, the role under test must end with an error or a result,
// must not panic, and must leave no goroutine behind once its connections are
// closed.

const (
	fuzzIdle    = 8 * time.Second
	fuzzStep    = 10 * time.Minute // beyond the idle timeout and the 40 s server grace
	fuzzMaxStep = 200              // 2000 virtual minutes: past -t 86400 + -O 600 + 40 s
)

type fuzzScript struct {
	closeAtEnd bool
	streams    int
	reverse    bool
	first      []byte
	rest       []byte
	cookie     []byte
}

func parseFuzzScript(data []byte) fuzzScript {
	var s fuzzScript
	if len(data) < 2 {
		return fuzzScript{closeAtEnd: true}
	}
	s.closeAtEnd = data[0]&1 != 0
	s.streams = int(data[0] >> 1 & 3)
	s.reverse = data[0]&8 != 0
	script := data[2:]
	split := min(int(data[1]), len(script))
	s.first, s.rest = script[:split], script[split:]
	s.cookie = script[:min(CookieSize, len(script))]
	return s
}

// signals are closed the first time a byte arrives from the side under test;
// the peer uses them to pace its script (roughly: the byte may also sit inside a
// JSON body or a length).
type signals map[byte]chan struct{}

func newSignals(states ...int8) signals {
	s := signals{}
	for _, st := range states {
		s[byte(st)] = make(chan struct{})
	}
	return s
}

// drain reads c until it fails, so the side under test never blocks writing to a
// synchronous pipe, and closes the signals of the bytes it sees.
func drain(c net.Conn, wg *sync.WaitGroup, sig signals) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			for b, ch := range sig {
				if bytes.IndexByte(buf[:n], b) >= 0 {
					close(ch)
					delete(sig, b)
				}
			}
			if err != nil {
				return
			}
		}
	}()
}

// spin yields to the other goroutines until ch or done is closed, at most n
// times; it reports whether one was.
func spin(ch, done <-chan struct{}, n int) bool {
	for range n {
		select {
		case <-ch:
			return true
		case <-done:
			return true
		default:
			runtime.Gosched()
		}
	}
	return false
}

// waitSignal waits for ch or done, advancing the clock by step (if any) between
// spins, at most steps times. The waits only pace the script: when the machine is
// slow the script goes on earlier, which explores another path, never a wrong one.
func waitSignal(clock *faketime.ManualClock, ch, done <-chan struct{}, step time.Duration, steps int) {
	for range steps {
		if spin(ch, done, 200) {
			return
		}
		if step > 0 {
			clock.Advance(step)
		}
	}
}

// driveUntil advances the clock until done is closed, or fails the test. Before
// each step it lets the side under test run, so a script that completes is
// usually not cut short by an idle timeout the jump causes.
func driveUntil(t *testing.T, clock *faketime.ManualClock, done <-chan struct{}, what string) {
	for range fuzzMaxStep {
		if spin(nil, done, 500) {
			return
		}
		clock.Advance(fuzzStep)
	}
	// Blocked goroutines get real time before it is called a hang.
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running after %v of test time", what, time.Duration(fuzzMaxStep)*fuzzStep)
	}
}

// checkNoLeak waits for the goroutine count to come back to base.
func checkNoLeak(t *testing.T, base int) {
	lf, _ := os.OpenFile("/tmp/fuzzexec.log", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	fmt.Fprintf(lf, "%d leakcheck base %d now %d\n", os.Getpid(), base, runtime.NumGoroutine())
	lf.Close()
	for i := 0; i < 5000; i++ {
		if runtime.NumGoroutine() <= base {
			return
		}
		time.Sleep(time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Fatalf("%d goroutines left (was %d):\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
}

func FuzzServerControl(f *testing.F) {
	framed := func(s string) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
	}
	good := append(append(append([]byte(nil), testCookie...), framed(goodParams)...), byte(stateTestEnd))
	good = append(good, framed(`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":0,"streams":[{"id":1,"bytes":64,"retransmits":0,"jitter":0,"errors":0,"packets":0}]}`)...)
	good = append(good, byte(stateIperfDone))
	split := byte(len(testCookie) + len(framed(goodParams)))
	f.Add(append([]byte{1 | 1<<1, split}, good...))                             // a whole test, one stream
	f.Add(append([]byte{0 | 1<<1, split}, good...))                             // the same, then silence
	f.Add(append([]byte{1, 40}, append(testCookie, 0xff, 0xff, 0xff, 0xff)...)) // CVE-2023-38403 length
	f.Add(append([]byte{0, 37}, testCookie...))                                 // silent after the cookie
	f.Add(append([]byte{1 | 3<<1, split}, good...))                             // three streams for -P 1
	f.Add([]byte{1, 0, 'a'})
	f.Fuzz(func(t *testing.T, data []byte) {
		t0 := time.Now()
		lf, _ := os.OpenFile("/tmp/fuzzexec.log", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintf(lf, "%d start %x\n", os.Getpid(), data)
		defer func() { fmt.Fprintf(lf, "%d end %v\n", os.Getpid(), time.Since(t0)); lf.Close() }()
		base := runtime.NumGoroutine()
		s := parseFuzzScript(data)
		ln := newPipeListener()
		clock := faketime.NewManualClock()
		var res *Result
		var serr error
		done := make(chan struct{})
		go func() {
			res, serr = ServeOne(context.Background(), ln, ServerOptions{Clock: clock, IdleTimeout: fuzzIdle, Seed: 1})
			close(done)
		}()
		var wg sync.WaitGroup
		var conns []net.Conn
		ctrl, err := ln.dial()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, ctrl)
		sig := newSignals(stateCreateStreams, stateTestRunning)
		created, running := sig[byte(stateCreateStreams)], sig[byte(stateTestRunning)]
		drain(ctrl, &wg, sig)
		_, _ = ctrl.Write(s.first)
		if s.streams > 0 {
			waitSignal(clock, created, done, 0, 50)
			for range s.streams {
				c, err := ln.dial()
				if err != nil {
					break // the server is gone
				}
				conns = append(conns, c)
				drain(c, &wg, nil)
				// The cookie write returns once the server has read it (or closed).
				_, _ = c.Write(s.cookie)
				data := append([]byte(nil), s.rest[:min(64, len(s.rest))]...)
				go func() { _, _ = c.Write(data) }() // read once the test runs
			}
			waitSignal(clock, running, done, 0, 50)
		}
		_, _ = ctrl.Write(s.rest)
		if s.closeAtEnd {
			for _, c := range conns {
				c.Close()
			}
		}
		driveUntil(t, clock, done, "server")
		for _, c := range conns {
			c.Close()
		}
		wg.Wait()
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
	mu    sync.Mutex
	conns []net.Conn
	ctrl  chan net.Conn
	sig   signals // seen on the control connection
	wg    sync.WaitGroup
}

func (p *pipeServer) dial(ctx context.Context, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	p.mu.Lock()
	first := len(p.conns) == 0
	p.conns = append(p.conns, server)
	p.mu.Unlock()
	var sig signals
	if first {
		sig = p.sig
	}
	drain(server, &p.wg, sig)
	if first {
		p.ctrl <- server
	}
	return client, nil
}

func (p *pipeServer) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

func FuzzClientControl(f *testing.F) {
	framed := func(s string) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
	}
	results := framed(`{"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":0,` +
		`"streams":[{"id":1,"bytes":1024,"retransmits":0,"jitter":0,"errors":0,"packets":0}]}`)
	good := []byte{byte(stateParamExchange), byte(stateCreateStreams), byte(stateTestStart), byte(stateTestRunning)}
	good = append(good, byte(stateExchangeResults))
	good = append(good, results...)
	good = append(good, byte(stateDisplayResults))
	f.Add(append([]byte{1 | 1<<1, 4}, good...))
	f.Add(append([]byte{0 | 1<<1 | 8, 4}, good...))
	f.Add([]byte{1, 0, 0xff})                                                // ACCESS_DENIED
	f.Add([]byte{1, 0, 0xfe, 0, 0, 0, 5, 0, 0, 0, 0})                        // SERVER_ERROR 5
	f.Add(append([]byte{1, 5}, append(good[:5], 0xff, 0xff, 0xff, 0xff)...)) // CVE-2023-38403 length
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		base := runtime.NumGoroutine()
		s := parseFuzzScript(data)
		clock := faketime.NewManualClock()
		srv := &pipeServer{ctrl: make(chan net.Conn, 1), sig: newSignals(stateTestEnd)}
		testEnd := srv.sig[byte(stateTestEnd)]
		var res *Result
		var cerr error
		done := make(chan struct{})
		go func() {
			res, cerr = Run(context.Background(), ClientOptions{
				Host: "192.0.2.1", Seconds: 1, Parallel: max(1, s.streams), Reverse: s.reverse, BlockSize: 1024,
				Dial: srv.dial, Clock: clock, IdleTimeout: fuzzIdle, Seed: 1, JSON: s.streams == 2,
			})
			close(done)
		}()
		ctrl := <-srv.ctrl
		_, _ = ctrl.Write(s.first)
		// The client ends its -t 1 test on the test clock: run it in 100 ms steps
		// (its data keeps the idle watchdog quiet) until TEST_END comes.
		waitSignal(clock, testEnd, done, 100*time.Millisecond, 50)
		_, _ = ctrl.Write(s.rest)
		if s.closeAtEnd {
			srv.closeAll()
		}
		driveUntil(t, clock, done, "client")
		srv.closeAll()
		srv.wg.Wait()
		if res == nil {
			t.Fatalf("client returned no result (error %v)", cerr)
		}
		if (cerr != nil) != (res.Error != "") {
			t.Fatalf("client error %v, result error %q", cerr, res.Error)
		}
		if cerr == nil && !strings.Contains(string(s.rest)+string(s.first), string([]byte{byte(stateDisplayResults)})) {
			t.Fatal("client succeeded without DISPLAY_RESULTS")
		}
		checkNoLeak(t, base)
	})
}
