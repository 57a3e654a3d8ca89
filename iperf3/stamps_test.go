package iperf3

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip/faketime"
)

// TestLineStamps: the prefix is the anchor plus the test clock's time since
// the run started, in whole seconds, before the -T title, once per print
// (3.12's iperf_printf), and nothing for printf-only lines.
func TestLineStamps(t *testing.T) {
	clk := faketime.NewManualClock()
	clk.Advance(5 * time.Hour) // the clock's own reading does not show
	anchor := time.Date(2026, time.December, 1, 21, 59, 31, 0, time.UTC)
	var out bytes.Buffer
	p := &printer{w: &out, title: "tt", stamp: newLineStamper(LineStamps{On: true, Format: "%c ", Anchor: anchor}, clk)}
	p.printf("one\n")
	clk.Advance(1500 * time.Millisecond)
	p.printf("two\nthree\n")
	p.plain("bare\n")
	clk.Advance(500 * time.Millisecond)
	printIntro(p, "sys")
	want := "Tue Dec  1 21:59:31 2026 tt:  one\n" +
		"Tue Dec  1 21:59:32 2026 tt:  two\nthree\n" +
		"bare\n" +
		"Tue Dec  1 21:59:33 2026 tt:  iperf 3.12\n" +
		"Tue Dec  1 21:59:33 2026 tt:  Tue Dec  1 21:59:33 2026 tt:  sys\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if newLineStamper(LineStamps{}, clk) != nil || (*lineStamper)(nil).now() != "" {
		t.Errorf("stamps off: want no stamper and no prefix")
	}
}

// TestTimestampsLoop: over loopback through Main, every line of both ends'
// text output carries the stamp (the server's also inside the client's
// --get-server-output copy, which starts after the banner as 3.12's does),
// and -J output has none.
func TestTimestampsLoop(t *testing.T) {
	ln, port := loopbackPort(t)
	anchor := time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)
	var srvOut syncBuffer
	served := make(chan error, 1)
	go func() {
		_, err := ServeOne(context.Background(), ln, ServerOptions{Output: &srvOut, IdleTimeout: 10 * time.Second,
			Stamps: LineStamps{On: true, Format: "%F|", Anchor: anchor}})
		served <- err
	}()
	var stdout, stderr bytes.Buffer
	env := HostEnv()
	env.Stdout, env.Stderr, env.StampAnchor = &stdout, &stderr, anchor
	code := Main(context.Background(), []string{"-c", "127.0.0.1", "-p", itoa(port), "-t", "1", "--get-server-output",
		"--timestamps=%F|", "-T", "tt"}, env)
	if err := <-served; code != 0 || err != nil {
		t.Fatalf("client exit %d (%s), server %v", code, stderr.String(), err)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	inServer := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "2026-12-01|tt:  "):
		case l == "Server output:":
			inServer = true // one print: "\nServer output:\n%s\n", its stamp before the "\n"
		case inServer && (l == "" || strings.HasPrefix(l, "2026-12-01|")):
			// the server's own lines (no title), and the blank line after them
		default:
			t.Errorf("unstamped client line %q in:\n%s", l, stdout.String())
		}
	}
	if !inServer || !strings.Contains(stdout.String(), "\n2026-12-01|Accepted connection from 127.0.0.1") {
		t.Errorf("no stamped server output in:\n%s", stdout.String())
	}
	stamped := regexp.MustCompile(`^2026-12-01\|`)
	for _, l := range strings.Split(strings.TrimSuffix(srvOut.String(), "\n"), "\n") {
		if !stamped.MatchString(l) {
			t.Errorf("unstamped server line %q", l)
		}
	}

	r := runJSONStamped(t)
	if strings.Contains(r, "2026-12-01|") || !strings.HasPrefix(r, "{") {
		t.Errorf("-J output with stamps:\n%s", r)
	}
}

func runJSONStamped(t *testing.T) string {
	t.Helper()
	ln, port := loopbackPort(t)
	go func() { _, _ = ServeOne(context.Background(), ln, ServerOptions{IdleTimeout: 10 * time.Second}) }()
	var stdout bytes.Buffer
	env := HostEnv()
	env.Stdout, env.StampAnchor = &stdout, time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)
	if code := Main(context.Background(), []string{"-c", "127.0.0.1", "-p", itoa(port), "-t", "1", "-J", "--timestamps=%F|"}, env); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stdout.String())
	}
	return stdout.String()
}

// TestTimestampsOnErrors: 3.12's client error line is stamped with "%c "
// whatever the format (iperf_errexit), before "iperf3: error - ".
func TestTimestampsOnErrors(t *testing.T) {
	port := freePort(t) // nothing listens there
	var stdout, stderr bytes.Buffer
	env := HostEnv()
	env.Stdout, env.Stderr = &stdout, &stderr
	env.StampAnchor = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)
	if code := Main(context.Background(), []string{"-c", "127.0.0.1", "-p", itoa(port), "--timestamps=%F|"}, env); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if want := "Tue Dec  1 00:00:00 2026 iperf3: error - unable to connect to server"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr %q, want it to start with %q", stderr.String(), want)
	}
}
