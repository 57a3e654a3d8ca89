package iperf3

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServerVerboseSummaryAs312: with -V the server's summary has 3.12's
// lines in 3.12's order, "(sender statistics not available)" and
// "(receiver statistics not available)" where it cannot know a half, and
// the CPU and congestion lines: the real iperf3 3.12 client runs against the
// real 3.12 server and against ours, and the two servers' summaries agree
// line by line once numbers and units are masked.
func TestServerVerboseSummaryAs312(t *testing.T) {
	bin := realIperf3(t)
	for _, args := range [][]string{
		{"-t", "1"},
		{"-t", "1", "-R", "-P", "2"},
		{"-t", "1", "-P", "2"},
		{"-t", "1", "-u", "-b", "20M", "-R"},
		{"-t", "1", "-u", "-b", "20M", "-P", "2"},
		{"-t", "1", "--bidir"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			real := summaryShape(realServerVerbose(t, bin, args))
			ours := summaryShape(ourServerVerbose(t, bin, args))
			if real != ours {
				t.Errorf("server summary\nours:\n%s\n3.12:\n%s", ours, real)
			}
			if !strings.Contains(real, "statistics not available") {
				t.Errorf("3.12 printed no \"not available\" line:\n%s", real)
			}
		})
	}
}

// TestClientVerboseSummaryAs312 is the client's side: the CPU line only
// where the client sends (none with -R), two with --bidir, each direction's
// congestion lines after its sums.
func TestClientVerboseSummaryAs312(t *testing.T) {
	bin := realIperf3(t)
	for _, args := range [][]string{
		{"-t", "1", "-R"},
		{"-t", "1", "--bidir"},
		{"-t", "1", "-u", "-b", "20M"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			port, stop := onRealServer(t, bin)
			defer stop(true)
			cmd := append([]string{"-c", "127.0.0.1", "-p", itoa(port), "-V"}, args...)
			real, err := exec.Command(bin, cmd...).CombinedOutput()
			if err != nil {
				t.Fatalf("real client: %v\n%s", err, real)
			}
			stop(false)
			port, stop = onRealServer(t, bin) // a fresh one: 3.12 restarting between tests may reset a client
			defer stop(true)
			cmd[3] = itoa(port)
			cfg, err := ParseArgs(cmd)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			o := cfg.Client
			o.Output, o.TCPInfo, o.Congestion, o.IdleTimeout = &out, LinuxTCPInfo, LinuxCongestion, 10*time.Second
			if _, err := Run(context.Background(), o); err != nil {
				t.Fatalf("our client: %v\n%s", err, out.String())
			}
			if r, o := summaryShape(string(real)), summaryShape(out.String()); r != o {
				t.Errorf("client summary\nours:\n%s\n3.12:\n%s", o, r)
			}
		})
	}
}

func realServerVerbose(t *testing.T, bin string, args []string) string {
	port, stop := onRealServer(t, bin, "-V")
	if b, err := exec.Command(bin, append([]string{"-c", "127.0.0.1", "-p", itoa(port)}, args...)...).CombinedOutput(); err != nil {
		stop(true)
		t.Fatalf("real client against the real server: %v\n%s", err, b)
	}
	return stop(false)
}

func ourServerVerbose(t *testing.T, bin string, args []string) string {
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	_, port := splitAddr(ln.Addr())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		_, err := ServeOne(context.Background(), ln, ServerOptions{Output: &out, Verbose: true,
			TCPInfo: LinuxTCPInfo, Congestion: LinuxCongestion, IdleTimeout: 10 * time.Second})
		done <- err
	}()
	if b, err := exec.Command(bin, append([]string{"-c", "127.0.0.1", "-p", itoa(port)}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("real client against our server: %v\n%s", err, b)
	}
	if err := <-done; err != nil {
		t.Fatalf("our server: %v\n%s", err, out.String())
	}
	return out.String()
}

var (
	shapeNumber = regexp.MustCompile(`\d+(\.\d+)?%?`)
	shapeUnit   = regexp.MustCompile(`\b[KMGT]?(Bytes|bits/sec)\b`)
	shapeSpaces = regexp.MustCompile(` +`)
	shapeCC     = regexp.MustCompile(`(tcp_congestion) \S+`)
)

// summaryShape is a server's text from "Test Complete" on, with numbers,
// units, spacing and the congestion algorithm's name masked.
func summaryShape(text string) string {
	i := strings.Index(text, "Test Complete. Summary Results:")
	if i < 0 {
		return "no summary in:\n" + text
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(text[i:]), "\n") {
		l = shapeCC.ReplaceAllString(l, "$1 CC")
		l = shapeUnit.ReplaceAllString(shapeNumber.ReplaceAllString(l, "N"), "U")
		b.WriteString(strings.TrimSpace(shapeSpaces.ReplaceAllString(l, " ")) + "\n")
	}
	return b.String()
}
