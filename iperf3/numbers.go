package iperf3

import (
	"encoding/json"
	"fmt"
	"math"
)

// parseCount reads a JSON number meant as a non-negative integer. iperf3 3.12's
// cJSON prints integer-valued numbers as unsigned 64-bit, so its -1 ("not
// available") arrives as 18446744073709551615; any value >= 2^63 or < 0 is
// reported as not available (avail=false) rather than as an error. Fractions
// truncate, as cJSON's valueint does. err is set only for text that is not a
// number at all.
func parseCount(n json.Number) (v int64, avail bool, err error) {
	if i, ierr := n.Int64(); ierr == nil {
		if i < 0 {
			return 0, false, nil
		}
		return i, true, nil
	}
	f, ferr := n.Float64()
	if ferr != nil && !math.IsInf(f, 0) {
		return 0, false, fmt.Errorf("number %q: %w", string(n), ferr)
	}
	if math.IsNaN(f) || f < 0 || f >= math.Exp2(63) {
		return 0, false, nil
	}
	return int64(f), true, nil
}

// parseFloat reads a JSON number as float64; out-of-range values are errors
// because no iperf3 float field legitimately overflows.
func parseFloat(n json.Number) (float64, error) {
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("number %q is not a finite float", string(n))
	}
	return f, nil
}

// rawNumber decodes one JSON value that must be a number.
func rawNumber(raw json.RawMessage) (json.Number, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("not a number: %w", err)
	}
	if n == "" {
		return "", fmt.Errorf("not a number: %s", truncate(raw, 32))
	}
	return n, nil
}

// truncate keeps error messages about hostile input short.
func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
