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
		printIntro(s.out, systemInfo)
	}
}

// printIntro is 3.12's three prints: the version, an empty one (with
// --timestamps a lone stamp before the next) and the system line.
func printIntro(p *printer, systemInfo string) {
	p.printf("%s\n", versionString)
	p.printf("%s", "")
	p.printf("%s\n", systemInfo)
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
	case s.params.UDP:
	case s.params.MSS > 0:
		s.out.printf("      TCP MSS: %d\n", s.params.MSS)
	default:
		s.out.printf("      TCP MSS: %d (default)\n", mss) // 0 on the server, as 3.12 prints it
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

// verboseGroupEnd closes one direction's summary as 3.12's
// iperf_print_results does with -V: the CPU line where this side sends (two
// with --bidir), then, for TCP, the congestion control of both ends as far
// as known (on the server only its own: the client's comes after). The
// client's --get-server-output text follows the first direction.
func (s *session) verboseGroupEnd(sender bool) {
	if s.verbose && sender {
		s.cpuLine(true)
		if s.params.Bidir {
			s.cpuLine(false)
		}
	}
	if s.verbose && !s.params.UDP {
		snd, rcv := s.congestion, ""
		if s.peer != nil {
			rcv = s.peer.CongestionUsed
		}
		if !sender {
			snd, rcv = rcv, snd
		}
		if snd != "" {
			s.out.printf("snd_tcp_congestion %s\n", snd)
		}
		if rcv != "" {
			s.out.printf("rcv_tcp_congestion %s\n", rcv)
		}
	}
	if f := s.serverOutput; f != nil {
		s.serverOutput = nil
		f()
	}
}

// cpuLine is report_cpu, with the utilisation reported as zero (as in the
// JSON); local names this side's role, sending or not.
func (s *session) cpuLine(localSends bool) {
	local, remote := reportReceiver, reportSender
	if localSends {
		local, remote = reportSender, reportReceiver
	}
	s.out.printf("CPU Utilization: local/%s %.1f%% (%.1f%%u/%.1f%%s), remote/%s %.1f%% (%.1f%%u/%.1f%%s)\n",
		local, 0.0, 0.0, 0.0, remote, 0.0, 0.0, 0.0)
}

// notAvailable is the server's -V line for a summary half it cannot know
// (report_sender_not_available_format and the others): id is a stream's
// socket number or "SUM", side "sender" or "receiver".
func (s *session) notAvailable(id any, side string) {
	if s.verbose {
		s.out.printf("[%3v] (%s statistics not available)\n", id, side)
	}
}
