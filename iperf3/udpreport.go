package iperf3

// UDP report lines (src/iperf_locale.c, 3.12).
const (
	headerUDP         = "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
	headerUDPSender   = "[ ID] Interval           Transfer     Bitrate         Total Datagrams\n"
	formatUDP         = "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %5.3f ms  %d/%d (%.2g%%)  %s\n"
	formatUDPSender   = "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec %s %d  %s\n"
	formatSumUDP      = "[SUM]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %5.3f ms  %d/%d (%.2g%%)  %s\n"
	formatSumUDPSendr = "[SUM]%s %6.2f-%-6.2f sec  %ss  %ss/sec %s %d  %s\n"
	formatOutOfOrder  = "[SUM]%s %4.1f-%4.1f sec  %d datagrams received out-of-order\n"
)

func lostPercent(lost, packets int64) float64 {
	if packets <= 0 {
		return 0
	}
	return 100 * float64(lost) / float64(packets)
}

// reportIntervalGroupUDP is iperf_print_intermediate for one direction of a
// UDP test: senders print datagrams sent, receivers jitter and lost/total.
func (s *session) reportIntervalGroupUDP(g bool, iv *Interval) IntervalSum {
	var sum udpTotals
	var sumBytes uint64
	tag, pad := s.tag(g), ""
	header := headerUDP
	switch {
	case s.params.Bidir:
		header, pad = s.bidirHeader(headerUDP), "          "
	case s.sending:
		header = headerUDPSender
	}
	for _, st := range s.group(g) {
		smp := st.last
		s.intervalHeader(st, header)
		is, bw := intervalStream(st)
		from, to := is.Start, is.End
		u := smp.udp
		if st.sender {
			is.IntervalUDP = &IntervalUDP{Packets: u.packets}
			s.out.printf(formatUDPSender, st.socket, tag, from, to, formatBytes(float64(smp.bytes)), s.formatRate(bw),
				pad, u.packets, omittedText(smp.omitted))
		} else {
			is.IntervalUDP = receiverUDP(u.jitter, u.lost, u.packets)
			s.out.printf(formatUDP, st.socket, tag, from, to, formatBytes(float64(smp.bytes)), s.formatRate(bw),
				u.jitter*1000, u.lost, u.packets, lostPercent(u.lost, u.packets), omittedText(smp.omitted))
		}
		iv.Streams = append(iv.Streams, is)
		sumBytes += smp.bytes
		sum.packets += u.packets
		sum.lost += u.lost
		sum.jitter += u.jitter
	}
	sum.jitter /= float64(s.params.Parallel)
	return s.intervalSumUDP(g, sumBytes, sum, pad)
}

// receiverUDP is a receiver's interval or sum datagram keys.
func receiverUDP(jitter float64, lost, packets int64) *IntervalUDP {
	ms, pct := jitter*1000, lostPercent(lost, packets)
	return &IntervalUDP{JitterMs: &ms, LostPackets: &lost, Packets: packets, LostPercent: &pct}
}

// intervalSumUDP is one direction's interval sum, printed with -P > 1.
func (s *session) intervalSumUDP(g bool, sumBytes uint64, sum udpTotals, pad string) IntervalSum {
	dur, from, to := intervalTimes(s.streams[0])
	bw := rate(sumBytes, dur)
	tag := s.tag(g)
	is := IntervalSum{Span: newSpan(from, to, dur, sumBytes, bw), Omitted: s.omitting, Sender: g}
	if g {
		is.IntervalUDP = &IntervalUDP{Packets: sum.packets}
	} else {
		is.IntervalUDP = receiverUDP(sum.jitter, sum.lost, sum.packets)
	}
	switch {
	case s.params.Parallel <= 1:
	case g:
		s.out.printf(formatSumUDPSendr, tag, from, to, formatBytes(float64(sumBytes)), s.formatRate(bw), pad,
			sum.packets, omittedText(s.omitting))
	default:
		s.out.printf(formatSumUDP, tag, from, to, formatBytes(float64(sumBytes)), s.formatRate(bw), sum.jitter*1000,
			sum.lost, sum.packets, lostPercent(sum.lost, sum.packets), omittedText(s.omitting))
	}
	return is
}

// udpSummary is one stream's whole-test view from both sides.
type udpSummary struct {
	sent, received           uint64
	senderPkts, receiverPkts int64 // omit period taken out
	lost, ooo                int64
	jitter                   float64 // seconds
}

// udpStreamSummary joins this side's counts with the peer's, as 3.12 does:
// the sender takes jitter and loss from the receiver's results.
func (s *session) udpStreamSummary(st *stream) udpSummary {
	own := st.ownUDP()
	var u udpSummary
	if st.sender {
		u.sent, u.received = st.ownBytes(), st.peer.Bytes
		u.senderPkts, u.receiverPkts = own.packets, st.peer.Packets
		u.lost, u.jitter = st.peer.Errors, st.peer.Jitter
	} else {
		u.sent, u.received = st.peer.Bytes, st.ownBytes()
		u.senderPkts, u.receiverPkts = st.peer.Packets, own.packets
		u.lost, u.jitter, u.ooo = own.lost, own.jitter, own.ooo-st.omitUDP.ooo
	}
	u.senderPkts -= st.omitUDP.packets
	u.receiverPkts -= st.omitUDP.packets
	u.lost -= st.omitUDP.lost
	return u
}

// summarizeGroupUDP is iperf_print_results for one direction of a UDP test.
func (s *session) summarizeGroupUDP(g bool) {
	end := &s.res.End
	server, tag := s.role == 's', s.tag(g)
	senderTime, receiverTime, _ := s.summaryTimes()
	var total udpSummary
	var totalPackets int64
	for _, st := range s.group(g) {
		u := s.udpStreamSummary(st)
		total.sent += u.sent
		total.received += u.received
		total.senderPkts += u.senderPkts
		total.receiverPkts += u.receiverPkts
		total.lost += u.lost
		total.jitter += u.jitter
		packets := u.senderPkts
		if packets == 0 {
			packets = u.receiverPkts
		}
		totalPackets += packets
		sendBW := rate(u.sent, senderTime)
		end.Streams = append(end.Streams, EndStream{UDP: &EndUDP{
			Socket: st.socket, Span: newSpan(0, senderTime, senderTime, u.sent, sendBW),
			JitterMs: u.jitter * 1000, LostPackets: u.lost, Packets: packets,
			LostPercent: lostPercent(u.lost, u.senderPkts), OutOfOrder: u.ooo, Sender: g,
		}, DiskFile: s.diskFileJSON(st, u.sent, u.received)})
		if server && !st.sender {
			s.notAvailable(st.socket, reportSender)
		} else {
			s.out.printf(formatUDP, st.socket, tag, 0.0, senderTime, formatBytes(float64(u.sent)), s.formatRate(sendBW),
				0.0, 0, u.senderPkts, 0.0, reportSender)
		}
		if u.ooo > 0 {
			s.out.printf(formatOutOfOrder, tag, 0.0, senderTime, u.ooo)
		}
		s.diskFileLine(st, g, u.sent, u.received)
		if server && st.sender {
			s.notAvailable(st.socket, reportReceiver)
		} else {
			recvBW := rate(u.received, receiverTime)
			s.out.printf(formatUDP, st.socket, tag, 0.0, receiverTime, formatBytes(float64(u.received)), s.formatRate(recvBW),
				u.jitter*1000, u.lost, u.receiverPkts, lostPercent(u.lost, u.receiverPkts), reportReceiver)
		}
	}
	total.jitter /= float64(max(s.params.Parallel, 1))
	s.summarizeUDPSums(g, total, totalPackets, senderTime, receiverTime)
}

// summarizeUDPSums records the end sums (always) and prints them with -P > 1.
func (s *session) summarizeUDPSums(g bool, t udpSummary, totalPackets int64, senderTime, receiverTime float64) {
	server, tag := s.role == 's', s.tag(g)
	pct := lostPercent(t.lost, totalPackets)
	sendBW := rate(t.sent, senderTime)
	recvBW := rate(t.received, receiverTime)
	s.setEndSums(g,
		&EndSum{Span: newSpan(0, receiverTime, receiverTime, t.sent, sendBW),
			UDPSum: &UDPSum{JitterMs: t.jitter * 1000, LostPackets: t.lost, Packets: totalPackets, LostPercent: pct}, Sender: g},
		&EndSum{Span: newSpan(0, senderTime, senderTime, t.sent, sendBW), UDPSum: &UDPSum{Packets: t.senderPkts}, Sender: true},
		&EndSum{Span: newSpan(0, receiverTime, receiverTime, t.received, recvBW),
			UDPSum: &UDPSum{JitterMs: t.jitter * 1000, LostPackets: t.lost, Packets: t.receiverPkts, LostPercent: pct}})
	if s.params.Parallel <= 1 {
		return
	}
	if !(server && !g) {
		s.out.printf(formatSumUDP, tag, 0.0, senderTime, formatBytes(float64(t.sent)), s.formatRate(sendBW),
			0.0, 0, t.senderPkts, 0.0, reportSender)
	}
	if !(server && g) {
		s.out.printf(formatSumUDP, tag, 0.0, receiverTime, formatBytes(float64(t.received)), s.formatRate(recvBW),
			t.jitter*1000, t.lost, t.receiverPkts, pct, reportReceiver)
	}
}
