package iperf3

// Comparisons with the real iperf3 3.12 binary on loopback.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"mesonemu/socket"
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
			o.Output, o.TCPInfo, o.Congestion, o.IdleTimeout = &out, socket.HostTCPInfo, socket.HostCongestion, 10*time.Second
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
	ln, port := loopbackPort(t)
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		_, err := ServeOne(context.Background(), ln, ServerOptions{Output: &out, Verbose: true,
			TCPInfo: socket.HostTCPInfo, Congestion: socket.HostCongestion, IdleTimeout: 10 * time.Second})
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

// TestDiskFileJSONAs312: -F's end.streams[].diskfile is 3.12's, placed
// after "sender" (or "udp") as 3.12 places it. Over TCP the real 3.12 client
// and ours send the same file to a real 3.12 server and report the same
// object: the file's short last block goes as it is (300000 bytes, not three
// whole blocks). What the server received may be less on either (it stops
// counting at TEST_END), so "received" is checked against its own percent.
// Over UDP (whole datagrams: 215 of 1400 bytes) only ours runs: 3.12 itself
// crashes with -u -F (segmentation fault, seen with Debian's 3.12).
func TestDiskFileJSONAs312(t *testing.T) {
	bin := realIperf3(t)
	file := filepath.Join(t.TempDir(), "payload.bin")
	if err := os.WriteFile(file, bytes.Repeat([]byte("mesonemu "), 300000/9+1)[:300000], 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(who string, d, want EndDiskFile) {
		t.Helper()
		pct := int(float64(d.Received) / float64(d.Size) * 100)
		if d.Sent != want.Sent || d.Size != want.Size || d.PercentSent != want.PercentSent || d.Filename != file ||
			d.Received > d.Sent || d.PercentReceived != pct {
			t.Errorf("%s: diskfile %+v, want sent %d of %d (%d%%) from %s, received <= sent with its percent",
				who, d, want.Sent, want.Size, want.PercentSent, file)
		}
	}
	tcp := []string{"-F", file, "-J"}
	want := EndDiskFile{Sent: 300000, Size: 300000, PercentSent: 100}
	check("3.12 over TCP", diskFileOf(t, realClientJSON(t, bin, tcp)), want)
	check("ours over TCP", diskFileOf(t, ourClientJSON(t, bin, tcp)), want)
	udp := append(tcp, "-u", "-b", "50M", "-l", "1400")
	check("ours over UDP", diskFileOf(t, ourClientJSON(t, bin, udp)), EndDiskFile{Sent: 215 * 1400, Size: 300000, PercentSent: 100})
}

// onRealServer starts "iperf3 -s -1 -p PORT extra..." and returns its port
// and a function that waits for it to finish (killing it first if kill) and
// returns its output; calls after the first only return the output.
func onRealServer(t *testing.T, bin string, extra ...string) (int, func(kill bool) string) {
	t.Helper()
	port := freePort(t)
	var out bytes.Buffer
	srv := exec.Command(bin, append([]string{"-s", "-1", "-p", itoa(port)}, extra...)...)
	srv.Stdout, srv.Stderr = &out, &out
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	waitListening(t, port, srv)
	done := false
	return port, func(kill bool) string {
		if done {
			return out.String()
		}
		done = true
		if kill {
			_ = srv.Process.Kill()
		}
		if err := srv.Wait(); err != nil && !kill {
			t.Errorf("real server: %v\n%s", err, out.String())
		}
		return out.String()
	}
}

func realClientJSON(t *testing.T, bin string, args []string) []byte {
	port, stop := onRealServer(t, bin)
	defer stop(true)
	out, err := exec.Command(bin, append([]string{"-c", "127.0.0.1", "-p", itoa(port)}, args...)...).Output()
	if err != nil {
		t.Fatalf("real client: %v\n%s", err, out)
	}
	return out
}

func ourClientJSON(t *testing.T, bin string, args []string) []byte {
	port, stop := onRealServer(t, bin)
	defer stop(true)
	var out, errOut bytes.Buffer
	env := HostEnv()
	env.Stdout, env.Stderr = &out, &errOut
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if code := Main(ctx, append([]string{"-c", "127.0.0.1", "-p", itoa(port)}, args...), env); code != 0 {
		t.Fatalf("our client: exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	return out.Bytes()
}

// diskFileOf is the one stream's diskfile object, checked to follow the
// stream's "sender" or "udp" object.
func diskFileOf(t *testing.T, doc []byte) EndDiskFile {
	t.Helper()
	var r struct {
		End struct {
			Streams []json.RawMessage `json:"streams"`
		} `json:"end"`
	}
	if err := json.Unmarshal(doc, &r); err != nil || len(r.End.Streams) != 1 {
		t.Fatalf("JSON: %v, %d streams:\n%s", err, len(r.End.Streams), doc)
	}
	raw := string(r.End.Streams[0])
	compact := strings.NewReplacer(" ", "", "\n", "", "\t", "").Replace(raw)
	if !strings.Contains(compact, `"sender":true},"diskfile":{`) { // the sender's (or udp's) last key, then diskfile
		t.Errorf("diskfile not after the sender object: %s", raw)
	}
	var s struct {
		DiskFile *EndDiskFile `json:"diskfile"`
	}
	if err := json.Unmarshal(r.End.Streams[0], &s); err != nil || s.DiskFile == nil {
		t.Fatalf("no diskfile (%v) in %s", err, raw)
	}
	return *s.DiskFile
}

// TestDiskFileReceiverWritesAs312: 3.12 opens -F on every data stream of
// either end, so a receiving stream truncates the file and writes what it
// reads: the client with -R, and a server given -F. Ours and 3.12 do the
// same in each role: the file afterwards holds exactly the stream's received
// bytes, which its diskfile object (or the server's text line) reports.
func TestDiskFileReceiverWritesAs312(t *testing.T) {
	bin := realIperf3(t)
	dir := t.TempDir()
	written := func(who, file string, received uint64) {
		t.Helper()
		st, err := os.Stat(file)
		if err != nil || received == 0 || uint64(st.Size()) != received {
			t.Errorf("%s: %s holds %v bytes (%v), the stream received %d", who, file, st.Size(), err, received)
		}
	}
	for _, who := range []string{"3.12", "ours"} {
		// The client receives (-R): it writes the file; -n because the file
		// is not there to give the test its size.
		out := filepath.Join(dir, who+"-client.bin")
		args := []string{"-R", "-n", "1M", "-F", out, "-J"}
		var doc []byte
		if who == "3.12" {
			doc = realClientJSON(t, bin, args)
		} else {
			doc = ourClientJSON(t, bin, args)
		}
		var r struct {
			End struct {
				Streams []struct {
					DiskFile *EndDiskFile `json:"diskfile"`
				} `json:"streams"`
			} `json:"end"`
		}
		if err := json.Unmarshal(doc, &r); err != nil || len(r.End.Streams) != 1 || r.End.Streams[0].DiskFile == nil {
			t.Fatalf("%s -R -F: %v\n%s", who, err, doc)
		}
		d := r.End.Streams[0].DiskFile
		written(who+" client -R", out, d.Received)
		if d.Size != int64(d.Received) || d.Sent < d.Received || d.PercentReceived != 100 {
			t.Errorf("%s client -R: diskfile %+v, want received = size <= sent, 100 %%", who, *d)
		}
	}
	// A server given -F writes what the real client sends it. The line is
	// 3.12's "Sent X / Y (P%) of FILE" with the received bytes.
	out := filepath.Join(dir, "ours-server.bin")
	ln, port := loopbackPort(t)
	var text syncBuffer
	done := make(chan error, 1)
	go func() {
		_, err := ServeOne(context.Background(), ln, ServerOptions{Output: &text, File: out, IdleTimeout: 10 * time.Second})
		done <- err
	}()
	if b, err := exec.Command(bin, "-c", "127.0.0.1", "-p", itoa(port), "-n", "4M", "-J").CombinedOutput(); err != nil {
		t.Fatalf("real client against our -F server: %v\n%s", err, b)
	}
	if err := <-done; err != nil {
		t.Fatalf("our server: %v\n%s", err, text.String())
	}
	st, err := os.Stat(out)
	if err != nil || st.Size() == 0 {
		t.Fatalf("our -F server wrote %v (%v)", st, err)
	}
	if line := fmt.Sprintf("/ %s (100%%) of %s", formatBytes(float64(st.Size())), out); !strings.Contains(text.String(), line) {
		t.Errorf("server text lacks %q:\n%s", line, text.String())
	}
}
