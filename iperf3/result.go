package iperf3

import (
	"bytes"
	"encoding/json"
)

// Result is one test as iperf3 3.12's --json output describes it; with JSON
// output on, it is printed as is. Optional keys are embedded pointers (nil =
// key absent), so the key order and presence follow iperf3's.
//
// Like iperf3, the server assembles "end" before the results exchange, so on
// the server End shows 0 bytes for the client's side; the client's numbers are
// in Peer.
type Result struct {
	Start     Start      `json:"start"`
	Intervals []Interval `json:"intervals"`
	End       End        `json:"end"`
	Title     string     `json:"title,omitempty"`      // -T
	ExtraData string     `json:"extra_data,omitempty"` // --extra-data
	// Server output the client asked for with --get-server-output.
	ServerOutputJSON json.RawMessage `json:"server_output_json,omitempty"`
	ServerOutputText string          `json:"server_output_text,omitempty"`
	Error            string          `json:"error,omitempty"`

	// Peer is what the other side reported in the results exchange (nil if
	// the test ended before it).
	Peer *PeerResults `json:"-"`
	// UDPDrops, on a server's UDP test, counts the datagrams its socket
	// received for no stream (a flood, early or late data, short headers).
	UDPDrops *UDPDropCounts `json:"-"`
}

// Start is the "start" object. Client and server order its keys differently;
// AcceptedConnection != nil selects the server's order.
type Start struct {
	Connected          []Connected
	Version            string
	SystemInfo         string
	Timestamp          Timestamp
	ConnectingTo       *Endpoint
	AcceptedConnection *Endpoint
	Cookie             string
	TCPMSSDefault      int
	TargetBitrate      int64
	SockBufsize        int
	SndbufActual       int
	RcvbufActual       int
	TestStart          *TestStart
	// UDP leaves out tcp_mss_default, as a 3.12 UDP test does.
	UDP bool
}

// Connected describes one data stream's addresses.
type Connected struct {
	Socket     int    `json:"socket"`
	LocalHost  string `json:"local_host"`
	LocalPort  int    `json:"local_port"`
	RemoteHost string `json:"remote_host"`
	RemotePort int    `json:"remote_port"`
}

// Timestamp is when the control connection was made, on the test's clock.
type Timestamp struct {
	Time     string `json:"time"` // RFC 1123, GMT
	TimeSecs int64  `json:"timesecs"`
}

// Endpoint is a host and port.
type Endpoint struct {
	Host string `json:"host"`
	Port int    `json:"port"`
}

// TestStart echoes the test parameters.
type TestStart struct {
	Protocol      string `json:"protocol"`
	NumStreams    int    `json:"num_streams"`
	BlkSize       int    `json:"blksize"`
	Omit          int    `json:"omit"`
	Duration      int    `json:"duration"`
	Bytes         uint64 `json:"bytes"`
	Blocks        uint64 `json:"blocks"`
	Reverse       int    `json:"reverse"`
	TOS           int    `json:"tos"`
	TargetBitrate int64  `json:"target_bitrate"`
}

type clientStart struct {
	Connected     []Connected `json:"connected"`
	Version       string      `json:"version"`
	SystemInfo    string      `json:"system_info"`
	Timestamp     Timestamp   `json:"timestamp"`
	ConnectingTo  *Endpoint   `json:"connecting_to,omitempty"`
	Cookie        string      `json:"cookie"`
	TCPMSSDefault *int        `json:"tcp_mss_default,omitempty"`
	TargetBitrate int64       `json:"target_bitrate"`
	SockBufsize   int         `json:"sock_bufsize"`
	SndbufActual  int         `json:"sndbuf_actual"`
	RcvbufActual  int         `json:"rcvbuf_actual"`
	TestStart     *TestStart  `json:"test_start,omitempty"`
}

type serverStart struct {
	Connected          []Connected `json:"connected"`
	Version            string      `json:"version"`
	SystemInfo         string      `json:"system_info"`
	SockBufsize        int         `json:"sock_bufsize"`
	SndbufActual       int         `json:"sndbuf_actual"`
	RcvbufActual       int         `json:"rcvbuf_actual"`
	Timestamp          Timestamp   `json:"timestamp"`
	AcceptedConnection *Endpoint   `json:"accepted_connection"`
	Cookie             string      `json:"cookie"`
	TCPMSSDefault      *int        `json:"tcp_mss_default,omitempty"`
	TargetBitrate      int64       `json:"target_bitrate"`
	TestStart          *TestStart  `json:"test_start,omitempty"`
}

// MarshalJSON writes the key order of the role that produced the Start.
func (s Start) MarshalJSON() ([]byte, error) {
	connected := s.Connected
	if connected == nil {
		connected = []Connected{}
	}
	if s.Timestamp.Time == "" {
		// No control connection was made: iperf3 prints only these keys.
		return json.Marshal(struct {
			Connected  []Connected `json:"connected"`
			Version    string      `json:"version"`
			SystemInfo string      `json:"system_info"`
		}{connected, s.Version, s.SystemInfo})
	}
	mss := &s.TCPMSSDefault
	if s.UDP {
		mss = nil
	}
	if s.AcceptedConnection != nil {
		return json.Marshal(serverStart{
			Connected: connected, Version: s.Version, SystemInfo: s.SystemInfo,
			SockBufsize: s.SockBufsize, SndbufActual: s.SndbufActual, RcvbufActual: s.RcvbufActual,
			Timestamp: s.Timestamp, AcceptedConnection: s.AcceptedConnection, Cookie: s.Cookie,
			TCPMSSDefault: mss, TargetBitrate: s.TargetBitrate, TestStart: s.TestStart,
		})
	}
	return json.Marshal(clientStart{
		Connected: connected, Version: s.Version, SystemInfo: s.SystemInfo,
		Timestamp: s.Timestamp, ConnectingTo: s.ConnectingTo, Cookie: s.Cookie,
		TCPMSSDefault: mss, TargetBitrate: s.TargetBitrate,
		SockBufsize: s.SockBufsize, SndbufActual: s.SndbufActual, RcvbufActual: s.RcvbufActual,
		TestStart: s.TestStart,
	})
}

// UnmarshalJSON reads either key order (only for tests and tools that parse
// saved output; key order does not matter when reading).
func (s *Start) UnmarshalJSON(b []byte) error {
	var v struct {
		clientStart
		AcceptedConnection *Endpoint `json:"accepted_connection"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c := v.clientStart
	mss := 0
	if c.TCPMSSDefault != nil {
		mss = *c.TCPMSSDefault
	}
	*s = Start{
		Connected: c.Connected, Version: c.Version, SystemInfo: c.SystemInfo, Timestamp: c.Timestamp,
		ConnectingTo: c.ConnectingTo, AcceptedConnection: v.AcceptedConnection, Cookie: c.Cookie,
		TCPMSSDefault: mss, TargetBitrate: c.TargetBitrate, SockBufsize: c.SockBufsize,
		SndbufActual: c.SndbufActual, RcvbufActual: c.RcvbufActual, TestStart: c.TestStart,
		UDP: c.TCPMSSDefault == nil && c.TestStart != nil && c.TestStart.Protocol == "UDP",
	}
	return nil
}

// Interval is one reporting interval: every stream, then their sum.
type Interval struct {
	Streams         []IntervalStream `json:"streams"`
	Sum             IntervalSum      `json:"sum"`
	SumBidirReverse *IntervalSum     `json:"sum_bidir_reverse,omitempty"` // --bidir: server -> client
}

// Span is the time and volume every interval and summary object of 3.12's
// JSON starts with (after a stream's socket).
type Span struct {
	Start         float64 `json:"start"`
	End           float64 `json:"end"`
	Seconds       float64 `json:"seconds"`
	Bytes         uint64  `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
}

// newSpan is a span of bytes from..to over seconds at bw bytes per second.
func newSpan(from, to, seconds float64, bytes uint64, bw float64) Span {
	return Span{Start: from, End: to, Seconds: seconds, Bytes: bytes, BitsPerSecond: bw * 8}
}

// IntervalStream is one stream's share of an interval. Times are seconds
// since the stream's start (reset when the omit period ends).
type IntervalStream struct {
	Socket int `json:"socket"`
	Span
	*IntervalTCPInfo
	*IntervalUDP
	Omitted bool `json:"omitted"`
	Sender  bool `json:"sender"`
}

// IntervalUDP is a UDP interval's datagram counts: a sender has only
// packets (datagrams sent); a receiver also jitter and loss.
type IntervalUDP struct {
	JitterMs    *float64 `json:"jitter_ms,omitempty"`
	LostPackets *int64   `json:"lost_packets,omitempty"`
	Packets     int64    `json:"packets"`
	LostPercent *float64 `json:"lost_percent,omitempty"`
}

// IntervalTCPInfo is present for sending streams when TCP statistics exist.
type IntervalTCPInfo struct {
	Retransmits uint64 `json:"retransmits"`
	SndCwnd     uint64 `json:"snd_cwnd"`
	SndWnd      uint64 `json:"snd_wnd"`
	RTT         uint32 `json:"rtt"`    // microseconds
	RTTVar      uint32 `json:"rttvar"` // microseconds
	PMTU        uint32 `json:"pmtu"`
}

// IntervalSum adds an interval over all streams.
type IntervalSum struct {
	Span
	*RetransmitCount
	*IntervalUDP
	Omitted bool `json:"omitted"`
	Sender  bool `json:"sender"`
}

// RetransmitCount is present in sums when the sender reports retransmits.
type RetransmitCount struct {
	Retransmits int64 `json:"retransmits"`
}

// End is the final summary.
type End struct {
	Streams     []EndStream `json:"streams,omitempty"`
	Sum         *EndSum     `json:"sum,omitempty"` // UDP only
	SumSent     *EndSum     `json:"sum_sent,omitempty"`
	SumReceived *EndSum     `json:"sum_received,omitempty"`
	// --bidir: the server -> client direction's sums.
	SumBidirReverse         *EndSum         `json:"sum_bidir_reverse,omitempty"` // UDP only
	SumSentBidirReverse     *EndSum         `json:"sum_sent_bidir_reverse,omitempty"`
	SumReceivedBidirReverse *EndSum         `json:"sum_received_bidir_reverse,omitempty"`
	CPUUtilizationPercent   *CPUUtilization `json:"cpu_utilization_percent,omitempty"`
	SenderTCPCongestion     string          `json:"sender_tcp_congestion,omitempty"`
	ReceiverTCPCongestion   string          `json:"receiver_tcp_congestion,omitempty"`
}

// EndStream is one stream's sender and receiver view; a UDP stream has one
// summary of both instead (3.12's "udp" object).
// With -F, "diskfile" follows "sender" (or "udp"), where 3.12 adds it.
type EndStream struct {
	Sender   EndStats     `json:"sender"`
	DiskFile *EndDiskFile `json:"diskfile,omitempty"`
	Receiver EndStats     `json:"receiver"`
	UDP      *EndUDP      `json:"udp,omitempty"`
}

// MarshalJSON writes only "udp" (and "diskfile") for a UDP stream.
func (e EndStream) MarshalJSON() ([]byte, error) {
	if e.UDP != nil {
		return json.Marshal(struct {
			UDP      *EndUDP      `json:"udp"`
			DiskFile *EndDiskFile `json:"diskfile,omitempty"`
		}{e.UDP, e.DiskFile})
	}
	type plain EndStream
	return json.Marshal(plain(e))
}

// EndDiskFile is -F's share of one stream: its bytes against the file's
// size, in whole percent (100 for an empty file), as 3.12 reports them.
type EndDiskFile struct {
	Sent            uint64 `json:"sent"`
	Received        uint64 `json:"received"`
	Size            int64  `json:"size"`
	PercentSent     int    `json:"percent_sent"`
	PercentReceived int    `json:"percent_received"`
	Filename        string `json:"filename"`
}

// EndUDP is a UDP stream's summary: the sender's bytes and time, the
// receiver's jitter and loss.
type EndUDP struct {
	Socket int `json:"socket"`
	Span
	JitterMs    float64 `json:"jitter_ms"`
	LostPackets int64   `json:"lost_packets"`
	Packets     int64   `json:"packets"`
	LostPercent float64 `json:"lost_percent"`
	OutOfOrder  int64   `json:"out_of_order"`
	Sender      bool    `json:"sender"`
}

// EndStats is a whole-test summary of one stream from one side.
type EndStats struct {
	Socket int `json:"socket"`
	Span
	*SenderTCPInfo
	Sender bool `json:"sender"`
}

// SenderTCPInfo is present in sender summaries when the sender reports
// retransmits. RTTs are microseconds.
type SenderTCPInfo struct {
	Retransmits int64  `json:"retransmits"`
	MaxSndCwnd  uint64 `json:"max_snd_cwnd"`
	MaxSndWnd   uint64 `json:"max_snd_wnd"`
	MaxRTT      uint32 `json:"max_rtt"`
	MinRTT      uint32 `json:"min_rtt"`
	MeanRTT     uint32 `json:"mean_rtt"`
}

// EndSum adds the summaries of all streams.
type EndSum struct {
	Span
	*RetransmitCount
	*UDPSum
	Sender bool `json:"sender"`
}

// UDPSum is what a UDP test's end sums add.
type UDPSum struct {
	JitterMs    float64 `json:"jitter_ms"`
	LostPackets int64   `json:"lost_packets"`
	Packets     int64   `json:"packets"`
	LostPercent float64 `json:"lost_percent"`
}

// CPUUtilization is reported as zero locally: host CPU load says nothing
// about an emulated link measured in virtual time.
type CPUUtilization struct {
	HostTotal    float64 `json:"host_total"`
	HostUser     float64 `json:"host_user"`
	HostSystem   float64 `json:"host_system"`
	RemoteTotal  float64 `json:"remote_total"`
	RemoteUser   float64 `json:"remote_user"`
	RemoteSystem float64 `json:"remote_system"`
}

// marshalOutput renders the document the way iperf3 -J prints it (indented
// with tabs, newline-terminated).
func (r *Result) marshalOutput() ([]byte, error) {
	if r.Intervals == nil {
		r.Intervals = []Interval{}
	}
	b, err := json.MarshalIndent(r, "", "\t")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// indentJSON pretty-prints a JSON value the way the output does.
func indentJSON(raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "\t"); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
