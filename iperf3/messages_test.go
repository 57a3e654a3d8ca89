package iperf3

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseParams(t *testing.T) {
	tests := []struct {
		body string
		want testParams
		code Code
	}{
		{goodParams, testParams{Time: 1, Parallel: 1, Len: 131072, ClientVersion: "3.12", PacingTimer: 1000}, 0},
		{`{"tcp":true,"time":5,"parallel":3,"reverse":true,"len":65536,"get_server_output":1,"num":1048576}`,
			testParams{Time: 5, Parallel: 3, Reverse: true, Len: 65536, GetServerOutput: true, Num: 1 << 20}, 0},
		// Presence is what counts for booleans, as in get_parameters.
		{`{"reverse":false}`, testParams{Time: 10, Parallel: 1, Len: DefaultBlockSize, Reverse: true}, 0},
		// Socket settings are taken; what is unknown is ignored, not refused.
		{`{"window":1000000,"MSS":1400,"nodelay":true,"bandwidth":1000,"TOS":16,"title":"x","extra":[1]}`,
			testParams{Time: 10, Parallel: 1, Len: DefaultBlockSize, Bandwidth: 1000, Window: 1000000, MSS: 1400, NoDelay: true, TOS: 16, Title: "x"}, 0},
		{`{"TOS":255}`, testParams{Time: 10, Parallel: 1, Len: DefaultBlockSize, TOS: 255}, 0},
		{`{"TOS":256}`, testParams{}, CodeBadTOS},
		// 3.12 reads dont_fragment's value, not its presence.
		{`{"udp":true,"len":1400,"dont_fragment":1}`, testParams{Time: 10, Parallel: 1, Len: 1400, UDP: true, DontFragment: true}, 0},
		{`{"udp":true,"len":1400,"dont_fragment":0}`, testParams{Time: 10, Parallel: 1, Len: 1400, UDP: true}, 0},
		{`{"TOS":-1}`, testParams{}, CodeBadTOS},
		{`{"window":536870913}`, testParams{}, CodeBufSize},
		{`{"MSS":9217}`, testParams{}, CodeMSS},
		// UDP: the 3.12 client's keys (observed -u -b 100M -l 1472 --udp-counters-64bit).
		{`{"udp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":1472,"bandwidth":100000000,"pacing_timer":1000,"udp_counters_64bit":1,"client_version":"3.12"}`,
			testParams{Time: 2, Parallel: 1, Len: 1472, UDP: true, Bandwidth: 100000000, PacingTimer: 1000, Counters64: true, ClientVersion: "3.12"}, 0},
		{`{"udp":true,"len":15}`, testParams{}, CodeUDPBlockSize},
		{`{"udp":true,"len":65508}`, testParams{}, CodeUDPBlockSize},
		{`{"udp":true,"len":1400,"burst":1001}`, testParams{}, CodeBurst},
		{`{"omit":601}`, testParams{}, CodeOmit},
		{`{"time":86401}`, testParams{}, CodeDuration},
		{`{"parallel":0}`, testParams{}, CodeNumStreams},
		{`{"parallel":129}`, testParams{}, CodeNumStreams},
		{`{"len":1048577}`, testParams{}, CodeBlockSize},
		{`{"num":-5}`, testParams{}, CodeRecvParams},
		{`{"sctp":true}`, testParams{}, CodeProtocol},
		{`{"bidirectional":true}`, testParams{Time: 10, Parallel: 1, Len: DefaultBlockSize, Bidir: true}, 0},
		{`{"bidirectional":true,"reverse":true}`, testParams{}, CodeReverseBidir},
		{`{"time":null}`, testParams{}, CodeRecvParams},
		{`{"time":true}`, testParams{}, CodeRecvParams},
		{`"tcp"`, testParams{}, CodeRecvParams},
		{`null`, testParams{}, CodeRecvParams},
		{`{"tcp":true} trailing`, testParams{}, CodeRecvParams},
	}
	for _, tc := range tests {
		p, err := parseParams([]byte(tc.body))
		if CodeOf(err) != tc.code {
			t.Errorf("%s: error %v, want code %d", tc.body, err, tc.code)
			continue
		}
		if tc.code == 0 && p != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.body, p, tc.want)
		}
	}
}

func TestSendLimit(t *testing.T) {
	tests := []struct {
		p    testParams
		want uint64
	}{
		{testParams{Len: 131072}, 0},
		{testParams{Len: 131072, Num: 1000}, 1000},
		{testParams{Len: 1000, BlockCount: 5}, 5000},
		{testParams{Len: 1000, BlockCount: 5, Num: 3000}, 3000},
		{testParams{Len: 1 << 20, BlockCount: 1 << 62}, 1 << 63}, // clamped, no overflow
	}
	for _, tc := range tests {
		if got := tc.p.sendLimit(); got != tc.want {
			t.Errorf("%+v: limit %d, want %d", tc.p, got, tc.want)
		}
	}
}

// TestRecordedMessages reads every recorded real exchange: our parameter
// encoding reproduces the real client's bytes, and both sides' results parse
// with the -1 quirk read as "not available".
func TestRecordedMessages(t *testing.T) {
	for _, sc := range scenarios {
		rec := loadControlLog(t, sc.name)
		p, err := parseParams(rec.Params)
		if err != nil {
			t.Fatalf("%s params: %v", sc.name, err)
		}
		again, _ := json.Marshal(p.wire())
		if !bytes.Equal(again, rec.Params) {
			t.Errorf("%s params re-encode as\n%s\nnot\n%s", sc.name, again, rec.Params)
		}
		for who, body := range map[string][]byte{"client": rec.ClientResults, "server": rec.ServerResults} {
			r, err := parseResults(body)
			if err != nil {
				t.Fatalf("%s %s results: %v", sc.name, who, err)
			}
			receiver := (who == "server") != p.Reverse
			if receiver && (r.SenderHasRetransmits != -1 || r.Streams[0].Retransmits != -1) {
				t.Errorf("%s %s is the receiver but reads as %+v", sc.name, who, r)
			}
			if !receiver && r.SenderHasRetransmits != 1 {
				t.Errorf("%s %s is a Linux sender but reads as %+v", sc.name, who, r)
			}
			if len(r.Streams) != p.Parallel || !r.Streams[0].HasTimes || r.Streams[0].Bytes == 0 {
				t.Errorf("%s %s streams %+v", sc.name, who, r.Streams)
			}
		}
		if want := []int8{stateTestEnd, stateIperfDone}; !bytes.Equal(int8s(rec.ClientStates), int8s(want)) {
			t.Errorf("%s client states %v", sc.name, rec.ClientStates)
		}
		want := []int8{stateParamExchange, stateCreateStreams, stateTestStart, stateTestRunning, stateExchangeResults, stateDisplayResults}
		if !bytes.Equal(int8s(rec.ServerStates), int8s(want)) {
			t.Errorf("%s server states %v", sc.name, rec.ServerStates)
		}
		cookies, err := os.ReadFile(filepath.Join("testdata", sc.name, "data_cookies.txt"))
		if err != nil || !bytes.Equal(cookies, bytes.Repeat([]byte(cookieString(rec.Cookie)+"\n"), p.Parallel)) {
			t.Errorf("%s data streams began with %q (%v), cookie %q", sc.name, cookies, err, rec.Cookie)
		}
	}
}

func int8s(s []int8) []byte {
	b := make([]byte, len(s))
	for i, v := range s {
		b[i] = byte(v)
	}
	return b
}

func TestResultsRoundTrip(t *testing.T) {
	in := PeerResults{
		CPUUtilTotal: 1.5, SenderHasRetransmits: -1, CongestionUsed: "cubic",
		Streams: []PeerStream{{ID: 1, Bytes: 10, Retransmits: -1, StartTime: 0, EndTime: 1.25, HasTimes: true},
			{ID: 3, Bytes: 20, Retransmits: 7, EndTime: 1.5, HasTimes: true}},
	}
	body, err := in.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"cpu_util_total":1.5,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":-1,"congestion_used":"cubic",` +
		`"streams":[{"id":1,"bytes":10,"retransmits":-1,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1.25},` +
		`{"id":3,"bytes":20,"retransmits":7,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1.5}]}`
	if string(body) != want {
		t.Errorf("results JSON\n got %s\nwant %s", body, want)
	}
	out, err := parseResults(body)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in.Streams {
		if out.Streams[i] != in.Streams[i] {
			t.Errorf("stream %d: %+v, want %+v", i, out.Streams[i], in.Streams[i])
		}
	}
}

func TestParseResultsRejects(t *testing.T) {
	const stream = `{"id":1,"bytes":1,"retransmits":0,"jitter":0,"errors":0,"packets":0}`
	tests := []string{
		``,
		`[]`,
		`{"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":1,"streams":[]}`,
		`{"cpu_util_total":"x","cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":1,"streams":[]}`,
		`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"streams":[]}`,
		`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":1}`,
		`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":1,"streams":{}}`,
		`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":1,"streams":[{"id":1}]}`,
		`{"cpu_util_total":0,"cpu_util_user":0,"cpu_util_system":0,"sender_has_retransmits":1,"streams":[` +
			string(bytes.Repeat([]byte(stream+","), 129)) + stream + `]}`,
	}
	for _, body := range tests {
		_, err := parseResults([]byte(body))
		if CodeOf(err) != CodeRecvResults {
			t.Errorf("%s: error %v, want unable to receive results", truncate([]byte(body), 60), err)
		}
	}
}

func TestFraming(t *testing.T) {
	var b bytes.Buffer
	if err := writeJSONBytes(&b, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if got := b.Bytes(); !bytes.Equal(got, []byte("\x00\x00\x00\x07{\"a\":1}")) {
		t.Errorf("framed as %q", got)
	}
	body, err := readJSONBody(&b)
	if err != nil || string(body) != `{"a":1}` {
		t.Errorf("read back %q, %v", body, err)
	}
	if err := writeJSONBytes(&b, make([]byte, MaxJSONLength+1)); !errors.Is(err, errJSONTooLong) {
		t.Errorf("oversized write: %v", err)
	}
	var se bytes.Buffer
	if err := writeServerError(&se, CodeRecvParams, 104); err != nil {
		t.Fatal(err)
	}
	if got := se.Bytes(); !bytes.Equal(got, []byte{0xfe, 0, 0, 0, 114, 0, 0, 0, 104}) {
		t.Errorf("SERVER_ERROR as % x", got)
	}
}
