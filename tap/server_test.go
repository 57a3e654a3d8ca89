package tap

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"mesonemu/sim"
)

// TestHostClientToBoardServer: the board runs `iperf3 -s -1`, Debian's client
// in the namespace runs -t 5 -J, with -R (the board sends) and without (the
// host kernel sends, the board receives). The bug is in the board's TX clock,
// so only the board's sending suffers: with -R the board's retransmits match
// the frames the far end dropped; without -R the retransmits are the host
// kernel's own and the RX wire is clean, pre-fix or not.
func TestHostClientToBoardServer(t *testing.T) {
	need(t, "iperf3", "ss")
	for _, tc := range []struct {
		name         string
		so           sim.Options
		reverse      bool
		boardLosesTX bool
	}{
		{"fixed, board sends (-R)", fixedBoard, true, false},
		{"pre-fix, board sends (-R)", preFixBoard, true, true},
		{"pre-fix, board receives", preFixBoard, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns, ctx := tapNetns(t, 25*time.Second)
			args := []string{"-c", boardIP, "-t", "5", "-J"}
			if tc.reverse {
				args = append(args, "-R")
			}
			var cout, cerr bytes.Buffer
			var cliErr error
			done := make(chan struct{})
			r := runBoard(ctx, ns, tc.so, "", []string{"-s", "-1"}, func() {
				defer close(done)
				cli := ns.exec(ctx, 20*time.Second, "iperf3", args...)
				cli.Stdout, cli.Stderr = &cout, &cerr
				cliErr = cli.Run()
			})
			r.check(t)
			<-done
			if cliErr != nil {
				t.Fatalf("Debian iperf3 client: %v\n%s\n%s", cliErr, cerr.String(), cout.String())
			}
			c := parseIperf(t, "client", cout.Bytes())
			retr := c.retransmits(t, "client")
			sender := "host kernel"
			if tc.reverse {
				sender = "board"
			}
			t.Logf("%s sent %d B at %s with %d retransmits; received %d B at %s; far end dropped %d bad-FCS frames, board %d",
				sender, c.End.SumSent.Bytes, mbps(c.End.SumSent.BitsPerSecond), retr, c.End.SumReceived.Bytes,
				mbps(c.End.SumReceived.BitsPerSecond), r.c.Wire.FarEndCRCErrors, r.c.Wire.BoardCRCErrors)
			if c.Start.TestStart.Reverse != map[bool]int{false: 0, true: 1}[tc.reverse] {
				t.Errorf("client JSON reverse = %d", c.Start.TestStart.Reverse)
			}
			if !tc.reverse {
				if r.c.Wire.RxDamaged != 0 || r.c.Wire.BoardCRCErrors != 0 || r.c.Wire.BoardSFDLost != 0 {
					t.Errorf("RX wire damaged frames: %+v", r.c.Wire)
				}
			}
			lost := r.c.lostToHost()
			switch {
			case tc.boardLosesTX:
				checkPreFixLoss(t, r.c)
				if !oneRetransmitPerLoss(retr, lost) {
					t.Errorf("pre-fix: board made %d retransmits for %d lost frames", retr, lost)
				}
			case tc.reverse:
				if retr != 0 || lost != 0 {
					t.Errorf("fixed: board made %d retransmits, %d frames lost; want 0", retr, lost)
				}
			default:
				// The board receives: it sends only ACKs, of which the
				// pre-fix wire drops a few; the host's TCP needs no
				// retransmission for that (cumulative ACKs).
				if retr != 0 {
					t.Errorf("host kernel made %d retransmits over a clean RX wire", retr)
				}
			}
		})
	}
}

// TestSecondClientRefused: while a test runs on the board's server, a second
// Debian client is turned away the way iperf3 does it (ACCESS_DENIED), and the
// first test completes.
func TestSecondClientRefused(t *testing.T) {
	need(t, "iperf3", "ss")
	ns, ctx := tapNetns(t, 20*time.Second)
	var firstOut syncBuffer
	var secondOut bytes.Buffer
	var firstErr, secondErr error
	done := make(chan struct{})
	r := runBoard(ctx, ns, fixedBoard, "", []string{"-s", "-1"}, func() {
		defer close(done)
		first := ns.exec(ctx, 15*time.Second, "iperf3", "-c", boardIP, "-t", "3", "-i", "0.5", "--forceflush")
		first.Stdout, first.Stderr = &firstOut, &firstOut
		if err := first.Start(); err != nil {
			firstErr = err
			return
		}
		// The second client comes once the first one's test is running:
		// it has reported its first interval (--forceflush: iperf3's
		// stdout is a pipe here, which it would otherwise buffer).
		waitFor(ctx, &firstOut, "bits/sec")
		second := ns.exec(ctx, 10*time.Second, "iperf3", "-c", boardIP, "-t", "1")
		out, err := second.CombinedOutput()
		secondOut.Write(out)
		secondErr = err
		firstErr = first.Wait()
	})
	r.check(t)
	<-done
	t.Logf("first client:\n%s\nsecond client:\n%s", firstOut.String(), secondOut.String())
	if firstErr != nil {
		t.Fatalf("first client: %v\n%s", firstErr, firstOut.String())
	}
	if !strings.Contains(firstOut.String(), "iperf Done.") {
		t.Errorf("first client did not finish:\n%s", firstOut.String())
	}
	var ee *exec.ExitError
	if !errors.As(secondErr, &ee) || ee.ExitCode() != 1 {
		t.Errorf("second client: exit %v, want status 1", secondErr)
	}
	if want := "iperf3: error - the server is busy running a test. try again later"; !strings.Contains(secondOut.String(), want) {
		t.Errorf("second client output lacks %q", want)
	}
}

// syncBuffer is a bytes.Buffer a child process writes while the test reads.
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

// waitFor polls buf until it contains s.
func waitFor(ctx context.Context, buf *syncBuffer, s string) {
	for !strings.Contains(buf.String(), s) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}
