package iperf3

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// hostileIdle is the idle timeout of the cases that test it: short, so they
// end soon. Every other case runs with calmIdle, which no stall of a loaded
// host reaches, so its outcome never depends on how fast the peers run (a
// 300 ms idle timeout once ended a results case early on a loaded machine).
const (
	hostileIdle = 300 * time.Millisecond
	calmIdle    = 2 * time.Minute
)

var testCookie = []byte("abcdefghijklmnopqrstuvwxyz2345672345\x00")

// serveHostile runs our server for one test with the given idle timeout.
func serveHostile(t *testing.T, idle time.Duration) (port int, out *syncBuffer, done <-chan error) {
	t.Helper()
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	_, port = splitAddr(ln.Addr())
	out = new(syncBuffer)
	ch := make(chan error, 1)
	go func() {
		_, err := ServeOne(context.Background(), ln, ServerOptions{Output: out, IdleTimeout: idle})
		ch <- err
	}()
	return port, out, ch
}

func dialPeer(t *testing.T, port int) fakePeer {
	t.Helper()
	c, err := dialLoopback(port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return fakePeer{t, c}
}

// handshake gets a fake client to CREATE_STREAMS with the given parameters.
func handshake(t *testing.T, port int, params string) fakePeer {
	ctrl := hello(t, port)
	ctrl.sendJSON([]byte(params))
	ctrl.expect(stateCreateStreams)
	return ctrl
}

// hello opens a control connection and sends the cookie, up to
// PARAM_EXCHANGE.
func hello(t *testing.T, port int) fakePeer {
	ctrl := dialPeer(t, port)
	ctrl.send(testCookie...)
	ctrl.expect(stateParamExchange)
	return ctrl
}

// startStream connects the test's one data stream (the good cookie) and
// waits for TEST_START and TEST_RUNNING on ctrl.
func startStream(t *testing.T, port int, ctrl fakePeer) fakePeer {
	data := dialPeer(t, port)
	data.send(testCookie...)
	ctrl.expect(stateTestStart)
	ctrl.expect(stateTestRunning)
	return data
}

// expectServerError reads SERVER_ERROR and its two integers, then the close.
func expectServerError(t *testing.T, p fakePeer, want Code) {
	t.Helper()
	p.expect(stateServerError)
	code, errno, err := readServerErrorPayload(p.conn)
	if err != nil || code != want || errno != 0 {
		t.Errorf("SERVER_ERROR %d errno %d (%v), want %d errno 0", code, errno, err, want)
	}
	if rest := p.expectEOF(); len(rest) != 0 {
		t.Errorf("server sent %q after SERVER_ERROR", rest)
	}
}

const goodParams = `{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"client_version":"3.12"}`

// TestServerRejectsHostileClients feeds our server malformed and malicious
// control traffic. Each must end the test with iperf3's error (sent to the
// client as SERVER_ERROR where the client is still there) and a clean close.
func TestServerRejectsHostileClients(t *testing.T) {
	paramsError := func(body []byte, want Code) func(t *testing.T, port int) {
		return func(t *testing.T, port int) {
			ctrl := hello(t, port)
			ctrl.send(body...)
			expectServerError(t, ctrl, want)
		}
	}
	lengthOnly := func(n uint32) []byte {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], n)
		return b[:]
	}
	framed := func(s string) []byte { return append(lengthOnly(uint32(len(s))), s...) }

	tests := []struct {
		name   string
		script func(t *testing.T, port int)
		code   Code
		cause  error
	}{
		// CVE-2023-38403: 3.12 allocated len+1 bytes, which wraps to 0.
		{"length 0xffffffff", paramsError(lengthOnly(0xffffffff), CodeRecvParams), CodeRecvParams, errJSONTooLong},
		{"length 1 MiB + 1", paramsError(lengthOnly(MaxJSONLength+1), CodeRecvParams), CodeRecvParams, errJSONTooLong},
		{"length 0", paramsError(lengthOnly(0), CodeRecvParams), CodeRecvParams, errJSONEmpty},
		{"garbage JSON", paramsError(framed("hello"), CodeRecvParams), CodeRecvParams, nil},
		{"JSON array", paramsError(framed(`[1,2,3]`), CodeRecvParams), CodeRecvParams, nil},
		{"too many streams", paramsError(framed(`{"tcp":true,"parallel":100000}`), CodeNumStreams), CodeNumStreams, nil},
		{"zero block length", paramsError(framed(`{"tcp":true,"len":0}`), CodeBlockSize), CodeBlockSize, nil},
		{"duration -1 as 3.12 prints it", paramsError(framed(`{"tcp":true,"time":18446744073709551615}`), CodeDuration), CodeDuration, nil},
		{"string as number", paramsError(framed(`{"tcp":true,"parallel":"x"}`), CodeRecvParams), CodeRecvParams, nil},
		{"UDP block too long", paramsError(framed(`{"udp":true}`), CodeUDPBlockSize), CodeUDPBlockSize, nil},
		{"UDP block too short for the header", paramsError(framed(`{"udp":true,"len":8}`), CodeUDPBlockSize), CodeUDPBlockSize, nil},
		{"bidir with absurd stream counts", paramsError(framed(`{"tcp":true,"bidirectional":true,"parallel":1000000}`), CodeNumStreams), CodeNumStreams, nil},
		{"bidir and reverse", paramsError(framed(`{"tcp":true,"bidirectional":true,"reverse":true}`), CodeReverseBidir), CodeReverseBidir, nil},
		{"truncated then gone", func(t *testing.T, port int) {
			ctrl := hello(t, port)
			ctrl.send(append(lengthOnly(100), `{"tcp":`...)...)
			ctrl.conn.(*net.TCPConn).CloseWrite()
			ctrl.expectEOF()
		}, CodeRecvParams, nil},
		{"unknown state byte", func(t *testing.T, port int) {
			ctrl := handshake(t, port, goodParams)
			ctrl.send(0x55)
			expectServerError(t, ctrl, CodeMessage)
		}, CodeMessage, nil},
		{"unknown state while running", func(t *testing.T, port int) {
			ctrl := handshake(t, port, goodParams)
			startStream(t, port, ctrl)
			ctrl.send(7) // STREAM_END: defined but never sent by a client
			expectServerError(t, ctrl, CodeMessage)
		}, CodeMessage, nil},
		{"garbage results", func(t *testing.T, port int) {
			ctrl := handshake(t, port, goodParams)
			startStream(t, port, ctrl)
			ctrl.send(byte(stateTestEnd))
			ctrl.expect(stateExchangeResults)
			ctrl.sendJSON([]byte(`{"cpu_util_total":0}`))
			expectServerError(t, ctrl, CodeRecvResults)
		}, CodeRecvResults, nil},
		{"bad cookie on a data stream", func(t *testing.T, port int) {
			ctrl := handshake(t, port, goodParams)
			bad := dialPeer(t, port)
			bad.send([]byte("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\x00")...)
			bad.expect(stateAccessDenied)
			bad.expectEOF()
			startStream(t, port, ctrl) // the test still takes the real stream
			ctrl.conn.Close()
		}, CodeCtrlClose, nil},
		{"idle before the cookie", func(t *testing.T, port int) {
			ctrl := dialPeer(t, port)
			ctrl.send(testCookie[:10]...)
			ctrl.expectEOF()
		}, CodeNoMsg, errIdle},
		{"idle while streams are awaited", func(t *testing.T, port int) {
			ctrl := handshake(t, port, goodParams)
			ctrl.expectEOF()
		}, CodeNoMsg, errIdle},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			idle := calmIdle
			if errors.Is(tc.cause, errIdle) {
				idle = hostileIdle
			}
			port, out, done := serveHostile(t, idle)
			tc.script(t, port)
			err := <-done
			if CodeOf(err) != tc.code || (tc.cause != nil && !errors.Is(err, tc.cause)) {
				t.Errorf("server error %v (code %d), want code %d cause %v\n%s", err, CodeOf(err), tc.code, tc.cause, out.String())
			}
		})
	}
}

// runAgainstFakeServerIdle is runAgainstFakeServer with the client's idle timeout.
func runAgainstFakeServerIdle(t *testing.T, idle time.Duration, script func(ctrl fakePeer, ln net.Listener)) error {
	t.Helper()
	ln, port := loopbackPort(t)
	defer ln.Close()
	ran := runAsync(ClientOptions{Host: "127.0.0.1", Port: port, Seconds: 1, IdleTimeout: idle})
	ctrl, _ := acceptClient(t, ln)
	script(ctrl, ln)
	_, err := ran()
	return err
}

// toStreams plays a well-behaved server up to the client's one data
// connection, which it returns (closed when the test ends).
func toStreams(ctrl fakePeer, ln net.Listener) net.Conn {
	ctrl.send(byte(stateParamExchange))
	ctrl.readJSON()
	ctrl.send(byte(stateCreateStreams))
	data, err := ln.Accept()
	if err != nil {
		ctrl.t.Fatal(err)
	}
	ctrl.t.Cleanup(func() { data.Close() })
	return data
}

// toRunning plays a well-behaved server up to TEST_RUNNING.
func toRunning(ctrl fakePeer, ln net.Listener) net.Conn {
	data := toStreams(ctrl, ln)
	ctrl.send(byte(stateTestStart), byte(stateTestRunning))
	var s sink
	s.drain([]net.Conn{data})
	return data
}

// toResults plays a well-behaved server on to the client's results, up to
// where the server's own results are due.
func toResults(ctrl fakePeer, ln net.Listener) {
	toRunning(ctrl, ln)
	ctrl.expect(stateTestEnd)
	ctrl.send(byte(stateExchangeResults))
	ctrl.readJSON()
}

// TestClientRejectsHostileServers feeds our client a misbehaving server.
func TestClientRejectsHostileServers(t *testing.T) {
	tests := []struct {
		name   string
		script func(ctrl fakePeer, ln net.Listener)
		code   Code
		text   string
	}{
		{"access denied", func(ctrl fakePeer, _ net.Listener) {
			ctrl.send(0xff)
		}, CodeAccessDenied, "the server is busy running a test. try again later"},
		{"server error", func(ctrl fakePeer, _ net.Listener) {
			ctrl.send(byte(stateParamExchange))
			ctrl.readJSON()
			_ = writeServerError(ctrl.conn, CodeNumStreams, 0)
		}, CodeNumStreams, "number of parallel streams too large (maximum = 128)"},
		{"unknown state", func(ctrl fakePeer, _ net.Listener) {
			ctrl.send(0x33)
		}, CodeMessage, "received an unknown control message: state 51"},
		{"state out of order", func(ctrl fakePeer, _ net.Listener) {
			ctrl.send(byte(stateTestRunning))
		}, CodeMessage, "received an unknown control message: state 2 arrived out of order"},
		{"results length 0xffffffff", func(ctrl fakePeer, ln net.Listener) {
			toResults(ctrl, ln)
			ctrl.send(0xff, 0xff, 0xff, 0xff)
		}, CodeRecvResults, "unable to receive results: length 4294967295: JSON message longer than 1048576 bytes"},
		{"results for an unknown stream", func(ctrl fakePeer, ln net.Listener) {
			toResults(ctrl, ln)
			ctrl.sendJSON([]byte(`{"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":18446744073709551615,` +
				`"streams":[{"id":99,"bytes":1,"retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0}]}`))
		}, CodeRecvResults, "unable to receive results: stream has an invalid id: peer reported stream id 99"},
		{"results without streams", func(ctrl fakePeer, ln net.Listener) {
			toResults(ctrl, ln)
			ctrl.sendJSON([]byte(`{"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":1}`))
		}, CodeRecvResults, `unable to receive results: results lack "streams"`},
		{"control closed mid-test", func(ctrl fakePeer, ln net.Listener) {
			toRunning(ctrl, ln)
			ctrl.conn.Close()
		}, CodeCtrlClose, "control socket has closed unexpectedly: EOF"},
		{"silent server", func(ctrl fakePeer, _ net.Listener) {
			ctrl.expectEOF()
		}, CodeNoMsg, "idle timeout for receiving data: no progress on the control or data connections"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			idle := calmIdle
			if tc.code == CodeNoMsg {
				idle = hostileIdle
			}
			err := runAgainstFakeServerIdle(t, idle, tc.script)
			if CodeOf(err) != tc.code || err.Error() != tc.text {
				t.Errorf("client error %q (code %d), want %q (code %d)", err, CodeOf(err), tc.text, tc.code)
			}
		})
	}
}

// TestStreamsJoinInAcceptOrder opens three streams A, B, C but presents
// their cookies C and B first: our server must still number them in accept
// order (as iperf3 does, and as the client numbers them), not cookie order.
func TestStreamsJoinInAcceptOrder(t *testing.T) {
	port, out, done := serveHostile(t, calmIdle)
	ctrl := handshake(t, port, strings.Replace(goodParams, `"parallel":1`, `"parallel":3`, 1))
	var streams []fakePeer
	var ports []string
	for i := 0; i < 3; i++ {
		p := dialPeer(t, port)
		streams = append(streams, p)
		_, lp := splitAddr(p.conn.LocalAddr())
		ports = append(ports, itoa(lp))
	}
	streams[2].send(testCookie...)
	streams[1].send(testCookie...)
	for i := 0; i < 20; i++ { // give a wrong implementation time to admit C
		if strings.Contains(out.String(), "connected to") {
			t.Fatalf("a stream joined before the first one presented its cookie:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	streams[0].send(testCookie...)
	ctrl.expect(stateTestStart)
	var order []string
	for _, line := range strings.Split(out.String(), "\n") {
		if i := strings.LastIndex(line, "connected to 127.0.0.1 port "); i >= 0 {
			order = append(order, line[i+len("connected to 127.0.0.1 port "):])
		}
	}
	if strings.Join(order, ",") != strings.Join(ports, ",") {
		t.Errorf("streams joined as %v, accept order %v", order, ports)
	}
	ctrl.conn.Close()
	<-done
}

// TestClientEndsWhenASenderIsStuck: a server that stops reading the data
// stream leaves the client's last Write blocked; the client still sends
// TEST_END, endGrace after the test's time, as iperf3 (which never blocks on
// a data socket) sends it at once.
func TestClientEndsWhenASenderIsStuck(t *testing.T) {
	got := make(chan int8, 1)
	err := runAgainstFakeServerIdle(t, time.Minute, func(ctrl fakePeer, ln net.Listener) {
		toStreams(ctrl, ln) // never read: the sender's buffers fill and its Write blocks
		ctrl.send(byte(stateTestStart), byte(stateTestRunning))
		_ = ctrl.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		b := make([]byte, 1)
		if _, err := io.ReadFull(ctrl.conn, b); err != nil {
			t.Errorf("no TEST_END within 10 s of a 1 s test whose data stream stopped being read: %v", err)
			return
		}
		got <- int8(b[0])
		_ = ctrl.conn.Close() // the client gives up at once instead of at its idle timeout
	})
	t.Logf("client: %v", err)
	select {
	case s := <-got:
		if s != stateTestEnd {
			t.Errorf("the client sent state %d, want TEST_END (%d)", s, stateTestEnd)
		}
	default:
	}
}

// TestClientIdleOnceTheTestEnded: a reverse-mode server that keeps streaming
// after the client's TEST_END and never sends EXCHANGE_RESULTS ends at the
// client's idle timeout. Once the test is over only the control connection
// counts as progress (3.12 would drain for ever here). The idle timeout is
// seconds, not hostileIdle: before TEST_END the data stream is the client's
// progress, and a loaded host can pause the writer below for a few hundred
// ms, which must not end the test early.
func TestClientIdleOnceTheTestEnded(t *testing.T) {
	const idle = 3 * time.Second
	ln, port := loopbackPort(t)
	defer ln.Close()
	wait := runAsync(ClientOptions{Host: "127.0.0.1", Port: port, Seconds: 1, Reverse: true, IdleTimeout: idle})
	ended := make(chan error, 1)
	go func() { _, err := wait(); ended <- err }()
	ctrl, _ := acceptClient(t, ln)
	data := toStreams(ctrl, ln)
	ctrl.send(byte(stateTestStart), byte(stateTestRunning))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // 1 KiB a millisecond until the test ends, for 60 s at most
		block := make([]byte, 1024)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := data.Write(block); err != nil {
				return
			}
		}
	}()
	ctrl.expect(stateTestEnd)
	select {
	case err := <-ended:
		if CodeOf(err) != CodeNoMsg {
			t.Errorf("client error %v (code %d), want the idle timeout (code %d)", err, CodeOf(err), CodeNoMsg)
		}
	case <-time.After(time.Minute):
		t.Fatalf("client still draining a minute after TEST_END with a %v idle timeout", idle)
	}
}

// TestClientEndsAtALateTestRunning: iperf3's clock starts at TEST_START; if
// -t has run out before TEST_RUNNING comes, 3.12's timer has only set done,
// and the client sends TEST_END on its first pass after TEST_RUNNING.
func TestClientEndsAtALateTestRunning(t *testing.T) {
	err := runAgainstFakeServerIdle(t, time.Minute, func(ctrl fakePeer, ln net.Listener) {
		var s sink
		s.drain([]net.Conn{toStreams(ctrl, ln)})
		ctrl.send(byte(stateTestStart))
		time.Sleep(1500 * time.Millisecond) // past the client's -t 1
		ctrl.send(byte(stateTestRunning))
		_ = ctrl.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		ctrl.expect(stateTestEnd)
		_ = ctrl.conn.Close()
	})
	if CodeOf(err) != CodeCtrlClose {
		t.Errorf("client error %v (code %d), want the control connection's close after TEST_END", err, CodeOf(err))
	}
}
