package iperf3

import (
	"errors"
	"math"
	"strings"
)

// maxTOS is the largest IP TOS byte -S takes.
const maxTOS = 255

// parseTOS reads -S as 3.12 does: strtol with base 0 (decimal, 0-prefixed
// octal, 0x hex), which takes the number the value starts with; its long is
// then stored in an int, so only 0..255 after that cut passes.
func parseTOS(v string) (int, error) {
	n, rest, ok := cStrtol(v)
	tos := int(int32(n)) // the C int the long lands in
	if !ok || rest == v || tos < 0 || tos > maxTOS {
		return 0, errors.New(codeText[CodeBadTOS])
	}
	return tos, nil
}

// dscpNames are parse_qos's symbolic values (src/dscp.c), TOS bytes as they
// are: the DSCP code points already shifted into the TOS byte, and the old
// RFC 1349 type-of-service bits.
var dscpNames = map[string]int{
	"af11": 0x28, "af12": 0x30, "af13": 0x38,
	"af21": 0x48, "af22": 0x50, "af23": 0x58,
	"af31": 0x68, "af32": 0x70, "af33": 0x78,
	"af41": 0x88, "af42": 0x90, "af43": 0x98,
	"cs0": 0x00, "cs1": 0x20, "cs2": 0x40, "cs3": 0x60,
	"cs4": 0x80, "cs5": 0xa0, "cs6": 0xc0, "cs7": 0xe0,
	"ef": 0xb8, "lowdelay": 0x10, "throughput": 0x08, "reliability": 0x04,
}

// parseDSCP reads --dscp as parse_qos does: a name (any case), or a whole
// strtol number 0..63 that becomes the TOS byte's upper six bits.
func parseDSCP(v string) (int, error) {
	if tos, ok := dscpNames[strings.ToLower(v)]; ok {
		return tos, nil
	}
	n, rest, ok := cStrtol(v)
	if !ok || rest != "" || n < 0 || n > 63 {
		return 0, errors.New(codeText[CodeBadTOS])
	}
	return int(n) << 2, nil
}

// cStrtol is C's strtol(s, &end, 0): leading white space, a sign, then the
// longest run of digits in the base the prefix picks, saturating at the
// long's limits. rest is what end points at (all of s when no digit was
// read, ok false).
func cStrtol(s string) (n int64, rest string, ok bool) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	switch {
	case i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16:
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	var u uint64
	over := false
	start := i
	for ; i < len(s); i++ {
		d := uint64(digitValue(s[i]))
		if d >= base {
			break
		}
		if u > (math.MaxUint64-d)/base {
			over = true
		} else {
			u = u*base + d
		}
	}
	if i == start {
		return 0, s, false
	}
	switch {
	case !neg && (over || u > math.MaxInt64):
		n = math.MaxInt64
	case neg && (over || u > 1<<63):
		n = math.MinInt64
	case neg:
		n = -int64(u)
	default:
		n = int64(u)
	}
	return n, s[i:], true
}

// digitValue is a character's value as a digit of any base up to 36 (99 for
// a non-digit).
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}
