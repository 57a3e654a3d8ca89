package iperf3

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"mesonemu/socket"
)

// TestIdleTimeout: --idle-timeout with no client makes a one-off server end
// with no error, and a standing server listen afresh (3.12 restarts it).
func TestIdleTimeout(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-s", "--idle-timeout", "5"}, ""},
		{[]string{"-s", "--idle-timeout", "0"}, "idle timeout parameter is not positive or larger than allowed limit"},
		{[]string{"-s", "--idle-timeout", "86401"}, "idle timeout parameter is not positive or larger than allowed limit"},
	} {
		cfg, err := ParseArgs(c.args)
		switch {
		case c.wantErr == "" && (err != nil || cfg.Server.WaitTimeout != 5*time.Second):
			t.Errorf("%v: %v, wait timeout %v", c.args, err, cfg.Server.WaitTimeout)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%v: %v, want %q", c.args, err, c.wantErr)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback TCP:", err)
	}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), ln, ServerOptions{OneOff: true, WaitTimeout: 50 * time.Millisecond})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("one-off server after its idle timeout: %v, want nil (exit 0)", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("one-off server still waiting 30 s after a 50 ms idle timeout")
	}

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- Serve(ctx, ln, ServerOptions{WaitTimeout: 20 * time.Millisecond, Output: &out}) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "(test #3)") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if !strings.Contains(out.String(), "Server listening on") || !strings.Contains(out.String(), "(test #3)") {
		t.Errorf("a standing server did not listen afresh after its idle timeouts:\n%s", out.String())
	}
}

// TestServerBitrateLimit: a client that asks for more than the limit is
// refused at the parameter exchange; one that sends more on average over the
// window is stopped there; a bad window gets 3.12's words.
func TestServerBitrateLimit(t *testing.T) {
	if _, err := ParseArgs([]string{"-s", "--server-bitrate-limit", "100M/0"}); err == nil || err.Error() != codeText[CodeTotalInterval] {
		t.Errorf("bad window: %v", err)
	}
	cfg, err := ParseArgs([]string{"-s", "--server-bitrate-limit", "300M/2"})
	if err != nil || cfg.Server.Limit != (BitrateLimit{Rate: 300e6, Window: 2 * time.Second}) {
		t.Fatalf("parse: %v, %+v", err, cfg.Server.Limit)
	}
	cases := []struct {
		name    string
		client  ClientOptions
		limit   BitrateLimit
		refused bool
	}{
		{"asks for 2 x 200M against 300M", ClientOptions{Bandwidth: 200e6, BandwidthSet: true, Parallel: 2, Seconds: 2}, BitrateLimit{Rate: 300e6}, true},
		// Unlimited: the parameters pass, the first interval report is over.
		{"sends unlimited against 10M over 1 s", ClientOptions{Seconds: 4}, BitrateLimit{Rate: 10e6, Window: time.Second}, true},
		{"sends 5M against 10M", ClientOptions{Bandwidth: 5e6, BandwidthSet: true, Seconds: 2}, BitrateLimit{Rate: 10e6, Window: time.Second}, false},
	}
	for _, c := range cases {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Skip("no loopback TCP:", err)
		}
		var serverErr error
		done := make(chan struct{})
		go func() {
			_, serverErr = ServeOne(context.Background(), ln, ServerOptions{Limit: c.limit})
			close(done)
		}()
		o := c.client
		o.Host, o.Port = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
		_, clientErr := Run(context.Background(), o)
		<-done
		stopped := serverErr != nil && strings.Contains(serverErr.Error(), codeText[CodeTotalRate])
		if stopped != c.refused || (c.refused && clientErr == nil) || (!c.refused && clientErr != nil) {
			t.Errorf("%s: server %v, client %v; want stopped %v", c.name, serverErr, clientErr, c.refused)
		}
	}
}

// TestVerbose: -V adds 3.12's lines, in 3.12's order, on both ends (the
// order is the real binary's, observed with iperf3 3.12 -V).
func TestVerbose(t *testing.T) {
	ln, port := loopbackPort(t)
	var srvOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, ServerOptions{Verbose: true, Output: &srvOut}) }()
	defer func() { cancel(); <-served }()
	r := runLoopOn(t, port, "-V", "-t", "1", "-b", "50M")
	if r.clientErr != nil {
		t.Fatal(r.clientErr)
	}
	inOrder := func(who, out string, want ...string) {
		t.Helper()
		rest := out
		for _, w := range want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: %q missing or out of order in:\n%s", who, w, out)
				return
			}
			rest = rest[i+len(w):]
		}
	}
	inOrder("client", r.clientOut, "iperf 3.12\n", "\nControl connection MSS ", "\nTime: ", "\nConnecting to host 127.0.0.1",
		"\n      Cookie: ", "\n      Target Bitrate: 50000000\n", " connected to ",
		"\nStarting Test: protocol: TCP, 1 streams, 131072 byte blocks, omitting 0 seconds, 1 second test, tos 0\n",
		"\n- - - - - - - - - - - - - - - - - - - - - - - - -\nTest Complete. Summary Results:\n[ ID] Interval",
		"receiver\nCPU Utilization: local/sender 0.0% (0.0%u/0.0%s), remote/receiver 0.0% (0.0%u/0.0%s)\n", "\niperf Done.\n")
	inOrder("server", srvOut.String(), "iperf 3.12\n", "\nServer listening on", "\nTime: ", "\nAccepted connection from 127.0.0.1",
		"\n      Cookie: ", "\n      Target Bitrate: 50000000\n", " connected to ", "\nStarting Test: protocol: TCP, 1 streams",
		"\nTest Complete. Summary Results:\n")
	// Without -V none of it, once the server is listening for its next test.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(srvOut.String(), "(test #2)") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	r = runLoopOn(t, port, "-t", "1")
	if r.clientErr != nil || !strings.Contains(r.clientOut, "iperf Done.") || strings.Contains(r.clientOut, "Cookie:") || strings.Contains(r.clientOut, "Test Complete") {
		t.Errorf("without -V: %v\n%s", r.clientErr, r.clientOut)
	}
}

// TestExtraData: --extra-data reaches both ends' JSON, as 3.12's
// "extra_data" key does.
func TestExtraData(t *testing.T) {
	ln, port := loopbackPort(t)
	got := make(chan *Result, 1)
	go func() {
		r, _ := ServeOne(context.Background(), ln, ServerOptions{})
		got <- r
	}()
	cfg, err := ParseArgs([]string{"-c", "127.0.0.1", "-p", itoa(port), "-t", "1", "--extra-data", "board run 7"})
	if err != nil {
		t.Fatal(err)
	}
	client, err := Run(context.Background(), cfg.Client)
	if err != nil {
		t.Fatal(err)
	}
	server := <-got
	if client.ExtraData != "board run 7" || server == nil || server.ExtraData != "board run 7" {
		t.Errorf("extra_data: client %q, server %+v", client.ExtraData, server)
	}
}

// TestRcvTimeout: --rcv-timeout sets how long a side waits with nothing
// received, in 3.12's range and words (checked against the real binary).
func TestRcvTimeout(t *testing.T) {
	cases := []struct {
		args    []string
		want    time.Duration
		wantErr string
	}{
		{[]string{"-s", "--rcv-timeout", "500"}, 500 * time.Millisecond, ""},
		{[]string{"-c", "h", "-R", "--rcv-timeout", "2000"}, 2 * time.Second, ""},
		{[]string{"-c", "h", "--bidir", "--rcv-timeout", "2000"}, 2 * time.Second, ""},
		{[]string{"-c", "h", "--rcv-timeout", "2000"}, 0, "client receive timeout is valid only in receiving mode: \n"},
		{[]string{"-s", "--rcv-timeout", "5"}, 0, "receive timeout value is incorrect or not in range: \n"},
	}
	for _, c := range cases {
		cfg, err := ParseArgs(c.args)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%v: %v, want %q", c.args, err, c.wantErr)
			}
			continue
		}
		got := cfg.Server.IdleTimeout
		if cfg.Mode == ModeClient {
			got = cfg.Client.IdleTimeout
		}
		if err != nil || got != c.want {
			t.Errorf("%v: %v, timeout %v, want %v", c.args, err, got, c.want)
		}
	}
}

// TestSndTimeout: --snd-timeout reaches the control and the data
// connections of both ends as TCP_USER_TIMEOUT, in 3.12's range and words.
func TestSndTimeout(t *testing.T) {
	if _, err := ParseArgs([]string{"-c", "h", "--snd-timeout", "-5"}); err == nil || err.Error() != "send timeout value is incorrect or not in range: \n" {
		t.Errorf("bad value: %v", err)
	}
	ln, port := loopbackPort(t)
	var mu sync.Mutex
	seen := map[string]int{} // "client"/"server" -> connections given the timeout
	record := func(who string) socket.OptionsFunc {
		return func(_ net.Conn, o socket.Options) error {
			if o.UserTimeout == 3*time.Second {
				mu.Lock()
				seen[who]++
				mu.Unlock()
			}
			return nil
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := ServeOne(context.Background(), ln, ServerOptions{SndTimeout: 3 * time.Second, SockOpts: record("server")})
		done <- err
	}()
	cfg, err := ParseArgs([]string{"-c", "127.0.0.1", "-p", itoa(port), "-t", "1", "-P", "2", "--snd-timeout", "3000"})
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Client
	o.SockOpts = record("client")
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["client"] != 3 || seen["server"] != 3 { // the control connection and two streams each
		t.Errorf("connections given TCP_USER_TIMEOUT: %v, want 3 on each end", seen)
	}
}
