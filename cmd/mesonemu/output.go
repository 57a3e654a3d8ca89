package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"

	"mesonemu/capture"
	"mesonemu/sim"
)

// bootDescribed boots the board (its register accesses traced to stderr with
// trace) and describes what the guest chose.
func bootDescribed(so sim.Options, trace bool, stderr io.Writer) (*sim.Sim, sim.Description, error) {
	if trace {
		so.Trace = stderr
	}
	s, err := sim.New(so)
	if err != nil {
		return nil, sim.Description{}, err
	}
	d, err := s.Describe()
	return s, d, err
}

// writeJSON prints v indented. Every key is snake_case: an object key in Go's
// CamelCase (a type without JSON tags) gets its snake_case twin beside it,
// and the CamelCase one stays for the scripts that read it today.
func writeJSON(w io.Writer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if !camelKey.Match(raw) {
		return enc.Encode(v) // the fields in their order
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return err
	}
	return enc.Encode(snakeKeys(tree))
}

// camelKey finds an object key with a capital letter.
var camelKey = regexp.MustCompile(`"[A-Za-z0-9_]*[A-Z][A-Za-z0-9_]*":`)

// snakeKeys adds snake_case twins of CamelCase keys, all the way down.
func snakeKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = snakeKeys(val)
		}
		for k, val := range x {
			if s := snakeCase(k); s != k {
				if _, taken := x[s]; !taken {
					out[s] = snakeKeys(val)
				}
			}
		}
		return out
	case []any:
		for i := range x {
			x[i] = snakeKeys(x[i])
		}
	}
	return v
}

// snakeCase: "ClockPeriodPs" -> "clock_period_ps", "SetupPs" -> "setup_ps",
// "RGMIITXDelay" -> "rgmiitx_delay".
func snakeCase(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// openCapture starts the --pcap file of an in-process run (timestamps in
// virtual time since power-on).
func (f *outputFlags) openCapture(boardName string) (*capture.Capture, error) {
	if f.pcap == "" {
		return nil, nil
	}
	c, err := capture.Create(f.pcap, boardName+" rgmii", "mesonemu "+boardName+" RGMII wire, virtual time", 0)
	if err != nil {
		return nil, usagef("--pcap: %v", err)
	}
	return c, nil
}

// closeCapture finishes the file after the run (the machine has stopped) and
// reports it; runErr, the run's own error, wins.
func (f *outputFlags) closeCapture(c *capture.Capture, stderr io.Writer, runErr error) error {
	if c == nil {
		return runErr
	}
	err := c.Close()
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "pcap: %d frames written to %s, %d with a bad FCS, %d with a lost SFD\n", c.Frames, f.pcap, c.BadFCS, c.SFDErrors)
	return nil
}
