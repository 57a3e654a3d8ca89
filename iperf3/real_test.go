package iperf3

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"mesonemu/socket"
)

// TestOurClientAgainstRealServer runs our client against "iperf3 -s -1 -J"
// and checks the two sides agree: the real server's JSON counts are the ones
// our client prints for the server's half, and it saw our cookie.
func TestOurClientAgainstRealServer(t *testing.T) {
	bin := realIperf3(t)
	for _, reverse := range []bool{false, true} {
		name := map[bool]string{false: "forward", true: "reverse"}[reverse]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			port := freePort(t)
			var srvOut, srvErr bytes.Buffer
			srv := exec.Command(bin, "-s", "-1", "-J", "-p", itoa(port))
			srv.Stdout, srv.Stderr = &srvOut, &srvErr
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = srv.Process.Kill() }()
			waitListening(t, port, srv)

			var out bytes.Buffer
			res, err := Run(context.Background(), ClientOptions{
				Host: "127.0.0.1", Port: port, Seconds: 1, Reverse: reverse, Output: &out,
				TCPInfo: socket.HostTCPInfo, Congestion: socket.HostCongestion, IdleTimeout: 10 * time.Second,
			})
			if err != nil {
				t.Fatalf("our client: %v\n%s", err, out.String())
			}
			if err := srv.Wait(); err != nil {
				t.Fatalf("real server: %v\n%s", err, srvErr.String())
			}
			var real Result
			if err := json.Unmarshal(srvOut.Bytes(), &real); err != nil {
				t.Fatalf("real server JSON: %v\n%s", err, srvOut.String())
			}
			if real.Error != "" || real.Start.Cookie != res.Start.Cookie {
				t.Fatalf("real server error %q, cookie %q (ours %q)", real.Error, real.Start.Cookie, res.Start.Cookie)
			}
			if real.Start.TestStart == nil || real.Start.TestStart.Reverse != map[bool]int{false: 0, true: 1}[reverse] ||
				real.Start.TestStart.Duration != 1 || real.Start.TestStart.BlkSize != DefaultBlockSize {
				t.Errorf("real server understood our parameters as %+v", real.Start.TestStart)
			}
			if reverse {
				if res.End.SumSent.Bytes != real.End.SumSent.Bytes || res.End.SumSent.Bytes < res.End.SumReceived.Bytes {
					t.Errorf("real server sent %d; our client printed sent %d, received %d",
						real.End.SumSent.Bytes, res.End.SumSent.Bytes, res.End.SumReceived.Bytes)
				}
				if real.End.SumSent.RetransmitCount == nil || res.End.SumSent.Retransmits != real.End.SumSent.Retransmits {
					t.Errorf("retransmits: real server %+v, our client %+v", real.End.SumSent.RetransmitCount, res.End.SumSent.RetransmitCount)
				}
			} else if res.End.SumReceived.Bytes != real.End.SumReceived.Bytes || res.End.SumSent.Bytes < real.End.SumReceived.Bytes ||
				real.End.SumReceived.Bytes == 0 {
				t.Errorf("real server received %d; our client printed received %d, sent %d",
					real.End.SumReceived.Bytes, res.End.SumReceived.Bytes, res.End.SumSent.Bytes)
			}
			checkTextShape(t, "our client", out.String())
		})
	}
}

// TestRealClientAgainstOurServer runs "iperf3 -c ... -J" against our server
// and checks the real client's JSON against our server's own counts.
func TestRealClientAgainstOurServer(t *testing.T) {
	bin := realIperf3(t)
	for _, reverse := range []bool{false, true} {
		name := map[bool]string{false: "forward", true: "reverse"}[reverse]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ln, port := loopbackPort(t)
			var srvOut bytes.Buffer
			served := serveOneAsync(ln, ServerOptions{
				Output: &srvOut, TCPInfo: socket.HostTCPInfo, Congestion: socket.HostCongestion, IdleTimeout: 10 * time.Second,
			})
			args := []string{"-c", "127.0.0.1", "-p", itoa(port), "-t", "1", "-J"}
			if reverse {
				args = append(args, "-R")
			}
			cli, err := exec.Command(bin, args...).Output()
			if err != nil {
				t.Fatalf("real client: %v\n%s", err, cli)
			}
			ours, err := served()
			if err != nil {
				t.Fatalf("our server: %v\n%s", err, srvOut.String())
			}
			var real Result
			if err := json.Unmarshal(cli, &real); err != nil {
				t.Fatalf("real client JSON: %v\n%s", err, cli)
			}
			if real.Error != "" || real.End.SumSent == nil || real.End.SumReceived == nil {
				t.Fatalf("real client: error %q, end %+v", real.Error, real.End)
			}
			if reverse {
				// We sent; the real client prints our count as sent.
				if real.End.SumSent.Bytes != ours.End.SumSent.Bytes || real.End.SumReceived.Bytes > ours.End.SumSent.Bytes ||
					real.End.SumReceived.Bytes != sumPeer(ours.Peer) {
					t.Errorf("our server sent %d, heard %d received; real client printed sent %d received %d",
						ours.End.SumSent.Bytes, sumPeer(ours.Peer), real.End.SumSent.Bytes, real.End.SumReceived.Bytes)
				}
				if real.End.SumSent.RetransmitCount == nil {
					t.Errorf("real client shows no retransmit count for our sending server")
				}
			} else if real.End.SumReceived.Bytes != ours.End.SumReceived.Bytes || real.End.SumSent.Bytes != sumPeer(ours.Peer) ||
				ours.End.SumReceived.Bytes == 0 || ours.End.SumReceived.Bytes > real.End.SumSent.Bytes {
				t.Errorf("our server received %d, heard %d sent; real client printed received %d sent %d",
					ours.End.SumReceived.Bytes, sumPeer(ours.Peer), real.End.SumReceived.Bytes, real.End.SumSent.Bytes)
			}
			if real.End.ReceiverTCPCongestion == "" || real.End.SenderTCPCongestion == "" {
				t.Errorf("real client missed a congestion algorithm: %+v", real.End)
			}
			text := srvOut.String()
			checkTextShape(t, "our server", text)
			if !strings.Contains(text, "Accepted connection from 127.0.0.1, port ") {
				t.Errorf("server output:\n%s", text)
			}
		})
	}
}
