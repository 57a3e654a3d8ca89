package iperf3

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"mesonemu/socket"

	"gvisor.dev/gvisor/pkg/tcpip"
)

// TestUDPServerSurvivesHostilePeers plays a UDP test by hand against our
// server while a stranger floods the data port and the stream's own socket
// sends short datagrams, and forges set-up messages: the server counts the test's 50 datagrams and
// every one it dropped, then serves a real client's next test.
func TestUDPServerSurvivesHostilePeers(t *testing.T) {
	ln, port := loopbackPort(t)
	var mu sync.Mutex
	var results []*Result
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The server's UDP socket counts the datagrams it hands over, so the test
	// ends once the server has read every one it was sent, not after a pause.
	const flood, good, short, forged = 100, 50, 5, 3 // a short one after every tenth
	const sent = 1 + flood + forged + good + short   // the set-up message first
	allRead := make(chan struct{})
	listen := func(ctx context.Context, port int) (net.PacketConn, error) {
		pc, err := socket.HostListenUDP(ctx, port)
		if err != nil {
			return nil, err
		}
		return &countingPacketConn{PacketConn: pc, at: sent, reached: allRead}, nil
	}
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, ln, ServerOptions{IdleTimeout: 5 * time.Second, ListenUDP: listen, OnTest: func(r *Result, _ error) {
			mu.Lock()
			results = append(results, r)
			mu.Unlock()
		}})
	}()
	udpAddr := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}

	ctrl := handshake(t, port, `{"udp":true,"time":1,"parallel":1,"len":100,"bandwidth":1000000,"client_version":"3.12"}`)
	stream, err := net.DialUDP("udp", nil, udpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if _, err := stream.Write(udpConnectMsg); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 16)
	_ = stream.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := stream.Read(reply); err != nil || string(reply[:n]) != string(udpConnectReply) {
		t.Fatalf("set-up reply %q, %v", reply[:n], err)
	}
	ctrl.expect(stateTestStart)
	ctrl.expect(stateTestRunning)

	stranger, err := net.DialUDP("udp", nil, udpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	b := make([]byte, 100)
	for i := 0; i < flood; i++ {
		putUDPHeader(b, tcpip.MonotonicTime{}, uint64(i+1), false)
		_, _ = stranger.Write(b)
	}
	// A forged set-up message once the streams are made: no new stream, and
	// no reply, only a count.
	for range forged {
		_, _ = stranger.Write(udpConnectMsg)
	}
	_ = stranger.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := stranger.Read(reply); err == nil {
		t.Errorf("a forged set-up message got the answer %q", reply[:n])
	}
	for i := 0; i < good; i++ {
		putUDPHeader(b, tcpip.MonotonicTime{}, uint64(i+1), false)
		_, _ = stream.Write(b)
		if i%10 == 0 {
			_, _ = stream.Write(b[:5])
		}
	}
	select {
	case <-allRead:
	case <-time.After(time.Minute): // only bounds a broken run
		t.Fatalf("the server read fewer than the %d datagrams sent", sent)
	}
	ctrl.send(byte(stateTestEnd))
	ctrl.expect(stateExchangeResults)
	ctrl.sendJSON([]byte(`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":0,` +
		`"streams":[{"id":1,"bytes":5000,"retransmits":-1,"jitter":0,"errors":0,"packets":50,"start_time":0,"end_time":1}]}`))
	ctrl.readJSON()
	ctrl.expect(stateDisplayResults)
	ctrl.send(byte(stateIperfDone))
	ctrl.expectEOF()

	r := runLoopOn(t, port, "-u", "-b", "10M", "-l", "500", "-k", "100")
	if r.clientErr != nil || r.client.End.SumSent.Packets != 100 {
		t.Fatalf("the next test: %v, %+v", r.clientErr, r.client.End.SumSent)
	}
	cancel()
	<-served
	mu.Lock()
	defer mu.Unlock()
	if len(results) != 2 {
		t.Fatalf("%d tests served, want 2", len(results))
	}
	first := results[0]
	d := first.UDPDrops
	if d == nil || d.UnknownSource != flood+forged || d.Malformed != short || first.End.SumReceived.Packets != good ||
		first.End.SumReceived.LostPackets != 0 {
		t.Errorf("hostile test: drops %+v, received %+v %+v", d, first.End.SumReceived, first.End.SumReceived.UDPSum)
	}
}

// runLoopOn runs only our client, against a server already on port.
func runLoopOn(t *testing.T, port int, args ...string) loopRun {
	t.Helper()
	cfg, err := ParseArgs(append([]string{"-c", "127.0.0.1", "-p", itoa(port)}, args...))
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	o := cfg.Client
	o.Output, o.IdleTimeout = &out, 10*time.Second
	var r loopRun
	r.client, r.clientErr = Run(context.Background(), o)
	r.clientOut = out.String()
	return r
}

// countingPacketConn closes reached when the server has dealt with at
// datagrams: at the read that follows the at-th, since the server handles
// each datagram before it reads the next.
type countingPacketConn struct {
	net.PacketConn
	mu      sync.Mutex
	n, at   int
	reached chan struct{}
}

func (c *countingPacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	c.mu.Lock()
	if c.n == c.at {
		close(c.reached)
	}
	c.mu.Unlock()
	n, addr, err := c.PacketConn.ReadFrom(p)
	if err == nil {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return n, addr, err
}
