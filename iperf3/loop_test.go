package iperf3

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"mesonemu/socket"
)

// Lines of iperf3's text output (src/iperf_locale.c formats, numbers
// generalised).
var (
	reInterval     = regexp.MustCompile(`^\[ {0,2}\d+\] +\d+\.\d\d-\d+\.\d\d +sec +[\d.]+ [KMGT]?Bytes +[\d.]+ [KMGT]?bits/sec( +\d+ +[\d.]+ [KMGT]?Bytes)? +(\(omitted\))?$`)
	reSumInterval  = regexp.MustCompile(`^\[SUM\] +\d+\.\d\d-\d+\.\d\d +sec +[\d.]+ [KMGT]?Bytes +[\d.]+ [KMGT]?bits/sec( +\d+)? +(\(omitted\))?$`)
	reSummary      = regexp.MustCompile(`^\[( {0,2}\d+|SUM)\] +0\.00-\d+\.\d\d +sec +[\d.]+ [KMGT]?Bytes +[\d.]+ [KMGT]?bits/sec( +\d+)? +(sender|receiver)$`)
	reConnected    = regexp.MustCompile(`^\[ {0,2}\d+\] local 127\.0\.0\.1 port \d+ connected to 127\.0\.0\.1 port \d+$`)
	textLineShapes = []*regexp.Regexp{
		reInterval, reSumInterval, reSummary, reConnected,
		regexp.MustCompile(`^Connecting to host 127\.0\.0\.1, port \d+$`),
		regexp.MustCompile(`^Reverse mode, remote host 127\.0\.0\.1 is sending$`),
		regexp.MustCompile(`^Accepted connection from 127\.0\.0\.1, port \d+$`),
		regexp.MustCompile(`^Server listening on \d+ \(test #\d+\)$`),
		regexp.MustCompile(`^-{59}$`),
		regexp.MustCompile(`^(- ){24}-$`),
		regexp.MustCompile(`^\[ ID\] Interval           Transfer     Bitrate(         Retr(  Cwnd)?)?$`),
		regexp.MustCompile(`^iperf Done\.$`),
		regexp.MustCompile(`^$`),
	}
)

// checkTextShape fails on any output line that is not one of iperf3's.
func checkTextShape(t *testing.T, who, text string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		ok := false
		for _, re := range textLineShapes {
			ok = ok || re.MatchString(line)
		}
		if !ok {
			t.Errorf("%s printed a line iperf3 does not print: %q", who, line)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a test writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type loopRun struct {
	client, server       *Result
	clientErr, serverErr error
	clientOut, serverOut string
}

// runLoop runs our client against our server over loopback.
func runLoop(t *testing.T, args ...string) loopRun {
	t.Helper()
	ln, port := loopbackPort(t)
	cfg, err := ParseArgs(append([]string{"-c", "127.0.0.1", "-p", itoa(port)}, args...))
	if err != nil {
		t.Fatal(err)
	}
	var srvOut, cliOut bytes.Buffer
	served := serveOneAsync(ln, ServerOptions{
		Output: &srvOut, TCPInfo: socket.HostTCPInfo, Congestion: socket.HostCongestion, IdleTimeout: 10 * time.Second,
	})
	o := cfg.Client
	o.Output, o.TCPInfo, o.Congestion, o.IdleTimeout = &cliOut, socket.HostTCPInfo, socket.HostCongestion, 10*time.Second
	var r loopRun
	r.client, r.clientErr = Run(context.Background(), o)
	r.server, r.serverErr = served()
	r.clientOut, r.serverOut = cliOut.String(), srvOut.String()
	return r
}

func sumPeer(p *PeerResults) (total uint64) {
	for _, s := range p.Streams {
		total += s.Bytes
	}
	return total
}

// TestClientAgainstServer runs our client against our server and checks
// that both sides' accounts of the test agree: what one side reports in the
// results exchange is what the other side prints.
func TestClientAgainstServer(t *testing.T) {
	const block = DefaultBlockSize
	tests := []struct {
		name    string
		args    []string
		streams int
		reverse bool
		bytes   uint64 // exact bytes sent with -n: whole blocks
	}{
		{"forward", []string{"-t", "1"}, 1, false, 0},
		{"reverse", []string{"-t", "1", "-R"}, 1, true, 0},
		{"parallel3", []string{"-P", "3", "-n", "30M"}, 3, false, 240 * block},
		{"bytes", []string{"-n", "10000000"}, 1, false, 77 * block}, // 76.3 blocks round up
		{"reverse-bytes", []string{"-R", "-n", "10M", "-P", "2"}, 2, true, 80 * block},
		{"json", []string{"-n", "1M", "-J", "-l", "64K"}, 1, false, 16 * 64 * 1024},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runLoop(t, tc.args...)
			if r.clientErr != nil || r.serverErr != nil {
				t.Fatalf("client: %v\nserver: %v\n%s\n%s", r.clientErr, r.serverErr, r.clientOut, r.serverOut)
			}
			c, s := r.client, r.server
			if len(c.End.Streams) != tc.streams || len(s.End.Streams) != tc.streams {
				t.Fatalf("streams: client %d, server %d, want %d", len(c.End.Streams), len(s.End.Streams), tc.streams)
			}
			wantIDs := []int{1, 3, 4}[:tc.streams]
			for i, ps := range s.Peer.Streams {
				if ps.ID != wantIDs[i] {
					t.Errorf("stream %d has id %d, want %d", i, ps.ID, wantIDs[i])
				}
			}
			if c.Start.Cookie != s.Start.Cookie || len(c.Start.Cookie) != CookieSize-1 {
				t.Errorf("cookies: client %q, server %q", c.Start.Cookie, s.Start.Cookie)
			}
			sent, received := c.End.SumSent.Bytes, c.End.SumReceived.Bytes
			if tc.reverse {
				// The server's own count is what the client prints as sent.
				if sent != s.End.SumSent.Bytes || received != sumPeer(s.Peer) {
					t.Errorf("client sent %d received %d; server sent %d, heard %d received",
						sent, received, s.End.SumSent.Bytes, sumPeer(s.Peer))
				}
			} else if sent != sumPeer(s.Peer) || received != s.End.SumReceived.Bytes {
				t.Errorf("client sent %d received %d; server heard %d sent, received %d",
					sent, received, sumPeer(s.Peer), s.End.SumReceived.Bytes)
			}
			// Like iperf3 the server stops counting at TEST_END, so after a
			// quick -n test it may have read little of what is in flight.
			if received > sent || (tc.bytes == 0 && received == 0) {
				t.Errorf("received %d of %d sent", received, sent)
			}
			if tc.bytes > 0 {
				if sent != tc.bytes {
					t.Errorf("-n sent %d bytes, want %d", sent, tc.bytes)
				}
				if tc.reverse && received != tc.bytes {
					t.Errorf("client stopped after %d of %d bytes", received, tc.bytes)
				}
			}
			if tc.bytes == 0 && c.End.SumSent.Seconds < 1 {
				t.Errorf("a -t 1 test ended after %.6f s", c.End.SumSent.Seconds)
			}
			if strings.Contains(strings.Join(tc.args, " "), "-J") {
				var doc Result
				if err := json.Unmarshal([]byte(r.clientOut), &doc); err != nil {
					t.Fatalf("-J output is not JSON: %v\n%s", err, r.clientOut)
				}
				if doc.End.SumSent == nil || doc.End.SumSent.Bytes != sent || doc.Start.TestStart.BlkSize != 64*1024 {
					t.Errorf("-J output disagrees with the Result: %+v", doc.End.SumSent)
				}
				return
			}
			checkTextShape(t, "client", r.clientOut)
			checkTextShape(t, "server", r.serverOut)
			if !strings.HasSuffix(r.clientOut, "receiver\n\niperf Done.\n") {
				t.Errorf("client output ends %q", r.clientOut[max(0, len(r.clientOut)-80):])
			}
		})
	}
}

// TestSecondClientRefused connects a second client while a test runs: it
// gets ACCESS_DENIED (one 0xFF byte) and is closed; the first test is not
// disturbed and the server takes the next client afterwards.
func TestSecondClientRefused(t *testing.T) {
	ln, port := loopbackPort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results := make(chan error, 4)
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, ln, ServerOptions{OnTest: func(_ *Result, err error) { results <- err }})
	}()

	var firstOut syncBuffer
	first := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), ClientOptions{Host: "127.0.0.1", Port: port, Seconds: 1, Output: &firstOut})
		first <- err
	}()
	for !strings.Contains(firstOut.String(), "connected to") { // the test is under way
		select {
		case err := <-first:
			t.Fatalf("first client ended early: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}

	raw, err := dialLoopback(port)
	if err != nil {
		t.Fatal(err)
	}
	p := fakePeer{t, raw}
	p.expect(stateAccessDenied)
	if rest := p.expectEOF(); len(rest) != 0 {
		t.Errorf("after ACCESS_DENIED the server sent %q", rest)
	}
	raw.Close()
	_, err = Run(context.Background(), ClientOptions{Host: "127.0.0.1", Port: port, Bytes: 1})
	if CodeOf(err) != CodeAccessDenied || err.Error() != "the server is busy running a test. try again later" {
		t.Errorf("second client: %v", err)
	}

	if err := <-first; err != nil {
		t.Fatalf("first client: %v", err)
	}
	if err := <-results; err != nil {
		t.Fatalf("first test on the server: %v", err)
	}
	if _, err := Run(context.Background(), ClientOptions{Host: "127.0.0.1", Port: port, Bytes: 1}); err != nil {
		t.Errorf("the next client after the test: %v", err)
	}
	if err := <-results; err != nil {
		t.Errorf("second test on the server: %v", err)
	}
	cancel()
	if err := <-served; err != context.Canceled {
		t.Errorf("Serve returned %v after cancel", err)
	}
}

// TestAbort cancels one side mid-test: a cancelled client sends
// CLIENT_TERMINATE, a cancelled server SERVER_TERMINATE, and each side ends
// with iperf3's error for it after printing what it measured.
func TestAbort(t *testing.T) {
	for _, cancelServer := range []bool{false, true} {
		name := map[bool]string{false: "client", true: "server"}[cancelServer]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ln, port := loopbackPort(t)
			srvCtx, stopServer := context.WithCancel(context.Background())
			defer stopServer()
			cliCtx, stopClient := context.WithCancel(context.Background())
			defer stopClient()
			testErr := make(chan error, 1)
			var srvOut syncBuffer
			go func() {
				_ = Serve(srvCtx, ln, ServerOptions{Output: &srvOut, Interval: 100 * time.Millisecond,
					OnTest: func(_ *Result, err error) { testErr <- err }})
			}()
			var cliOut syncBuffer
			clientErr := make(chan error, 1)
			go func() {
				_, err := Run(cliCtx, ClientOptions{Host: "127.0.0.1", Port: port, Seconds: 30, Output: &cliOut,
					Interval: 100 * time.Millisecond})
				clientErr <- err
			}()
			// Both sides are measuring once both printed an interval.
			for !strings.Contains(srvOut.String(), " sec ") || !strings.Contains(cliOut.String(), " sec ") {
				time.Sleep(5 * time.Millisecond)
			}
			if cancelServer {
				stopServer()
			} else {
				stopClient()
			}
			cerr, serr := <-clientErr, <-testErr
			wantClient, wantServer := CodeClientTerm, CodeClientTerm
			if cancelServer {
				wantClient, wantServer = CodeServerTerm, CodeServerTerm
			}
			if CodeOf(cerr) != wantClient || CodeOf(serr) != wantServer {
				t.Errorf("client error %v, server error %v; want codes %d and %d", cerr, serr, wantClient, wantServer)
			}
			// The cancelled side printed its partial summary.
			partial := cliOut.String()
			if cancelServer {
				partial = srvOut.String()
			}
			if !strings.Contains(partial, "sender") && !strings.Contains(partial, "receiver") {
				t.Errorf("no partial summary:\n%s", partial)
			}
		})
	}
}
