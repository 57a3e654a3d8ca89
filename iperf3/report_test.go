package iperf3

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/faketime"

	"mesonemu/socket"
)

// scriptedTCP hands out TCP_INFO readings from a list per connection.
type scriptedTCP map[net.Conn][]socket.TCPInfo

func (s scriptedTCP) info(c net.Conn) (socket.TCPInfo, bool) {
	list := s[c]
	if len(list) == 0 {
		return socket.TCPInfo{}, false
	}
	s[c] = list[1:]
	return list[0], true
}

func pipeConn(t *testing.T) net.Conn {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a
}

// newTestSession builds a client-side session over pipes (addresses print as
// "pipe", port 0) with the output captured.
func newTestSession(t *testing.T, p testParams, tcp scriptedTCP) (*session, *bytes.Buffer, tcpip.MonotonicTime) {
	clk := faketime.NewManualClock()
	var out bytes.Buffer
	s := &session{
		role: 'c', clock: clk, out: &printer{w: &out}, res: &Result{}, params: p,
		sending: true, senderHasRetrans: 1, interval: time.Second, tcpInfo: tcp.info,
	}
	return s, &out, clk.NowMonotonic()
}

// TestReportLines drives the statistics by hand: two streams send 1 Gbit/s
// and 500 Mbit/s for two seconds; the receiver reports 249 MB and 125 MB
// over 2.01 s. Every number below is worked out by hand from those inputs
// with iperf3's rules (MBytes are MiB, bits/s are decimal, four places).
func TestReportLines(t *testing.T) {
	a, b := pipeConn(t), pipeConn(t)
	tcp := scriptedTCP{
		a: {{Total_retrans: 3, Snd_cwnd: 1 << 10, Snd_mss: 1 << 10, Rtt: 100}, {Total_retrans: 5, Snd_cwnd: 1 << 10, Snd_mss: 1 << 10, Rtt: 200}},
		b: {{Snd_cwnd: 512, Snd_mss: 1 << 10, Rtt: 300}, {Snd_cwnd: 512, Snd_mss: 1 << 10, Rtt: 300}},
	}
	s, out, t0 := newTestSession(t, testParams{Time: 2, Parallel: 2, Len: DefaultBlockSize}, tcp)
	sa, sb := s.addStream(a, true), s.addStream(b, true)
	s.startTest(t0)
	sa.moved.Store(125_000_000)
	sb.moved.Store(62_500_000)
	s.takeStats(t0.Add(time.Second), false)
	s.reportInterval()
	sa.moved.Add(125_000_000)
	sb.moved.Add(62_500_000)
	s.takeStats(t0.Add(2*time.Second), true)
	if err := s.applyPeer(PeerResults{SenderHasRetransmits: -1, Streams: []PeerStream{
		{ID: 1, Bytes: 249_000_000, Retransmits: -1, EndTime: 2.01, HasTimes: true},
		{ID: 3, Bytes: 125_000_000, Retransmits: -1, EndTime: 2.01, HasTimes: true},
	}}); err != nil {
		t.Fatal(err)
	}
	s.reportInterval()
	s.summarize()

	checkReport(t, out,
		"[  5] local pipe port 0 connected to pipe port 0",
		"[  7] local pipe port 0 connected to pipe port 0",
		"[ ID] Interval           Transfer     Bitrate         Retr  Cwnd",
		"[  5]   0.00-1.00   sec   119 MBytes  1.00 Gbits/sec    3   1.00 MBytes       ",
		"[  7]   0.00-1.00   sec  59.6 MBytes   500 Mbits/sec    0    512 KBytes       ",
		"[SUM]   0.00-1.00   sec   179 MBytes  1.50 Gbits/sec    3             ",
		"- - - - - - - - - - - - - - - - - - - - - - - - -",
		"[  5]   1.00-2.00   sec   119 MBytes  1.00 Gbits/sec    2   1.00 MBytes       ",
		"[  7]   1.00-2.00   sec  59.6 MBytes   500 Mbits/sec    0    512 KBytes       ",
		"[SUM]   1.00-2.00   sec   179 MBytes  1.50 Gbits/sec    2             ",
		"- - - - - - - - - - - - - - - - - - - - - - - - -",
		"[ ID] Interval           Transfer     Bitrate         Retr",
		"[  5]   0.00-2.00   sec   238 MBytes  1.00 Gbits/sec    5             sender",
		"[  5]   0.00-2.01   sec   237 MBytes   991 Mbits/sec                  receiver",
		"[  7]   0.00-2.00   sec   119 MBytes   500 Mbits/sec    0             sender",
		"[  7]   0.00-2.01   sec   119 MBytes   498 Mbits/sec                  receiver",
		"[SUM]   0.00-2.00   sec   358 MBytes  1.50 Gbits/sec    5             sender",
		"[SUM]   0.00-2.01   sec   357 MBytes  1.49 Gbits/sec                  receiver",
	)

	end := s.res.End
	if sum := end.SumSent; sum.Bytes != 375_000_000 || sum.BitsPerSecond != 1.5e9 || sum.Seconds != 2 || sum.Retransmits != 5 {
		t.Errorf("sum_sent %+v %+v", *sum, sum.RetransmitCount)
	}
	if sum := end.SumReceived; sum.Bytes != 374_000_000 || sum.End != 2.01 || sum.RetransmitCount != nil {
		t.Errorf("sum_received %+v", *sum)
	}
	st := end.Streams[0]
	if st.Sender.MaxSndCwnd != 1<<20 || st.Sender.MinRTT != 100 || st.Sender.MaxRTT != 200 || st.Sender.MeanRTT != 150 ||
		st.Receiver.End != 2.01 || st.Receiver.Seconds != 2 || st.Receiver.SenderTCPInfo != nil || !st.Receiver.Sender {
		t.Errorf("end stream 0: sender %+v %+v, receiver %+v", st.Sender, *st.Sender.SenderTCPInfo, st.Receiver)
	}
	if iv := s.res.Intervals[1]; iv.Streams[0].Retransmits != 2 || iv.Streams[0].Start != 1 || iv.Sum.Retransmits != 2 ||
		iv.Sum.BitsPerSecond != 1.5e9 {
		t.Errorf("interval 2: %+v / %+v", iv.Streams[0], iv.Sum)
	}
	local := s.localResults()
	if local.SenderHasRetransmits != 1 || local.Streams[0].Bytes != 250_000_000 || local.Streams[0].Retransmits != 5 ||
		local.Streams[1].ID != 3 || local.Streams[1].EndTime != 2 {
		t.Errorf("results sent to the peer: %+v", local)
	}
}

// TestReportOmitAndSliver: intervals in the omit period are marked and then
// dropped from the totals; a final sliver under a tenth of the interval with
// nothing moved is not reported, one with data is.
func TestReportOmitAndSliver(t *testing.T) {
	a := pipeConn(t)
	s, out, t0 := newTestSession(t, testParams{Time: 1, Omit: 1, Parallel: 1, Len: DefaultBlockSize}, nil)
	s.senderHasRetrans, s.tcpInfo = 0, nil
	st := s.addStream(a, true)
	s.startTest(t0)
	st.moved.Store(500_000)
	s.takeStats(t0.Add(time.Second), false)
	s.reportInterval()
	s.endOmit(t0.Add(time.Second))
	st.moved.Add(1_000_000)
	s.takeStats(t0.Add(2*time.Second), false)
	s.reportInterval()
	s.takeStats(t0.Add(2*time.Second+50*time.Millisecond), false) // nothing moved: skipped
	s.reportInterval()
	st.moved.Add(65536)
	s.takeStats(t0.Add(2*time.Second+60*time.Millisecond), true) // 64 KiB in 10 ms (from 1.05 s): reported
	s.reportInterval()
	s.summarize()

	checkReport(t, out,
		"[  5] local pipe port 0 connected to pipe port 0",
		"[ ID] Interval           Transfer     Bitrate",
		"[  5]   0.00-1.00   sec   488 KBytes  4.00 Mbits/sec                  (omitted)",
		"[  5]   0.00-1.00   sec   977 KBytes  8.00 Mbits/sec                  ",
		"[  5]   1.05-1.06   sec  64.0 KBytes  52.4 Mbits/sec                  ",
		"- - - - - - - - - - - - - - - - - - - - - - - - -",
		"[ ID] Interval           Transfer     Bitrate",
		"[  5]   0.00-1.06   sec  1.02 MBytes  8.04 Mbits/sec                  sender",
		"[  5]   0.00-1.06   sec  0.00 Bytes  0.00 bits/sec                  receiver",
	)
	if n := len(s.res.Intervals); n != 3 {
		t.Errorf("%d intervals recorded, want 3", n)
	}
}

// checkReport compares the text output with lines, each ending in "\n".
func checkReport(t *testing.T, out *bytes.Buffer, lines ...string) {
	t.Helper()
	if want := strings.Join(lines, "\n") + "\n"; out.String() != want {
		t.Errorf("report\n got:\n%s\nwant:\n%s", out.String(), want)
	}
}
