package tap

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// jsonDoc is an iperf3 --json document read generically.
type jsonDoc map[string]any

// num is the number at a path of keys ("end", "sum_sent", "bytes"), or -1.
func (d jsonDoc) num(path ...string) float64 {
	var v any = map[string]any(d)
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return -1
		}
		v = m[k]
	}
	f, ok := v.(float64)
	if !ok {
		return -1
	}
	return f
}

func parseDoc(t *testing.T, who string, out []byte) jsonDoc {
	t.Helper()
	var d jsonDoc
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("%s: JSON does not parse: %v\n%s", who, err, out)
	}
	if e, ok := d["error"].(string); ok && e != "" {
		t.Fatalf("%s: iperf3 error %q\n%s", who, e, out)
	}
	return d
}

// interopCase is one option set run against Debian's iperf3 3.12 both ways.
type interopCase struct {
	name string
	args []string
	// agree lists the end sums whose bytes (and, for UDP, packets and
	// lost_packets) the client's and the server's JSON must both report.
	agree []string
	udp   bool
	// slack is how far TCP byte counts may differ: a read under way when
	// the server stopped counting (one block).
	slack float64
}

var interopCases = []interopCase{
	{"udp -b 300M", []string{"-u", "-b", "300M", "-l", "1400"}, []string{"sum_received"}, true, 0},
	{"udp -b 300M -R", []string{"-u", "-b", "300M", "-l", "1400", "-R"}, []string{"sum_sent"}, true, 0},
	// Each side knows what it received and what it sent itself: the server
	// prints its JSON before the results exchange.
	{"bidir", []string{"--bidir"}, []string{"sum_received", "sum_sent_bidir_reverse"}, false, 128 * 1024},
	{"-b 100M -w 256K -C reno", []string{"-b", "100M", "-w", "256K", "-C", "reno"}, []string{"sum_received"}, false, 128 * 1024},
	{"-F", []string{"-F", "@file"}, []string{"sum_received"}, false, 128 * 1024},
}

// boardOK fails the test on a board run that did not end well.
func boardOK(t *testing.T, r *boardRun) {
	t.Helper()
	if r.err != nil || r.code != 0 {
		t.Fatalf("board: exit %d, %v\n%s\n%s", r.code, r.err, r.stderr.String(), r.stdout.String())
	}
}

// interopFile is a 16 MiB random file for -F. The client sends TEST_END at
// EOF, and 3.12's server stops counting when it reads it: a file that fits in
// the board's send buffer (4 MiB) can all be queued before the server has
// read a byte, and both sides then report 0 received (seen once with 2 MB).
func interopFile(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16<<20)
	_, _ = rand.Read(b)
	p := filepath.Join(t.TempDir(), "payload.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (tc interopCase) argsWith(file string) []string {
	var out []string
	for _, a := range tc.args {
		if a == "@file" {
			a = file
		}
		out = append(out, a)
	}
	if !contains(out, "-F") {
		out = append(out, "-t", "2")
	}
	return append(out, "-J")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkAgree compares the client's and the server's accounts of a test.
func checkAgree(t *testing.T, tc interopCase, client, server jsonDoc) {
	t.Helper()
	for _, sum := range tc.agree {
		cb, sb := client.num("end", sum, "bytes"), server.num("end", sum, "bytes")
		if cb <= 0 || sb <= 0 || cb-sb > tc.slack || sb-cb > tc.slack {
			t.Errorf("%s bytes: client %.0f, server %.0f", sum, cb, sb)
		}
		if !tc.udp {
			continue
		}
		for _, k := range []string{"packets", "lost_packets"} {
			if c, s := client.num("end", sum, k), server.num("end", sum, k); c < 0 || c != s {
				t.Errorf("%s %s: client %.0f, server %.0f", sum, k, c, s)
			}
		}
	}
	if tc.udp && client.num("end", "sum_received", "packets") <= 0 {
		t.Errorf("no datagrams received")
	}
}

// TestInteropHostClientBoardServer: Debian's iperf3 -c against the board's
// iperf3 -s -1 -J, for UDP both ways, --bidir, -b, -w, -C reno and -F.
func TestInteropHostClientBoardServer(t *testing.T) {
	eachInteropCase(t, func(t *testing.T, tc interopCase, ns *netns, ctx context.Context, args []string) {
		client, server := hostClientBoardServer(t, ns, ctx, "", args)
		checkAgree(t, tc, client, server)
		checkServerJSONReadsCC(t, tc, server)
	})
}

// hostClientBoardServer runs Debian's iperf3 -c with args against the
// board's iperf3 -s -1 -J (capturing the wire to pcap if set) and returns
// both JSON documents.
func hostClientBoardServer(t *testing.T, ns *netns, ctx context.Context, pcap string, args []string) (client, server jsonDoc) {
	t.Helper()
	client, server, _ = hostClientBoardServerWith(t, ns, ctx, pcap, []string{"-s", "-1", "-J"}, append([]string{"-c", boardIP}, args...))
	return client, server
}

// hostClientBoardServerWith is hostClientBoardServer with the board's and
// the client's whole command lines; it also returns the board's run.
func hostClientBoardServerWith(t *testing.T, ns *netns, ctx context.Context, pcap string, boardArgs, clientArgs []string) (client, server jsonDoc, r *boardRun) {
	t.Helper()
	var cout, cerr bytes.Buffer
	var cliErr error
	done := make(chan struct{})
	r = runBoard(ctx, ns, fixedBoard, pcap, boardArgs, func() {
		defer close(done)
		cli := ns.exec(ctx, 20*time.Second, "iperf3", clientArgs...)
		cli.Stdout, cli.Stderr = &cout, &cerr
		cliErr = cli.Run()
	})
	<-done
	boardOK(t, r)
	if cliErr != nil {
		t.Fatalf("Debian iperf3 client: %v\n%s\n%s", cliErr, cerr.String(), cout.String())
	}
	return parseDoc(t, "client", cout.Bytes()), parseDoc(t, "board server", r.stdout.Bytes()), r
}

// eachInteropCase runs body as a subtest for every interop case, in a fresh
// namespace with the TAP; args are the case's iperf3 options.
func eachInteropCase(t *testing.T, body func(t *testing.T, tc interopCase, ns *netns, ctx context.Context, args []string)) {
	need(t, "iperf3", "ss")
	file := interopFile(t)
	for _, tc := range interopCases {
		t.Run(tc.name, func(t *testing.T) {
			ns, ctx := tapNetns(t, 25*time.Second)
			body(t, tc, ns, ctx, tc.argsWith(file))
		})
	}
}

// checkServerJSONReadsCC: with -C reno the board's server runs reno.
func checkServerJSONReadsCC(t *testing.T, tc interopCase, server jsonDoc) {
	t.Helper()
	if !contains(tc.args, "reno") {
		return
	}
	end, _ := server["end"].(map[string]any)
	if cc, _ := end["receiver_tcp_congestion"].(string); cc != "reno" {
		t.Errorf("board server runs %q, want reno", cc)
	}
}

// TestInteropBoardClientHostServer: the board's iperf3 -c against Debian's
// iperf3 -s -1 -J, for the same options.
func TestInteropBoardClientHostServer(t *testing.T) {
	eachInteropCase(t, func(t *testing.T, tc interopCase, ns *netns, ctx context.Context, args []string) {
		client, server := boardClientHostServer(t, ns, ctx, "", args)
		checkAgree(t, tc, client, server)
	})
}

// boardClientHostServer runs the board's iperf3 -c with args against
// Debian's iperf3 -s -1 -J (capturing the wire to pcap if set) and returns
// both JSON documents.
func boardClientHostServer(t *testing.T, ns *netns, ctx context.Context, pcap string, args []string) (client, server jsonDoc) {
	t.Helper()
	return boardClientHostServerAt(t, ns, ctx, pcap, hostIP, args)
}

// boardClientHostServerAt is boardClientHostServer with the server bound to,
// and the board's client dialling, the host side's address host.
func boardClientHostServerAt(t *testing.T, ns *netns, ctx context.Context, pcap, host string, args []string) (client, server jsonDoc) {
	t.Helper()
	srv := ns.startHostServerOn(ctx, host)
	r := runBoard(ctx, ns, fixedBoard, pcap, append([]string{"-c", host}, args...), nil)
	werr := srv.wait()
	boardOK(t, r)
	if werr != nil {
		t.Fatalf("Debian iperf3 server: %v\n%s\n%s", werr, srv.stderr.String(), srv.out.String())
	}
	return parseDoc(t, "board client", r.stdout.Bytes()), parseDoc(t, "Debian server", srv.out.Bytes())
}
