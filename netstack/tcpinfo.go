package netstack

import (
	"net"

	"mesonemu/socket"
)

// MSS of a 1500-byte MTU with TCP timestamps, what iperf3 multiplies the
// congestion window (in segments) by.
const mss = 1448

// TCPInfo reports a gVisor connection's sender statistics to iperf3: retransmits
// from the endpoint's own counter, cwnd and RTT from its TCP_INFO equivalent.
func TCPInfo(c net.Conn) (socket.TCPInfo, bool) {
	nc, ok := c.(*Conn)
	if !ok {
		return socket.TCPInfo{}, false
	}
	info := nc.Info()
	smss := connMSS(nc)
	if nc.userMSS > 0 {
		// -M on both ends (the server's listener has it too) clamps both
		// directions; Linux's snd_mss is that less the timestamps' 12 bytes.
		smss = min(smss, uint64(max(nc.userMSS-12, 0)))
	}
	return socket.TCPInfo{
		Total_retrans: uint32(nc.Retransmits()),
		Snd_cwnd:      info.SndCwnd,
		Snd_mss:       uint32(smss),
		Rtt:           uint32(info.RTT.Microseconds()),
		Rttvar:        uint32(info.RTTVar.Microseconds()),
		Pmtu:          1500,
	}, true
}

// Congestion names the connection's congestion control for iperf3's report.
func Congestion(cc string) socket.CongestionFunc {
	return func(net.Conn) string { return cc }
}
