package iperf3

import (
	"strconv"
	"time"
)

// -V: iperf3 3.12's extra lines, each where 3.12 prints it (observed against
// the real binary; with -J they are left out).

// verboseIntro is the version and system line a verbose run starts with.
func (s *session) verboseIntro(systemInfo string) {
	if s.verbose {
		s.out.printf("%s\n%s\n", versionString, systemInfo)
	}
}

// verboseTime is the test's start time, before its connection line.
func (s *session) verboseTime(now time.Time) {
	if s.verbose {
		s.out.printf("Time: %s\n", timestamp(now).Time)
	}
}

// verboseParams follows the connection line: the cookie, the control
// connection's MSS (TCP) and the target bitrate (when one is set).
func (s *session) verboseParams(cookie string, mss int) {
	if !s.verbose {
		return
	}
	s.out.printf("      Cookie: %s\n", cookie)
	switch {
	case !s.params.UDP && s.params.MSS > 0:
		s.out.printf("      TCP MSS: %d\n", s.params.MSS) // -M
	case !s.params.UDP && mss > 0:
		s.out.printf("      TCP MSS: %d (default)\n", mss)
	}
	if s.params.Bandwidth > 0 {
		s.out.printf("      Target Bitrate: %d\n", s.params.Bandwidth)
	}
}

// verboseStarting comes after the streams' "connected to" lines.
func (s *session) verboseStarting() {
	if !s.verbose {
		return
	}
	p := s.params
	proto := "TCP"
	if p.UDP {
		proto = "UDP"
	}
	end := ""
	switch {
	case p.Num > 0:
		end = strconv.FormatUint(p.Num, 10) + " bytes to send"
	case p.BlockCount > 0:
		end = strconv.FormatUint(p.BlockCount, 10) + " blocks to send"
	default:
		end = strconv.Itoa(p.Time) + " second test"
	}
	s.out.printf("Starting Test: protocol: %s, %d streams, %d byte blocks, omitting %d seconds, %s, tos %d\n",
		proto, max(p.Parallel, 1), p.Len, p.Omit, end, p.TOS)
}

// verboseSummary heads the summary after its separator.
func (s *session) verboseSummary() {
	if s.verbose {
		s.out.printf("Test Complete. Summary Results:\n")
	}
}

// verboseEnd follows the client's summary: CPU use (reported as zero, as in
// the JSON) and, for TCP, both ends' congestion control.
func (s *session) verboseEnd() {
	if !s.verbose {
		return
	}
	s.out.printf("CPU Utilization: local/%s %.1f%% (%.1f%%u/%.1f%%s), remote/%s %.1f%% (%.1f%%u/%.1f%%s)\n",
		map[bool]string{true: "sender", false: "receiver"}[s.sending], 0.0, 0.0, 0.0,
		map[bool]string{true: "receiver", false: "sender"}[s.sending], 0.0, 0.0, 0.0)
	if e := s.res.End; !s.params.UDP {
		if e.SenderTCPCongestion != "" {
			s.out.printf("snd_tcp_congestion %s\n", e.SenderTCPCongestion)
		}
		if e.ReceiverTCPCongestion != "" {
			s.out.printf("rcv_tcp_congestion %s\n", e.ReceiverTCPCongestion)
		}
	}
}
