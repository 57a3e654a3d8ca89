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

// printer writes text output. A nil printer prints nothing. capture, when
// set, keeps a copy for --get-server-output (bounded like any JSON message).
type printer struct {
	w       io.Writer
	capture *bytes.Buffer
}

func (p *printer) printf(format string, args ...any) {
	if p == nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	_, _ = io.WriteString(p.w, s) // output trouble must not abort a test
	if p.capture != nil && p.capture.Len()+len(s) <= MaxJSONLength/2 {
		p.capture.WriteString(s)
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
// between the last report and the end of a test.
func (s *session) reportInterval() {
	if len(s.streams) == 0 {
		return
	}
	keep := false
	for _, st := range s.streams {
		if st.last.end.Sub(st.last.start) >= s.interval/10 || st.last.bytes > 0 {
			keep = true
		}
	}
	if !keep {
		return
	}
	var iv Interval
	var sumBytes uint64
	var sumRetrans int64
	for i, st := range s.streams {
		smp := st.last
		if i == 0 {
			switch {
			case smp.first && s.senderHasRetrans == 1:
				s.out.printf("%s", headerBWRetransCwnd)
			case smp.first:
				s.out.printf("%s", headerBW)
			case s.params.Parallel > 1:
				s.out.printf("%s", lineSeparator)
			}
		}
		dur := secs(smp.end.Sub(smp.start))
		bw := rate(smp.bytes, dur)
		from, to := secs(smp.start.Sub(st.start)), secs(smp.end.Sub(st.start))
		is := IntervalStream{
			Socket: st.socket, Start: from, End: to, Seconds: dur, Bytes: smp.bytes,
			BitsPerSecond: bw * 8, Omitted: smp.omitted, Sender: st.sender,
		}
		if s.senderHasRetrans == 1 && st.sender {
			tcp := smp.tcp
			is.IntervalTCPInfo = &tcp
			s.out.printf(formatBWRetransCwnd, st.socket, "", from, to, formatBytes(float64(smp.bytes)),
				formatBits(bw), tcp.Retransmits, formatBytes(float64(tcp.SndCwnd)), omittedText(smp.omitted))
			sumRetrans += int64(tcp.Retransmits)
		} else {
			s.out.printf(formatBW, st.socket, "", from, to, formatBytes(float64(smp.bytes)), formatBits(bw),
				omittedText(smp.omitted))
		}
		iv.Streams = append(iv.Streams, is)
		sumBytes += smp.bytes
	}
	first := s.streams[0]
	smp := first.last
	dur := secs(smp.end.Sub(smp.start))
	bw := rate(sumBytes, dur)
	from, to := secs(smp.start.Sub(first.start)), secs(smp.end.Sub(first.start))
	iv.Sum = IntervalSum{Start: from, End: to, Seconds: dur, Bytes: sumBytes, BitsPerSecond: bw * 8,
		Omitted: smp.omitted, Sender: s.sending}
	retransSum := s.senderHasRetrans == 1 && s.sending
	if retransSum {
		iv.Sum.RetransmitCount = &RetransmitCount{Retransmits: sumRetrans}
	}
	if s.params.Parallel > 1 {
		if retransSum {
			s.out.printf(formatSumBWRetrans, "", from, to, formatBytes(float64(sumBytes)), formatBits(bw),
				sumRetrans, omittedText(smp.omitted))
		} else {
			s.out.printf(formatSumBW, "", from, to, formatBytes(float64(sumBytes)), formatBits(bw),
				omittedText(smp.omitted))
		}
	}
	s.res.Intervals = append(s.res.Intervals, iv)
}

// summarize prints and records the whole-test summary (iperf_print_results).
// The server leaves out the half it cannot know: its peer's sending or
// receiving lines.
func (s *session) summarize() {
	retrans := s.senderHasRetrans != 0
	s.out.printf("%s", lineSeparator)
	if retrans {
		s.out.printf("%s", headerBWRetrans)
	} else {
		s.out.printf("%s", headerBW)
	}
	end := &s.res.End
	end.Streams = nil
	mustBeSender := s.sending
	server := s.role == 's'

	var senderTime, receiverTime, ownTime float64
	if len(s.streams) > 0 {
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
	}

	var totalSent, totalReceived uint64
	var totalRetrans int64
	for _, st := range s.streams {
		var sent, received uint64
		var streamRetrans int64
		if st.sender {
			sent = st.ownBytes()
			received = st.peer.Bytes
			streamRetrans = int64(st.tcp.retrans)
		} else {
			sent = st.peer.Bytes
			received = st.ownBytes()
			if st.hasPeer && st.peer.Retransmits > 0 {
				streamRetrans = st.peer.Retransmits
			}
		}
		totalSent += sent
		totalReceived += received

		sendBW := rate(sent, senderTime)
		sender := EndStats{Socket: st.socket, End: senderTime, Seconds: senderTime, Bytes: sent,
			BitsPerSecond: sendBW * 8, Sender: mustBeSender}
		if retrans {
			totalRetrans += streamRetrans
			t := st.tcp
			mean := uint32(0)
			if t.countRTT > 0 {
				mean = uint32(t.sumRTT / t.countRTT)
			}
			sender.SenderTCPInfo = &SenderTCPInfo{Retransmits: streamRetrans, MaxSndCwnd: t.maxCwnd,
				MaxSndWnd: t.maxSndWnd, MaxRTT: t.maxRTT, MinRTT: t.minRTT, MeanRTT: mean}
		}
		if !(server && !st.sender) {
			if retrans {
				s.out.printf(formatBWRetrans, st.socket, "", 0.0, senderTime, formatBytes(float64(sent)),
					formatBits(sendBW), streamRetrans, reportSender)
			} else {
				s.out.printf(formatBW, st.socket, "", 0.0, senderTime, formatBytes(float64(sent)),
					formatBits(sendBW), reportSender)
			}
		}
		recvBW := rate(received, receiverTime)
		receiver := EndStats{Socket: st.socket, End: receiverTime, Seconds: ownTime, Bytes: received,
			BitsPerSecond: recvBW * 8, Sender: mustBeSender}
		if !(server && st.sender) {
			s.out.printf(formatBW, st.socket, "", 0.0, receiverTime, formatBytes(float64(received)),
				formatBits(recvBW), reportReceiver)
		}
		end.Streams = append(end.Streams, EndStream{Sender: sender, Receiver: receiver})
	}

	sendBW := rate(totalSent, senderTime)
	end.SumSent = &EndSum{End: senderTime, Seconds: senderTime, Bytes: totalSent, BitsPerSecond: sendBW * 8,
		Sender: mustBeSender}
	if retrans {
		end.SumSent.RetransmitCount = &RetransmitCount{Retransmits: totalRetrans}
	}
	recvBW := rate(totalReceived, receiverTime)
	end.SumReceived = &EndSum{End: receiverTime, Seconds: receiverTime, Bytes: totalReceived,
		BitsPerSecond: recvBW * 8, Sender: mustBeSender}
	if s.params.Parallel > 1 {
		if !(server && !mustBeSender) {
			if retrans {
				s.out.printf(formatSumBWRetrans, "", 0.0, senderTime, formatBytes(float64(totalSent)),
					formatBits(sendBW), totalRetrans, reportSender)
			} else {
				s.out.printf(formatSumBW, "", 0.0, senderTime, formatBytes(float64(totalSent)),
					formatBits(sendBW), reportSender)
			}
		}
		if !(server && mustBeSender) {
			s.out.printf(formatSumBW, "", 0.0, receiverTime, formatBytes(float64(totalReceived)),
				formatBits(recvBW), reportReceiver)
		}
	}

	cpu := &CPUUtilization{}
	remoteCongestion := ""
	if s.peer != nil {
		cpu.RemoteTotal, cpu.RemoteUser, cpu.RemoteSystem = s.peer.CPUUtilTotal, s.peer.CPUUtilUser, s.peer.CPUUtilSystem
		remoteCongestion = s.peer.CongestionUsed
	}
	end.CPUUtilizationPercent = cpu
	if mustBeSender {
		end.SenderTCPCongestion, end.ReceiverTCPCongestion = s.congestion, remoteCongestion
	} else {
		end.SenderTCPCongestion, end.ReceiverTCPCongestion = remoteCongestion, s.congestion
	}
}
