package iperf3

import (
	"encoding/json"
	"fmt"
)

// PeerResults is the results JSON the two sides exchange after a test
// (send_results / get_results in src/iperf_api.c). Counts the sender marked
// as not available (-1, or 3.12's 18446744073709551615) read as -1 for
// Retransmits and 0 for the other counters.
type PeerResults struct {
	CPUUtilTotal, CPUUtilUser, CPUUtilSystem float64
	// SenderHasRetransmits is 1 for a TCP sender that reports retransmits,
	// 0 for a sender without TCP statistics, -1 for a pure receiver.
	SenderHasRetransmits int
	CongestionUsed       string
	ServerOutputText     string
	ServerOutputJSON     json.RawMessage
	Streams              []PeerStream
}

// PeerStream is one stream's entry in PeerResults.
type PeerStream struct {
	ID          int
	Bytes       uint64
	Retransmits int64 // -1: not available
	Jitter      float64
	Errors      int64
	Packets     int64
	// StartTime and EndTime are seconds since the stream's start; peers older
	// than 3.2 omit them (HasTimes false).
	StartTime, EndTime float64
	HasTimes           bool
}

type wireResults struct {
	CPUUtilTotal         float64         `json:"cpu_util_total"`
	CPUUtilUser          float64         `json:"cpu_util_user"`
	CPUUtilSystem        float64         `json:"cpu_util_system"`
	SenderHasRetransmits int             `json:"sender_has_retransmits"`
	CongestionUsed       string          `json:"congestion_used,omitempty"`
	ServerOutputJSON     json.RawMessage `json:"server_output_json,omitempty"`
	ServerOutputText     string          `json:"server_output_text,omitempty"`
	Streams              []wireStream    `json:"streams"`
}

type wireStream struct {
	ID          int     `json:"id"`
	Bytes       uint64  `json:"bytes"`
	Retransmits int64   `json:"retransmits"`
	Jitter      float64 `json:"jitter"`
	Errors      int64   `json:"errors"`
	Packets     int64   `json:"packets"`
	StartTime   float64 `json:"start_time"`
	EndTime     float64 `json:"end_time"`
}

// MarshalJSON writes the 3.12 key order. "Not available" goes out as a plain
// -1, which every iperf3 version reads back as -1.
func (r PeerResults) MarshalJSON() ([]byte, error) {
	w := wireResults{
		CPUUtilTotal: r.CPUUtilTotal, CPUUtilUser: r.CPUUtilUser, CPUUtilSystem: r.CPUUtilSystem,
		SenderHasRetransmits: r.SenderHasRetransmits, CongestionUsed: r.CongestionUsed,
		ServerOutputJSON: r.ServerOutputJSON, ServerOutputText: r.ServerOutputText,
		Streams: make([]wireStream, 0, len(r.Streams)),
	}
	for _, s := range r.Streams {
		w.Streams = append(w.Streams, wireStream{
			ID: s.ID, Bytes: s.Bytes, Retransmits: s.Retransmits, Jitter: s.Jitter,
			Errors: s.Errors, Packets: s.Packets, StartTime: s.StartTime, EndTime: s.EndTime,
		})
	}
	return json.Marshal(w)
}

// parseResults decodes a peer's results JSON, insisting on the keys iperf3's
// get_results insists on. Errors are CodeRecvResults.
func parseResults(body []byte) (PeerResults, error) {
	var r PeerResults
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return r, fail(CodeRecvResults, fmt.Errorf("results JSON is not an object: %s", truncate(body, 32)))
	}
	floats := []struct {
		key string
		dst *float64
	}{
		{"cpu_util_total", &r.CPUUtilTotal},
		{"cpu_util_user", &r.CPUUtilUser},
		{"cpu_util_system", &r.CPUUtilSystem},
	}
	for _, f := range floats {
		if err := requiredFloat(obj, f.key, f.dst); err != nil {
			return r, fail(CodeRecvResults, err)
		}
	}
	raw, ok := obj["sender_has_retransmits"]
	if !ok {
		return r, fail(CodeRecvResults, fmt.Errorf("results lack %q", "sender_has_retransmits"))
	}
	n, err := rawNumber(raw)
	if err != nil {
		return r, fail(CodeRecvResults, fmt.Errorf("sender_has_retransmits: %w", err))
	}
	v, avail, err := parseCount(n)
	switch {
	case err != nil:
		return r, fail(CodeRecvResults, fmt.Errorf("sender_has_retransmits: %w", err))
	case !avail:
		r.SenderHasRetransmits = -1
	case v == 1:
		r.SenderHasRetransmits = 1
	}
	if raw, ok := obj["congestion_used"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil && len(s) <= 64 {
			r.CongestionUsed = s
		}
	}
	if raw, ok := obj["server_output_text"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			r.ServerOutputText = s
		}
	}
	if raw, ok := obj["server_output_json"]; ok && len(raw) > 0 && raw[0] == '{' {
		r.ServerOutputJSON = raw
	}
	raw, ok = obj["streams"]
	if !ok {
		return r, fail(CodeRecvResults, fmt.Errorf("results lack %q", "streams"))
	}
	var streams []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &streams); err != nil {
		return r, fail(CodeRecvResults, fmt.Errorf("results streams: %w", err))
	}
	if len(streams) > maxStreams {
		return r, fail(CodeRecvResults, fmt.Errorf("results list %d streams, at most %d exist", len(streams), maxStreams))
	}
	for i, s := range streams {
		ps, err := parseResultStream(s)
		if err != nil {
			return r, fail(CodeRecvResults, fmt.Errorf("results stream %d: %w", i, err))
		}
		r.Streams = append(r.Streams, ps)
	}
	return r, nil
}

func parseResultStream(s map[string]json.RawMessage) (PeerStream, error) {
	ps := PeerStream{Retransmits: -1}
	if s == nil {
		return ps, fmt.Errorf("not an object")
	}
	counts := []struct {
		key string
		set func(v int64, avail bool)
	}{
		{"id", func(v int64, avail bool) {
			if avail && v <= maxStreams+1 {
				ps.ID = int(v)
			} else {
				ps.ID = -1
			}
		}},
		{"bytes", func(v int64, avail bool) {
			if avail {
				ps.Bytes = uint64(v)
			}
		}},
		{"retransmits", func(v int64, avail bool) {
			if avail {
				ps.Retransmits = v
			}
		}},
		{"errors", func(v int64, avail bool) {
			if avail {
				ps.Errors = v
			}
		}},
		{"packets", func(v int64, avail bool) {
			if avail {
				ps.Packets = v
			}
		}},
	}
	for _, c := range counts {
		raw, ok := s[c.key]
		if !ok {
			return ps, fmt.Errorf("lacks %q", c.key)
		}
		n, err := rawNumber(raw)
		if err != nil {
			return ps, fmt.Errorf("%s: %w", c.key, err)
		}
		v, avail, err := parseCount(n)
		if err != nil {
			return ps, fmt.Errorf("%s: %w", c.key, err)
		}
		c.set(v, avail)
	}
	if err := requiredFloat(s, "jitter", &ps.Jitter); err != nil {
		return ps, err
	}
	_, hasStart := s["start_time"]
	_, hasEnd := s["end_time"]
	if hasStart && hasEnd {
		if err := requiredFloat(s, "start_time", &ps.StartTime); err != nil {
			return ps, err
		}
		if err := requiredFloat(s, "end_time", &ps.EndTime); err != nil {
			return ps, err
		}
		ps.HasTimes = ps.EndTime >= ps.StartTime && ps.StartTime >= 0 && ps.EndTime <= 2*maxDuration
	}
	return ps, nil
}

func requiredFloat(obj map[string]json.RawMessage, key string, dst *float64) error {
	raw, ok := obj[key]
	if !ok {
		return fmt.Errorf("lacks %q", key)
	}
	n, err := rawNumber(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	f, err := parseFloat(n)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	*dst = f
	return nil
}
