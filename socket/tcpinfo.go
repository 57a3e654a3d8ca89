package socket

// TCPInfo is the part of Linux's struct tcp_info a sender reports, with the
// field names and units of golang.org/x/sys/unix.TCPInfo: Snd_cwnd is in
// segments of Snd_mss bytes, times in microseconds.
type TCPInfo struct {
	Total_retrans uint32 // tcpi_total_retrans
	Snd_cwnd      uint32 // tcpi_snd_cwnd, in segments
	Snd_mss       uint32 // tcpi_snd_mss
	Snd_wnd       uint32 // tcpi_snd_wnd, bytes
	Rtt           uint32 // tcpi_rtt, us
	Rttvar        uint32 // tcpi_rttvar, us
	Pmtu          uint32 // tcpi_pmtu
}

// CwndBytes is the congestion window in bytes, as iperf3's tcp_info.c
// computes it.
func (i TCPInfo) CwndBytes() uint64 { return uint64(i.Snd_cwnd) * uint64(i.Snd_mss) }
