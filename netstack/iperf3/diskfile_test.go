package iperf3

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
	waitListening(t, port)
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
