package netstack

import (
	"net"

	"mesonemu/netstack/iperf3"
)

// MSS of a 1500-byte MTU with TCP timestamps, what iperf3 multiplies the
// congestion window (in segments) by.
const mss = 1448

// TCPInfo reports a gVisor connection's sender statistics to iperf3: retransmits
// from the endpoint's own counter, cwnd and RTT from its TCP_INFO equivalent.
func TCPInfo(c net.Conn) (iperf3.TCPInfo, bool) {
	nc, ok := c.(*Conn)
	if !ok {
		return iperf3.TCPInfo{}, false
	}
	info := nc.Info()
	smss := connMSS(nc)
	if nc.userMSS > 0 {
		// -M on both ends (the server's listener has it too) clamps both
		// directions; Linux's snd_mss is that less the timestamps' 12 bytes.
		smss = min(smss, uint64(max(nc.userMSS-12, 0)))
	}
	return iperf3.TCPInfo{
		TotalRetransmits: nc.Retransmits(),
		SndCwndBytes:     uint64(info.SndCwnd) * smss,
		RTTMicros:        uint32(info.RTT.Microseconds()),
		RTTVarMicros:     uint32(info.RTTVar.Microseconds()),
		PMTU:             1500,
		SndMSS:           uint32(smss),
	}, true
}

// Congestion names the connection's congestion control for iperf3's report.
func Congestion(cc string) iperf3.CongestionFunc {
	return func(net.Conn) string { return cc }
}
