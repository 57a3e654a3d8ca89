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
	// Server output the client asked for with --get-server-output.
	ServerOutputJSON json.RawMessage `json:"server_output_json,omitempty"`
	ServerOutputText string          `json:"server_output_text,omitempty"`
	Error            string          `json:"error,omitempty"`

	// Peer is what the other side reported in the results exchange (nil if
	// the test ended before it).
	Peer *PeerResults `json:"-"`
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
	TCPMSSDefault int         `json:"tcp_mss_default"`
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
	TCPMSSDefault      int         `json:"tcp_mss_default"`
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
	if s.AcceptedConnection != nil {
		return json.Marshal(serverStart{
			Connected: connected, Version: s.Version, SystemInfo: s.SystemInfo,
			SockBufsize: s.SockBufsize, SndbufActual: s.SndbufActual, RcvbufActual: s.RcvbufActual,
			Timestamp: s.Timestamp, AcceptedConnection: s.AcceptedConnection, Cookie: s.Cookie,
			TCPMSSDefault: s.TCPMSSDefault, TargetBitrate: s.TargetBitrate, TestStart: s.TestStart,
		})
	}
	return json.Marshal(clientStart{
		Connected: connected, Version: s.Version, SystemInfo: s.SystemInfo,
		Timestamp: s.Timestamp, ConnectingTo: s.ConnectingTo, Cookie: s.Cookie,
		TCPMSSDefault: s.TCPMSSDefault, TargetBitrate: s.TargetBitrate,
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
	*s = Start{
		Connected: c.Connected, Version: c.Version, SystemInfo: c.SystemInfo, Timestamp: c.Timestamp,
		ConnectingTo: c.ConnectingTo, AcceptedConnection: v.AcceptedConnection, Cookie: c.Cookie,
		TCPMSSDefault: c.TCPMSSDefault, TargetBitrate: c.TargetBitrate, SockBufsize: c.SockBufsize,
		SndbufActual: c.SndbufActual, RcvbufActual: c.RcvbufActual, TestStart: c.TestStart,
	}
	return nil
}

// Interval is one reporting interval: every stream, then their sum.
type Interval struct {
	Streams []IntervalStream `json:"streams"`
	Sum     IntervalSum      `json:"sum"`
}

// IntervalStream is one stream's share of an interval. Times are seconds
// since the stream's start (reset when the omit period ends).
type IntervalStream struct {
	Socket        int     `json:"socket"`
	Start         float64 `json:"start"`
	End           float64 `json:"end"`
	Seconds       float64 `json:"seconds"`
	Bytes         uint64  `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	*IntervalTCPInfo
	Omitted bool `json:"omitted"`
	Sender  bool `json:"sender"`
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
	Start         float64 `json:"start"`
	End           float64 `json:"end"`
	Seconds       float64 `json:"seconds"`
	Bytes         uint64  `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	*RetransmitCount
	Omitted bool `json:"omitted"`
	Sender  bool `json:"sender"`
}

// RetransmitCount is present in sums when the sender reports retransmits.
type RetransmitCount struct {
	Retransmits int64 `json:"retransmits"`
}

// End is the final summary.
type End struct {
	Streams               []EndStream     `json:"streams,omitempty"`
	SumSent               *EndSum         `json:"sum_sent,omitempty"`
	SumReceived           *EndSum         `json:"sum_received,omitempty"`
	CPUUtilizationPercent *CPUUtilization `json:"cpu_utilization_percent,omitempty"`
	SenderTCPCongestion   string          `json:"sender_tcp_congestion,omitempty"`
	ReceiverTCPCongestion string          `json:"receiver_tcp_congestion,omitempty"`
}

// EndStream is one stream's sender and receiver view.
type EndStream struct {
	Sender   EndStats `json:"sender"`
	Receiver EndStats `json:"receiver"`
}

// EndStats is a whole-test summary of one stream from one side.
type EndStats struct {
	Socket        int     `json:"socket"`
	Start         float64 `json:"start"`
	End           float64 `json:"end"`
	Seconds       float64 `json:"seconds"`
	Bytes         uint64  `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
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
	Start         float64 `json:"start"`
	End           float64 `json:"end"`
	Seconds       float64 `json:"seconds"`
	Bytes         uint64  `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	*RetransmitCount
	Sender bool `json:"sender"`
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
