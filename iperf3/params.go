package iperf3

import (
	"encoding/json"
	"fmt"
	"time"
)

// testParams are the test settings the client sends in PARAM_EXCHANGE.
type testParams struct {
	Omit            int
	Time            int
	Num             uint64
	BlockCount      uint64
	Parallel        int
	Reverse         bool
	Len             int
	GetServerOutput bool
	ClientVersion   string

	Bidir       bool   // "bidirectional": both directions at once
	UDP         bool   // "udp": datagram streams
	Bandwidth   uint64 // -b: bit/s per stream, 0 = unlimited
	Burst       int    // -b RATE/BURST: datagrams or blocks per pacing round
	PacingTimer int    // --pacing-timer, µs (default 1000)
	Counters64  bool   // --udp-counters-64bit
	Window      int    // -w: SO_SNDBUF/SO_RCVBUF of the data sockets
	MSS         int    // -M
	NoDelay     bool   // -N
	Congestion  string // -C
	TOS         int    // -S, --dscp: IP_TOS of the data sockets
	Title       string // -T (JSON "title")
	ExtraData   string // --extra-data (JSON "extra_data")
	// SndTimeout is this end's --snd-timeout; not a parameter on the wire.
	SndTimeout time.Duration
	Repeating  bool // --repeating-payload
	ZeroCopy   bool // -Z
	// DontFragment is --dont-fragment: IP_MTU_DISCOVER = IP_PMTUDISC_DO on
	// IPv4 UDP data sockets, so datagrams carry DF and a too-long one fails.
	DontFragment bool
}

// wireParams is the parameter JSON in the key order a 3.12 client uses
// (observed: {"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,
// "parallel":1,"len":131072,"pacing_timer":1000,"client_version":"3.12"}).
type wireParams struct {
	TCP             bool   `json:"tcp,omitempty"`
	UDP             bool   `json:"udp,omitempty"`
	Omit            int    `json:"omit"`
	Time            int    `json:"time"`
	Num             uint64 `json:"num"`
	BlockCount      uint64 `json:"blockcount"`
	MSS             int    `json:"MSS,omitempty"`
	NoDelay         bool   `json:"nodelay,omitempty"`
	Parallel        int    `json:"parallel"`
	Reverse         bool   `json:"reverse,omitempty"`
	Bidir           bool   `json:"bidirectional,omitempty"`
	Window          int    `json:"window,omitempty"`
	Len             int    `json:"len"`
	Bandwidth       uint64 `json:"bandwidth,omitempty"`
	PacingTimer     int    `json:"pacing_timer"`
	Burst           int    `json:"burst,omitempty"`
	TOS             int    `json:"TOS,omitempty"`
	Title           string `json:"title,omitempty"`
	ExtraData       string `json:"extra_data,omitempty"`
	Congestion      string `json:"congestion,omitempty"`
	GetServerOutput int    `json:"get_server_output,omitempty"`
	Counters64      int    `json:"udp_counters_64bit,omitempty"`
	Repeating       int    `json:"repeating_payload,omitempty"`
	ZeroCopy        int    `json:"zerocopy,omitempty"`
	DontFragment    int    `json:"dont_fragment,omitempty"`
	ClientVersion   string `json:"client_version"`
}

func (p testParams) wire() wireParams {
	w := wireParams{
		TCP: !p.UDP, UDP: p.UDP, Omit: p.Omit, Time: p.Time, Num: p.Num, BlockCount: p.BlockCount,
		Parallel: p.Parallel, Reverse: p.Reverse, Bidir: p.Bidir, Len: p.Len, Bandwidth: p.Bandwidth,
		PacingTimer: p.pacingTimer(), Burst: p.Burst, ClientVersion: clientVersion,
		Window: p.Window, MSS: p.MSS, NoDelay: p.NoDelay, Title: p.Title, ExtraData: p.ExtraData, Congestion: p.Congestion,
		TOS: p.TOS,
	}
	if p.GetServerOutput {
		w.GetServerOutput = 1
	}
	if p.Counters64 {
		w.Counters64 = 1
	}
	if p.Repeating {
		w.Repeating = 1
	}
	if p.ZeroCopy {
		w.ZeroCopy = 1
	}
	if p.DontFragment {
		w.DontFragment = 1
	}
	return w
}

// parseParams decodes and checks a client's parameter JSON. Keys are looked up
// like iperf3's get_parameters: booleans count by presence, unknown keys are
// ignored. Numbers outside their option's range are refused where 3.12
// would pass them on unchecked (a TOS that is no byte gets IEBADTOS). The
// error is an *Error whose code the server reports in SERVER_ERROR.
func parseParams(body []byte) (testParams, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return testParams{}, fail(CodeRecvParams, fmt.Errorf("parameter JSON: %w", err))
	}
	if obj == nil {
		return testParams{}, fail(CodeRecvParams, fmt.Errorf("parameter JSON is not an object: %s", truncate(body, 32)))
	}
	p := testParams{Time: 10, Parallel: 1, Len: DefaultBlockSize}
	if _, ok := obj["sctp"]; ok {
		return p, fail(CodeProtocol, fmt.Errorf("only TCP and UDP are implemented, client asked for sctp"))
	}
	_, p.UDP = obj["udp"]
	_, p.Counters64 = obj["udp_counters_64bit"]
	_, p.NoDelay = obj["nodelay"]
	_, p.Repeating = obj["repeating_payload"]
	_, p.ZeroCopy = obj["zerocopy"]
	_, p.Reverse = obj["reverse"]
	_, p.Bidir = obj["bidirectional"]
	if p.Reverse && p.Bidir {
		return p, fail(CodeReverseBidir, nil)
	}
	_, p.GetServerOutput = obj["get_server_output"]

	ints := []struct {
		key      string
		min, max int64
		code     Code
		set      func(int64)
	}{
		{"omit", 0, maxOmit, CodeOmit, func(v int64) { p.Omit = int(v) }},
		{"time", 0, maxDuration, CodeDuration, func(v int64) { p.Time = int(v) }},
		{"parallel", 1, maxStreams, CodeNumStreams, func(v int64) { p.Parallel = int(v) }},
		{"len", 1, maxBlockSize, CodeBlockSize, func(v int64) { p.Len = int(v) }},
		{"num", 0, 1<<63 - 1, CodeRecvParams, func(v int64) { p.Num = uint64(v) }},
		{"blockcount", 0, 1<<63 - 1, CodeRecvParams, func(v int64) { p.BlockCount = uint64(v) }},
		{"bandwidth", 0, 1<<63 - 1, CodeRecvParams, func(v int64) { p.Bandwidth = uint64(v) }},
		{"burst", 0, maxBurst, CodeBurst, func(v int64) { p.Burst = int(v) }},
		{"pacing_timer", 0, maxPacingTimer, CodeRecvParams, func(v int64) { p.PacingTimer = int(v) }},
		{"window", 0, maxTCPBuffer, CodeBufSize, func(v int64) { p.Window = int(v) }},
		{"MSS", 0, maxMSS, CodeMSS, func(v int64) { p.MSS = int(v) }},
		{"TOS", 0, maxTOS, CodeBadTOS, func(v int64) { p.TOS = int(v) }},
		{"dont_fragment", 0, 1<<31 - 1, CodeRecvParams, func(v int64) { p.DontFragment = v != 0 }}, // 3.12 reads valueint
	}
	for _, f := range ints {
		raw, ok := obj[f.key]
		if !ok {
			continue
		}
		n, err := rawNumber(raw)
		if err != nil {
			return p, fail(CodeRecvParams, fmt.Errorf("parameter %q: %w", f.key, err))
		}
		v, avail, err := parseCount(n)
		if err != nil || !avail || v < f.min || v > f.max {
			return p, fail(f.code, fmt.Errorf("parameter %q = %s out of range [%d, %d]", f.key, truncate([]byte(n), 24), f.min, f.max))
		}
		f.set(v)
	}
	if p.UDP && (p.Len < minUDPBlockSize || p.Len > maxUDPBlockSize) {
		return p, fail(CodeUDPBlockSize, fmt.Errorf("parameter \"len\" = %d", p.Len))
	}
	for _, f := range []struct {
		key string
		max int
		dst *string
	}{{"client_version", 64, &p.ClientVersion}, {"congestion", 64, &p.Congestion}, {"title", 1024, &p.Title}, {"extra_data", 1024, &p.ExtraData}} {
		if raw, ok := obj[f.key]; ok {
			var s string
			if err := json.Unmarshal(raw, &s); err == nil && len(s) <= f.max {
				*f.dst = s
			}
		}
	}
	return p, nil
}

// sendLimit is the number of bytes the sending side transfers before it stops
// (0 = no limit): -n, or -k blocks of len bytes, whichever is smaller.
func (p testParams) sendLimit() uint64 {
	limit := p.Num
	if p.BlockCount > 0 && p.Len > 0 {
		blocks := p.BlockCount
		if blocks > (1<<63)/uint64(p.Len) {
			blocks = (1 << 63) / uint64(p.Len)
		}
		if b := blocks * uint64(p.Len); limit == 0 || b < limit {
			limit = b
		}
	}
	return limit
}

// pacingTimer is the throttle's re-check period in µs (iperf3's default 1000).
func (p testParams) pacingTimer() int {
	if p.PacingTimer <= 0 {
		return defaultPacingTimer
	}
	return p.PacingTimer
}
