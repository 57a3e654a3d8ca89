package iperf3

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mesonemu/socket"
)

// TestReplayRecordedClient plays each recorded real client's control bytes
// (cookie, parameters, TEST_END, results, IPERF_DONE) against our server and
// checks that our server answers like the real server did: the same states in
// the same order, results with the same keys and stream ids, and the real
// client's numbers (-1 quirk and all) taken in.
func TestReplayRecordedClient(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			rec := loadControlLog(t, sc.name)
			params, err := parseParams(rec.Params)
			if err != nil {
				t.Fatalf("recorded params: %v", err)
			}
			ln, err := listenLoopback()
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			served := serveOneAsync(ln, ServerOptions{
				JSON: slices.Contains(sc.serverArgs, "-J"), Output: &out,
				TCPInfo: socket.HostTCPInfo, Congestion: socket.HostCongestion, IdleTimeout: 10 * time.Second,
			})

			ctrlConn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer ctrlConn.Close()
			ctrl := fakePeer{t, ctrlConn}
			ctrl.send(rec.Cookie...)
			ctrl.expect(stateParamExchange)
			ctrl.sendJSON(rec.Params)
			ctrl.expect(stateCreateStreams)
			var data []net.Conn
			for i := 0; i < params.Parallel; i++ {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if _, err := c.Write(rec.Cookie); err != nil {
					t.Fatal(err)
				}
				data = append(data, c)
			}
			ctrl.expect(stateTestStart)
			ctrl.expect(stateTestRunning)
			if params.Reverse {
				for _, c := range data { // our server must be sending
					if _, err := c.Read(make([]byte, 4096)); err != nil {
						t.Fatalf("server sent nothing: %v", err)
					}
				}
			} else {
				// More than the socket buffers hold, so when the writes
				// return our server has read (and counted) data.
				for _, c := range data {
					if _, err := c.Write(make([]byte, 32<<20)); err != nil {
						t.Fatal(err)
					}
				}
			}
			ctrl.send(byte(stateTestEnd))
			ctrl.expect(stateExchangeResults)
			ctrl.sendJSON(rec.ClientResults)
			ours := ctrl.readJSON()
			ctrl.expect(stateDisplayResults)
			ctrl.send(byte(stateIperfDone))
			res, err := served()
			if err != nil {
				t.Fatalf("server: %v\n%s", err, out.String())
			}

			if slices.Contains(sc.serverArgs, "-J") && !params.GetServerOutput {
				checkJSONKeysLike(t, out.Bytes(), filepath.Join("testdata", sc.name, "server_output.txt"))
			}
			// Same keys, in the same order, as the real server's results.
			if k, want := jsonKeys(t, ours), jsonKeys(t, rec.ServerResults); !slices.Equal(k, want) {
				t.Errorf("results keys\n got %v\nwant %v", k, want)
			}
			mine, err := parseResults(ours)
			if err != nil {
				t.Fatalf("our results do not parse: %v\n%s", err, ours)
			}
			real, err := parseResults(rec.ServerResults)
			if err != nil {
				t.Fatalf("recorded results do not parse: %v", err)
			}
			if mine.SenderHasRetransmits != real.SenderHasRetransmits {
				t.Errorf("sender_has_retransmits %d, real server said %d", mine.SenderHasRetransmits, real.SenderHasRetransmits)
			}
			for i := range real.Streams {
				if mine.Streams[i].ID != real.Streams[i].ID || mine.Streams[i].Retransmits < 0 != (real.Streams[i].Retransmits < 0) {
					t.Errorf("stream %d: id %d retransmits %d, real %d / %d", i, mine.Streams[i].ID,
						mine.Streams[i].Retransmits, real.Streams[i].ID, real.Streams[i].Retransmits)
				}
			}
			// The real client's numbers arrived intact.
			client, _ := parseResults(rec.ClientResults)
			if res.Peer == nil || !slices.Equal(res.Peer.Streams, client.Streams) {
				t.Errorf("peer streams %+v, recorded %+v", res.Peer, client.Streams)
			}
			if params.GetServerOutput {
				if sc.name == "server-output-json" {
					var doc Result
					if err := json.Unmarshal(mine.ServerOutputJSON, &doc); err != nil || doc.Start.AcceptedConnection == nil {
						t.Errorf("server_output_json %s: %v", truncate(mine.ServerOutputJSON, 80), err)
					}
					if k, want := jsonKeys(t, mine.ServerOutputJSON), jsonKeys(t, real.ServerOutputJSON); !slices.Equal(k, want) {
						t.Errorf("server_output_json keys\n got %v\nwant %v", k, want)
					}
				} else if !strings.HasPrefix(mine.ServerOutputText, "Accepted connection from 127.0.0.1, port ") ||
					!strings.HasSuffix(mine.ServerOutputText, "receiver\n") {
					t.Errorf("server_output_text %q", mine.ServerOutputText)
				}
			}
		})
	}
}

// TestReplayRecordedServer plays each recorded real server against our
// client, configured from the same command line: our client must send the
// real client's parameter JSON byte for byte, present the cookie on every
// stream, and take in the real server's results (including 3.12's
// 18446744073709551615).
func TestReplayRecordedServer(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			rec := loadControlLog(t, sc.name)
			ln, port := loopbackPort(t)
			defer ln.Close()
			cfg, err := ParseArgs(append([]string{"-c", "127.0.0.1", "-p", itoa(port)}, sc.clientArgs...))
			if err != nil {
				t.Fatal(err)
			}
			o := cfg.Client
			var out bytes.Buffer
			o.Output, o.TCPInfo, o.Congestion, o.IdleTimeout = &out, socket.HostTCPInfo, socket.HostCongestion, 10*time.Second
			ran := runAsync(o)
			ctrl, cookie := acceptClient(t, ln)
			if cookie[CookieSize-1] != 0 || strings.Trim(string(cookie[:CookieSize-1]), cookieAlphabet) != "" {
				t.Fatalf("cookie %q is not 36 characters of %s and a NUL", cookie, cookieAlphabet)
			}
			ctrl.send(byte(stateParamExchange))
			if params := ctrl.readJSON(); !bytes.Equal(params, rec.Params) {
				t.Fatalf("parameters\n got %s\nwant %s", params, rec.Params)
			}
			ctrl.send(byte(stateCreateStreams))
			params, _ := parseParams(rec.Params)
			var data []net.Conn
			for i := 0; i < params.Parallel; i++ {
				c, err := ln.Accept()
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				got := make([]byte, CookieSize)
				if _, err := c.Read(got); err != nil || !bytes.Equal(got, cookie) {
					t.Fatalf("stream %d began %q (%v), cookie %q", i, got, err, cookie)
				}
				data = append(data, c)
			}
			ctrl.send(byte(stateTestStart), byte(stateTestRunning))
			var in sink
			var src source
			if params.Reverse {
				src.fill(data)
			} else {
				in.drain(data)
			}
			ctrl.expect(stateTestEnd)
			src.stop.Store(true)
			ctrl.send(byte(stateExchangeResults))
			clientResults, err := parseResults(ctrl.readJSON())
			if err != nil {
				t.Fatalf("client results: %v", err)
			}
			ctrl.sendJSON(rec.ServerResults)
			ctrl.send(byte(stateDisplayResults))
			ctrl.expect(stateIperfDone)
			ctrl.expectEOF()
			res, err := ran()
			if err != nil {
				t.Fatalf("client: %v\n%s", err, out.String())
			}
			in.wg.Wait()
			src.wg.Wait()

			real, _ := parseResults(rec.ServerResults)
			for i, s := range real.Streams {
				mine := clientResults.Streams[i]
				if mine.ID != s.ID {
					t.Errorf("stream %d id %d, real server has %d", i, mine.ID, s.ID)
				}
				end := res.End.Streams[i]
				if params.Reverse {
					// The real server's count is the sender line; ours the receiver's.
					if end.Sender.Bytes != s.Bytes || end.Sender.SenderTCPInfo == nil ||
						end.Sender.Retransmits != s.Retransmits || end.Receiver.Bytes != mine.Bytes {
						t.Errorf("stream %d end %+v / %+v, real server %+v", i, end.Sender, end.Receiver, s)
					}
				} else {
					// Every byte our client counted reached the fake server, no more.
					if end.Receiver.Bytes != s.Bytes || end.Sender.Bytes != mine.Bytes || mine.Bytes != in.per[i].Load() {
						t.Errorf("stream %d: receiver %d (real %d), sender %d, results %d, delivered %d",
							i, end.Receiver.Bytes, s.Bytes, end.Sender.Bytes, mine.Bytes, in.per[i].Load())
					}
				}
			}
			if o.Bytes > 0 && clientResults.Streams[0].Bytes != o.Bytes {
				t.Errorf("-n %d sent %d bytes", o.Bytes, clientResults.Streams[0].Bytes)
			}
			text := out.String()
			if params.GetServerOutput {
				if real.ServerOutputJSON != nil {
					if !strings.Contains(text, "\nServer JSON output:\n{\n") || res.ServerOutputJSON == nil {
						t.Errorf("server JSON output missing:\n%s", text)
					}
				} else if !strings.Contains(text, "\nServer output:\n"+real.ServerOutputText+"\n\niperf Done.\n") {
					t.Errorf("server output missing:\n%s", text)
				}
			}
			realOut := filepath.Join("testdata", sc.name, "client_output.txt")
			if o.JSON {
				checkJSONKeysLike(t, out.Bytes(), realOut)
			} else {
				checkLayoutLike(t, text, realOut)
			}
		})
	}
}

// checkJSONKeysLike compares our --json document's keys, order and nesting
// with the real iperf3's recorded output.
func checkJSONKeysLike(t *testing.T, ours []byte, realFile string) {
	t.Helper()
	real, err := os.ReadFile(realFile)
	if err != nil {
		t.Fatal(err)
	}
	if k, want := jsonKeys(t, ours), jsonKeys(t, real); !slices.Equal(k, want) {
		t.Errorf("JSON keys differ from %s\n got %v\nwant %v", realFile, k, want)
	}
}

// checkLayoutLike compares our text output with the real client's, line by
// line, after replacing every number with '#': same lines, same columns.
func checkLayoutLike(t *testing.T, ours, realFile string) {
	t.Helper()
	b, err := os.ReadFile(realFile)
	if err != nil {
		t.Fatal(err)
	}
	real := string(b)
	if i := strings.Index(real, "\nServer"); i >= 0 { // server output differs in content
		real = real[:i]
	}
	if i := strings.Index(ours, "\nServer"); i >= 0 {
		ours = ours[:i]
	}
	mask := func(s string) []string {
		var lines []string
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			lines = append(lines, maskNumbers(l))
		}
		return lines
	}
	o, r := mask(ours), mask(real)
	if !slices.Equal(o, r) {
		t.Errorf("layout differs from %s\n ours:\n%s\nreal:\n%s", realFile, strings.Join(o, "\n"), strings.Join(r, "\n"))
	}
}

// maskNumbers turns each run of digits, dots and the spaces around them into
// as many '#', and unit prefixes (K, M, G, T before "Bytes"/"bits") into
// '#', so only the layout is compared: fixed-width fields keep their width
// whatever value or unit a faster or slower run printed.
func maskNumbers(s string) string {
	rs := []rune(s)
	out := []rune(s)
	for i := 0; i < len(rs); {
		j := i
		digit := false
		for j < len(rs) && strings.ContainsRune("0123456789. ", rs[j]) {
			digit = digit || (rs[j] >= '0' && rs[j] <= '9')
			j++
		}
		if j > i {
			if digit {
				for k := i; k < j; k++ {
					out[k] = '#'
				}
			}
			i = j
			continue
		}
		if strings.ContainsRune("KMGT", rs[i]) && i+1 < len(rs) && (rs[i+1] == 'B' || rs[i+1] == 'b') {
			out[i] = '#'
		}
		i++
	}
	return string(out)
}
