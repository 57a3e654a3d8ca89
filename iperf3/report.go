package iperf3

import (
	"bytes"
	"fmt"
	"io"
)

// Report lines, from src/iperf_locale.c (3.12).
const (
	lineSeparator        = "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
	headerBW             = "[ ID] Interval           Transfer     Bitrate\n"
	headerBWRetrans      = "[ ID] Interval           Transfer     Bitrate         Retr\n"
	headerBWRetransCwnd  = "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
	formatBW             = "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec                  %s\n"
	formatBWRetrans      = "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %3d             %s\n"
	formatBWRetransCwnd  = "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %3d   %ss       %s\n"
	formatSumBW          = "[SUM]%s %6.2f-%-6.2f sec  %ss  %ss/sec                  %s\n"
	formatSumBWRetrans   = "[SUM]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %3d             %s\n"
	reportOmitted        = "(omitted)"
	reportSender         = "sender"
	reportReceiver       = "receiver"
	reportDone           = "iperf Done.\n"
	reportServerOutput   = "\nServer output:\n%s\n"
	reportServerJSONText = "\nServer JSON output:\n%s\n"
)

// printer writes text output, one call per iperf_printf of 3.12. A nil
// printer prints nothing. capture, when set, keeps a copy for
// --get-server-output (bounded like any JSON message).
type printer struct {
	w       io.Writer
	capture *bytes.Buffer
	title   string       // -T: the client prefixes each print with "title:  "
	stamp   *lineStamper // --timestamps: each print starts with the time, before the title
}

func (p *printer) printf(format string, args ...any) {
	if p == nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	if p.title != "" {
		s = p.title + ":  " + s
	}
	s = p.stamp.now() + s
	_, _ = io.WriteString(p.w, s) // output trouble must not abort a test
	if p.capture != nil && p.capture.Len()+len(s) <= MaxJSONLength/2 {
		p.capture.WriteString(s)
	}
}

// plain writes what 3.12 prints with printf, not iperf_printf: no title,
// no timestamp, not captured.
func (p *printer) plain(format string, args ...any) {
	if p != nil {
		_, _ = fmt.Fprintf(p.w, format, args...)
	}
}

func rate(bytes uint64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(bytes) / seconds
}

func omittedText(omitted bool) string {
	if omitted {
		return reportOmitted
	}
	return ""
}

// reportInterval prints and records the interval every stream just closed
// (iperf_print_intermediate). Like iperf3 it skips an interval shorter than
// a tenth of the reporting interval in which nothing moved: the sliver
// between the last report and the end of a test. With --bidir each
// direction has its lines and its sum.
func (s *session) reportInterval() {
	if !s.intervalWorthReporting() {
		return
	}
	var iv Interval
	for _, g := range s.groups() {
		var sum IntervalSum
		if s.params.UDP {
			sum = s.reportIntervalGroupUDP(g, &iv)
		} else {
			sum = s.reportIntervalGroupTCP(g, &iv)
		}
		if s.reverseGroup(g) {
			iv.SumBidirReverse = &sum
		} else {
			iv.Sum = sum
		}
	}
	s.res.Intervals = append(s.res.Intervals, iv)
}

// intervalHeader prints the header before the first interval, or the
// separator between intervals of a -P test, when st is the first stream.
func (s *session) intervalHeader(st *stream, header string) {
	if st != s.streams[0] {
		return
	}
	switch {
	case st.last.first:
		s.out.printf("%s", header)
	case s.params.Parallel > 1:
		s.out.printf("%s", lineSeparator)
	}
}

// intervalStream is st's last interval as JSON, and its byte rate.
func intervalStream(st *stream) (IntervalStream, float64) {
	smp := st.last
	dur, from, to := intervalTimes(st)
	bw := rate(smp.bytes, dur)
	return IntervalStream{Socket: st.socket, Span: newSpan(from, to, dur, smp.bytes, bw),
		Omitted: smp.omitted, Sender: st.sender}, bw
}

// intervalTimes are an interval's length and its bounds since st's start.
func intervalTimes(st *stream) (dur, from, to float64) {
	smp := st.last
	return secs(smp.end.Sub(smp.start)), secs(smp.start.Sub(st.start)), secs(smp.end.Sub(st.start))
}

// reportIntervalGroupTCP prints one direction's TCP interval lines, adds
// its streams to iv and returns its sum.
func (s *session) reportIntervalGroupTCP(g bool, iv *Interval) IntervalSum {
	var sumBytes uint64
	var sumRetrans int64
	tag := s.tag(g)
	header := headerBW
	if s.senderHasRetrans == 1 {
		header = headerBWRetransCwnd
	}
	header = s.bidirHeader(header)
	for _, st := range s.group(g) {
		smp := st.last
		s.intervalHeader(st, header)
		is, bw := intervalStream(st)
		from, to := is.Start, is.End
		if s.senderHasRetrans == 1 && st.sender {
			tcp := smp.tcp
			is.IntervalTCPInfo = &tcp
			s.out.printf(formatBWRetransCwnd, st.socket, tag, from, to, formatBytes(float64(smp.bytes)),
				s.formatRate(bw), tcp.Retransmits, formatBytes(float64(tcp.SndCwnd)), omittedText(smp.omitted))
			sumRetrans += int64(tcp.Retransmits)
		} else {
			s.out.printf(formatBW, st.socket, tag, from, to, formatBytes(float64(smp.bytes)), s.formatRate(bw),
				omittedText(smp.omitted))
		}
		iv.Streams = append(iv.Streams, is)
		sumBytes += smp.bytes
	}
	first := s.streams[0]
	smp := first.last
	dur, from, to := intervalTimes(first)
	bw := rate(sumBytes, dur)
	sum := IntervalSum{Span: newSpan(from, to, dur, sumBytes, bw), Omitted: smp.omitted, Sender: g}
	retransSum := s.senderHasRetrans == 1 && g
	if retransSum {
		sum.RetransmitCount = &RetransmitCount{Retransmits: sumRetrans}
	}
	if s.params.Parallel > 1 {
		if retransSum {
			s.out.printf(formatSumBWRetrans, tag, from, to, formatBytes(float64(sumBytes)), s.formatRate(bw),
				sumRetrans, omittedText(smp.omitted))
		} else {
			s.out.printf(formatSumBW, tag, from, to, formatBytes(float64(sumBytes)), s.formatRate(bw),
				omittedText(smp.omitted))
		}
	}
	return sum
}

// intervalWorthReporting is false for no streams, or for the sliver at the
// end of a test in which nothing moved.
func (s *session) intervalWorthReporting() bool {
	for _, st := range s.streams {
		if st.last.end.Sub(st.last.start) >= s.interval/10 || st.last.bytes > 0 {
			return true
		}
	}
	return false
}

// summarize prints and records the whole-test summary (iperf_print_results).
// The server leaves out the half it cannot know: its peer's sending or
// receiving lines. With --bidir each direction has its own lines and sums.
func (s *session) summarize() {
	end := &s.res.End
	end.Streams = nil
	s.out.printf("%s", lineSeparator)
	s.verboseSummary()
	if s.params.UDP {
		s.out.printf("%s", s.bidirHeader(headerUDP))
		for _, g := range s.groups() {
			s.summarizeGroupUDP(g)
			s.verboseGroupEnd(g)
		}
		end.CPUUtilizationPercent = s.cpuUtilization()
		return
	}
	if s.senderHasRetrans != 0 || s.peerHasRetrans != 0 {
		s.out.printf("%s", s.bidirHeader(headerBWRetrans))
	} else {
		s.out.printf("%s", s.bidirHeader(headerBW))
	}
	senderTime, receiverTime, ownTime := s.summaryTimes()
	for _, g := range s.groups() {
		retrans := s.senderHasRetrans != 0
		if s.params.Bidir && !g {
			retrans = s.peerHasRetrans != 0
		}
		var tot tcpTotalsSum
		for _, st := range s.streams {
			if st.sender == g {
				end.Streams = append(end.Streams, s.summarizeStreamTCP(st, g, retrans, senderTime, receiverTime, ownTime, &tot))
			}
		}
		s.summarizeSumsTCP(g, tot, retrans, senderTime, receiverTime)
		s.verboseGroupEnd(g)
	}
	end.CPUUtilizationPercent = s.cpuUtilization()
	remoteCongestion := ""
	if s.peer != nil {
		remoteCongestion = s.peer.CongestionUsed
	}
	if s.sending {
		end.SenderTCPCongestion, end.ReceiverTCPCongestion = s.congestion, remoteCongestion
	} else {
		end.SenderTCPCongestion, end.ReceiverTCPCongestion = remoteCongestion, s.congestion
	}
}

// summaryTimes are the sender's and the receiver's test lengths (the peer's
// from its results, this side's own if the peer sent none) and this side's.
func (s *session) summaryTimes() (senderTime, receiverTime, ownTime float64) {
	if len(s.streams) == 0 {
		return 0, 0, 0
	}
	first := s.streams[0]
	ownTime = secs(first.duration())
	peerTime := 0.0
	if first.hasPeer && first.peer.HasTimes {
		peerTime = first.peer.EndTime - first.peer.StartTime
	}
	if first.sender {
		senderTime, receiverTime = ownTime, peerTime
		if receiverTime == 0 {
			receiverTime = senderTime
		}
	} else {
		receiverTime, senderTime = ownTime, peerTime
		if senderTime == 0 {
			senderTime = receiverTime
		}
	}
	return senderTime, receiverTime, ownTime
}

// cpuUtilization is the end's CPU block: 0 here, the peer's as it said.
func (s *session) cpuUtilization() *CPUUtilization {
	cpu := &CPUUtilization{}
	if s.peer != nil {
		cpu.RemoteTotal, cpu.RemoteUser, cpu.RemoteSystem = s.peer.CPUUtilTotal, s.peer.CPUUtilUser, s.peer.CPUUtilSystem
	}
	return cpu
}

// tcpTotalsSum adds the streams of a TCP summary.
type tcpTotalsSum struct {
	sent, received uint64
	retrans        int64
}

// summarizeStreamTCP prints one TCP stream's summary lines and returns its
// JSON entry.
func (s *session) summarizeStreamTCP(st *stream, g, retrans bool, senderTime, receiverTime, ownTime float64, tot *tcpTotalsSum) EndStream {
	mustBeSender, server, tag := g, s.role == 's', s.tag(g)
	var sent, received uint64
	var streamRetrans int64
	if st.sender {
		sent, received = st.ownBytes(), st.peer.Bytes
		streamRetrans = int64(st.tcp.retrans)
	} else {
		sent, received = st.peer.Bytes, st.ownBytes()
		if st.hasPeer && st.peer.Retransmits > 0 {
			streamRetrans = st.peer.Retransmits
		}
	}
	tot.sent += sent
	tot.received += received

	sendBW := rate(sent, senderTime)
	sender := EndStats{Socket: st.socket, Span: newSpan(0, senderTime, senderTime, sent, sendBW), Sender: mustBeSender}
	if retrans {
		tot.retrans += streamRetrans
		t := st.tcp
		mean := uint32(0)
		if t.countRTT > 0 {
			mean = uint32(t.sumRTT / t.countRTT)
		}
		sender.SenderTCPInfo = &SenderTCPInfo{Retransmits: streamRetrans, MaxSndCwnd: t.maxCwnd,
			MaxSndWnd: t.maxSndWnd, MaxRTT: t.maxRTT, MinRTT: t.minRTT, MeanRTT: mean}
	}
	switch {
	case server && !st.sender:
		s.notAvailable(st.socket, reportSender)
	case retrans:
		s.out.printf(formatBWRetrans, st.socket, tag, 0.0, senderTime, formatBytes(float64(sent)),
			s.formatRate(sendBW), streamRetrans, reportSender)
	default:
		s.out.printf(formatBW, st.socket, tag, 0.0, senderTime, formatBytes(float64(sent)),
			s.formatRate(sendBW), reportSender)
	}
	s.diskFileLine(st, g, sent, received)
	recvBW := rate(received, receiverTime)
	receiver := EndStats{Socket: st.socket, Span: newSpan(0, receiverTime, ownTime, received, recvBW), Sender: mustBeSender}
	if server && st.sender {
		s.notAvailable(st.socket, reportReceiver)
	} else {
		s.out.printf(formatBW, st.socket, tag, 0.0, receiverTime, formatBytes(float64(received)),
			s.formatRate(recvBW), reportReceiver)
	}
	return EndStream{Sender: sender, DiskFile: s.diskFileJSON(st, sent, received), Receiver: receiver}
}

// summarizeSumsTCP records the end sums and prints them with -P > 1.
func (s *session) summarizeSumsTCP(g bool, tot tcpTotalsSum, retrans bool, senderTime, receiverTime float64) {
	mustBeSender, server, tag := g, s.role == 's', s.tag(g)
	sendBW := rate(tot.sent, senderTime)
	sumSent := &EndSum{Span: newSpan(0, senderTime, senderTime, tot.sent, sendBW), Sender: mustBeSender}
	if retrans {
		sumSent.RetransmitCount = &RetransmitCount{Retransmits: tot.retrans}
	}
	recvBW := rate(tot.received, receiverTime)
	sumReceived := &EndSum{Span: newSpan(0, receiverTime, receiverTime, tot.received, recvBW), Sender: mustBeSender}
	s.setEndSums(g, nil, sumSent, sumReceived)
	if s.params.Parallel <= 1 {
		return
	}
	switch {
	case server && !mustBeSender:
		s.notAvailable("SUM", reportSender)
	case retrans:
		s.out.printf(formatSumBWRetrans, tag, 0.0, senderTime, formatBytes(float64(tot.sent)),
			s.formatRate(sendBW), tot.retrans, reportSender)
	default:
		s.out.printf(formatSumBW, tag, 0.0, senderTime, formatBytes(float64(tot.sent)),
			s.formatRate(sendBW), reportSender)
	}
	if server && mustBeSender {
		s.notAvailable("SUM", reportReceiver)
	} else {
		s.out.printf(formatSumBW, tag, 0.0, receiverTime, formatBytes(float64(tot.received)),
			s.formatRate(recvBW), reportReceiver)
	}
}
