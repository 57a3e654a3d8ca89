package iperf3

import (
	"encoding/binary"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
)

func TestUDPHeader(t *testing.T) {
	for _, c64 := range []bool{false, true} {
		b := make([]byte, 32)
		now := tcpip.MonotonicTime{}.Add(2361*time.Second + 474635*time.Microsecond)
		putUDPHeader(b, now, 1, c64)
		// Observed from 3.12 with --udp-counters-64bit: 00000939 00073e0b 0000000000000001.
		if binary.BigEndian.Uint32(b) != 0x939 || binary.BigEndian.Uint32(b[4:]) != 0x73e0b {
			t.Errorf("64-bit %v: time % x", c64, b[:8])
		}
		sent, seq, ok := parseUDPHeader(b, c64)
		if !ok || seq != 1 || math.Abs(sent-2361.474635) > 1e-9 {
			t.Errorf("64-bit %v: parsed %v %d %v", c64, sent, seq, ok)
		}
		if _, _, ok := parseUDPHeader(b[:udpHeaderLen(c64)-1], c64); ok {
			t.Errorf("64-bit %v: a short datagram parsed", c64)
		}
	}
	if string(udpConnectMsg) != "9876" || string(udpConnectReply) != "6789" {
		t.Errorf("connect magic %q / %q, want 3.12's wire bytes 9876 / 6789", udpConnectMsg, udpConnectReply)
	}
}

// TestUDPReceiverAccounting feeds sequences through iperf_udp_recv's rules:
// a gap is lost, a late datagram is out of order and takes one loss back,
// and the jitter is RFC 1889's running mean of transit differences.
func TestUDPReceiverAccounting(t *testing.T) {
	tests := []struct {
		name           string
		seqs           []uint64
		max, lost, ooo int64
	}{
		{"in order", []uint64{1, 2, 3, 4}, 4, 0, 0},
		{"gap", []uint64{1, 2, 5, 6}, 6, 2, 0},
		{"late one fills a gap", []uint64{1, 3, 2, 4}, 4, 0, 1},
		{"duplicate", []uint64{1, 2, 2, 3}, 3, 0, 1},
		{"first lost", []uint64{3}, 3, 2, 0},
	}
	for _, tc := range tests {
		var u udpCounters
		b := make([]byte, 64)
		for _, s := range tc.seqs {
			putUDPHeader(b, tcpip.MonotonicTime{}, s, false)
			u.arrive(b, 0, false)
		}
		got := u.totals(false)
		if got.packets != tc.max || got.lost != tc.lost || got.ooo != tc.ooo {
			t.Errorf("%s: max %d lost %d ooo %d, want %d %d %d", tc.name, got.packets, got.lost, got.ooo, tc.max, tc.lost, tc.ooo)
		}
	}
	// Transits 0, 1 ms, 0, 1 ms ...: J += (1 ms - J)/16 every step.
	var u udpCounters
	b := make([]byte, 64)
	want := 0.0
	for i := 0; i < 40; i++ {
		putUDPHeader(b, tcpip.MonotonicTime{}.Add(time.Duration(i)*time.Millisecond), uint64(i+1), false)
		arrival := float64(i)*1e-3 + float64(i%2)*1e-3
		u.arrive(b, arrival, false)
		if i > 0 {
			want += (1e-3 - want) / 16
		}
	}
	if got := u.totals(false).jitter; math.Abs(got-want) > 1e-9 {
		t.Errorf("jitter %.9f, want %.9f", got, want)
	}
	short := u.arrive(b[:11], 0, false)
	if short || u.malformed != 1 {
		t.Errorf("an 11-byte datagram was counted (%v, malformed %d)", short, u.malformed)
	}
}

func TestPacingGreen(t *testing.T) {
	start := tcpip.MonotonicTime{}
	p := pacing{rate: 8e6} // 1 MB/s
	at := func(ms int) tcpip.MonotonicTime { return start.Add(time.Duration(ms) * time.Millisecond) }
	for _, tc := range []struct {
		bytes uint64
		ms    int
		green bool
	}{
		{0, 0, true}, {1, 0, false}, {999, 1, true}, {1000, 1, false}, {1000, 2, true}, {1e6, 999, false},
	} {
		if got := p.green(tc.bytes, start, at(tc.ms)); got != tc.green {
			t.Errorf("%d bytes at %d ms: green %v, want %v", tc.bytes, tc.ms, got, tc.green)
		}
	}
	if !(pacing{}).green(1<<40, start, at(1)) {
		t.Error("rate 0 must never throttle")
	}
}

func TestParseArgsUDP(t *testing.T) {
	tests := []struct {
		args    string
		rate    uint64
		burst   int
		set     bool
		wantErr string
	}{
		{"-c h -u -b 500M", 500e6, 0, true, ""},
		{"-c h -u -b 1.5G/20", 1.5e9, 20, true, ""},
		{"-c h -u --bitrate=10k", 10e3, 0, true, ""},
		{"-c h -u -b junk", 0, 0, true, ""}, // atof: 0, unlimited
		{"-c h -u", 0, 0, false, ""},
		{"-c h -u -b 1M/0", 0, 0, false, "invalid burst count (maximum = 1000)"},
		{"-c h -u -b 1M/1001", 0, 0, false, "invalid burst count (maximum = 1000)"},
		{"-c h -u -l 15", 0, 0, false, "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)"},
		{"-c h -u -l 65508", 0, 0, false, "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)"},
		{"-s -u", 0, 0, false, "some option you are trying to set is client only (-u)"},
		{"-c h -u --pacing-timer 0", 0, 0, false, "bad --pacing-timer"},
	}
	for _, tc := range tests {
		cfg, err := ParseArgs(strings.Fields(tc.args))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		c := cfg.Client
		if err != nil || !c.UDP || c.Bandwidth != tc.rate || c.Burst != tc.burst || c.BandwidthSet != tc.set {
			t.Errorf("%s: %+v %v", tc.args, c, err)
		}
	}
	o, err := ClientOptions{Host: "h", UDP: true}.withDefaults()
	if err != nil || o.Bandwidth != defaultUDPRate || o.BlockSize != 0 {
		t.Errorf("UDP defaults: rate %d block %d (%v), want 1048576 and the control MSS later", o.Bandwidth, o.BlockSize, err)
	}
}

var (
	reUDPSender   = regexp.MustCompile(`^\[  5\] +\d+\.\d\d-\d+\.\d\d +sec +[\d.]+ [KMG]?Bytes +[\d.]+ [KMG]?bits/sec  \d+  $`)
	reUDPSummary  = regexp.MustCompile(`^\[  5\] +0\.00-\d+\.\d\d +sec +[\d.]+ [KMG]?Bytes +[\d.]+ [KMG]?bits/sec  \d\.\d{3} ms  (\d+)/(\d+) \(([\d.e+-]+)%\)  (sender|receiver)$`)
	reUDPReceiver = regexp.MustCompile(`^\[  5\] +\d+\.\d\d-\d+\.\d\d +sec +[\d.]+ [KMG]?Bytes +[\d.]+ [KMG]?bits/sec  \d\.\d{3} ms  \d+/\d+ \([\d.e+-]+%\)  $`)
)

// TestUDPClientAgainstServer runs a UDP test over loopback, both ways, and
// checks 3.12's layout and that both sides agree on datagrams and bytes.
func TestUDPClientAgainstServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		reverse bool
	}{
		{"forward", []string{"-u", "-b", "20M", "-l", "1000", "-k", "500"}, false},
		{"reverse", []string{"-u", "-b", "20M", "-l", "1000", "-k", "500", "-R"}, true},
		{"64-bit counters", []string{"-u", "-b", "20M", "-l", "1000", "-k", "300", "--udp-counters-64bit"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runLoop(t, tc.args...)
			if r.clientErr != nil || r.serverErr != nil {
				t.Fatalf("client: %v\nserver: %v\n%s\n%s", r.clientErr, r.serverErr, r.clientOut, r.serverOut)
			}
			c, s := r.client, r.server
			if c.Start.TestStart.Protocol != "UDP" || c.Start.TargetBitrate != 20e6 || len(c.End.Streams) != 1 {
				t.Fatalf("client start %+v, end streams %d", c.Start.TestStart, len(c.End.Streams))
			}
			u := c.End.Streams[0].UDP
			if u == nil || c.End.SumSent.UDPSum == nil || c.End.Sum == nil {
				t.Fatalf("no UDP end summary: %+v", c.End)
			}
			sent := c.End.SumSent
			if !tc.reverse && (sent.Packets != 500 && sent.Packets != 300 || sent.Bytes != uint64(sent.Packets)*1000) {
				t.Errorf("sent %d datagrams, %d bytes", sent.Packets, sent.Bytes)
			}
			// The receiver's own numbers are what the other side prints.
			recvSide := s
			if tc.reverse {
				recvSide = c
			}
			got := recvSide.End.SumReceived
			if got.Bytes == 0 || got.LostPackets > got.Packets || c.End.SumReceived.Bytes != got.Bytes ||
				c.End.SumReceived.LostPackets != got.LostPackets {
				t.Errorf("receiver: %+v %+v; client prints %+v %+v", got, got.UDPSum, c.End.SumReceived, c.End.SumReceived.UDPSum)
			}
			if tc.reverse {
				return
			}
			lines := strings.Split(r.clientOut, "\n")
			var senders, summaries int
			for _, l := range lines {
				switch {
				case reUDPSender.MatchString(l):
					senders++
				case reUDPSummary.MatchString(l):
					summaries++
				}
			}
			if senders == 0 || summaries != 2 ||
				!strings.Contains(r.clientOut, headerUDPSender) || !strings.Contains(r.clientOut, headerUDP) {
				t.Errorf("client text (%d interval, %d summary lines):\n%s", senders, summaries, r.clientOut)
			}
			for _, l := range strings.Split(r.serverOut, "\n") {
				if strings.HasPrefix(l, "[  5]") && !reUDPReceiver.MatchString(l) && !reUDPSummary.MatchString(l) &&
					!strings.Contains(l, "connected to") {
					t.Errorf("server line %q", l)
				}
			}
		})
	}
}

// TestBidir runs --bidir over loopback: the client's first stream sends and
// its second receives, lines carry 3.12's [TX-C]/[RX-C] and [RX-S]/[TX-S]
// tags, and the server -> client direction's sums are "_bidir_reverse".
func TestBidir(t *testing.T) {
	for _, args := range [][]string{
		{"--bidir", "-n", "4M", "-l", "64K"},
		{"--bidir", "-u", "-b", "20M", "-l", "1000", "-k", "400"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runLoop(t, args...)
			if r.clientErr != nil || r.serverErr != nil {
				t.Fatalf("client: %v\nserver: %v\n%s\n%s", r.clientErr, r.serverErr, r.clientOut, r.serverOut)
			}
			c, s := r.client, r.server
			if len(c.End.Streams) != 2 || c.End.SumSentBidirReverse == nil || c.End.SumReceivedBidirReverse == nil ||
				s.End.SumSentBidirReverse == nil {
				t.Fatalf("end: %+v", c.End)
			}
			if up, down := c.End.SumSent.Bytes, c.End.SumSentBidirReverse.Bytes; up == 0 || down == 0 ||
				s.End.SumReceived.Bytes != c.End.SumReceived.Bytes || s.End.SumSentBidirReverse.Bytes != down {
				t.Errorf("client up %d down %d; server received %d, sent %d", up, down, s.End.SumReceived.Bytes, s.End.SumSentBidirReverse.Bytes)
			}
			for _, want := range []string{"[ ID][Role] Interval", "[  5][TX-C]", "[  7][RX-C]"} {
				if !strings.Contains(r.clientOut, want) {
					t.Errorf("client output lacks %q:\n%s", want, r.clientOut)
				}
			}
			if strings.Index(r.serverOut, "[RX-S]") > strings.Index(r.serverOut, "[TX-S]") {
				t.Errorf("server prints its receiving stream first:\n%s", r.serverOut)
			}
			if iv := c.Intervals[0]; iv.SumBidirReverse == nil || !iv.Sum.Sender || iv.SumBidirReverse.Sender {
				t.Errorf("interval sums: %+v / %+v", iv.Sum, iv.SumBidirReverse)
			}
		})
	}
	if _, err := ParseArgs([]string{"-c", "h", "--bidir", "-R"}); err == nil || err.Error() != "cannot be both reverse and bidirectional" {
		t.Errorf("--bidir -R: %v", err)
	}
}
