package iperf3

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
)

// Control-connection state codes: one signed byte each (src/iperf_api.h).
const (
	stateTestStart       int8 = 1
	stateTestRunning     int8 = 2
	stateTestEnd         int8 = 4
	stateParamExchange   int8 = 9
	stateCreateStreams   int8 = 10
	stateServerTerminate int8 = 11
	stateClientTerminate int8 = 12
	stateExchangeResults int8 = 13
	stateDisplayResults  int8 = 14
	stateIperfDone       int8 = 16
	stateAccessDenied    int8 = -1
	stateServerError     int8 = -2
)

// Protocol limits. The first four are iperf3's own (src/iperf.h); a peer that
// asks for more gets a SERVER_ERROR, as iperf3's client-side checks would have
// refused the same values.
const (
	DefaultPort      = 5201
	DefaultBlockSize = 128 * 1024
	maxStreams       = 128
	maxBlockSize     = 1024 * 1024
	maxDuration      = 86400
	maxIdleTimeout   = 86400 // MAX_TIME, --idle-timeout's bound too
	maxOmit          = 600

	// UDP (src/iperf.h): a datagram holds at least the 16-byte header with
	// a 64-bit counter and fits one IPv4 UDP datagram.
	minUDPBlockSize    = 4 + 4 + 8
	maxUDPBlockSize    = 65535 - 8 - 20
	defaultUDPBlkSize  = 1460             // DEFAULT_UDP_BLKSIZE, without a control MSS
	defaultUDPRate     = 1024 * 1024      // UDP_RATE, bit/s
	maxBurst           = 1000             // MAX_BURST
	defaultPacingTimer = 1000             // µs
	maxPacingTimer     = 60 * 1000 * 1000 // an arbitrary bound on a peer's value: one minute

	// CookieSize is 36 characters and a terminating NUL.
	CookieSize = 37

	// MaxJSONLength bounds the 4-byte length prefix of a JSON message before
	// anything is allocated. iperf3 3.12 trusted it (calloc(len+1) wrapped
	// to 0 for 0xffffffff: CVE-2023-38403). Parameters are ~150 bytes and
	// results ~150 bytes per stream; 1 MiB leaves room for 128 streams and for
	// --get-server-output of tests with up to ~1500 interval reports.
	MaxJSONLength = 1 << 20

	// clientVersion is what the parameter JSON announces: the wire dialect.
	clientVersion = "3.12"
	// versionString is the JSON output's "version".
	versionString = "iperf 3.12"
)

const cookieAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// newCookie draws 36 characters from iperf3's alphabet (make_cookie in
// src/iperf_util.c) and terminates them with a NUL.
func newCookie(r *rand.Rand) []byte {
	c := make([]byte, CookieSize)
	for i := 0; i < CookieSize-1; i++ {
		c[i] = cookieAlphabet[r.IntN(len(cookieAlphabet))]
	}
	return c
}

// cookieString is the printable part of a cookie (up to the NUL), as iperf3
// reports it in its JSON "cookie".
func cookieString(c []byte) string {
	if i := bytes.IndexByte(c, 0); i >= 0 {
		c = c[:i]
	}
	return string(c)
}

func writeState(w io.Writer, s int8) error {
	_, err := w.Write([]byte{byte(s)})
	return err
}

func readState(r io.Reader) (int8, error) {
	var b [1]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	return int8(b[0]), nil
}

// writeJSON sends v as a 4-byte big-endian length and the unformatted JSON
// text, in one write so the message leaves in one segment like iperf3's.
func writeJSON(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	return writeJSONBytes(w, body)
}

func writeJSONBytes(w io.Writer, body []byte) error {
	if len(body) > MaxJSONLength {
		return errJSONTooLong
	}
	msg := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(msg, uint32(len(body)))
	copy(msg[4:], body)
	_, err := w.Write(msg)
	return err
}

// readJSONBody reads one length-prefixed JSON message. The length is checked
// against MaxJSONLength before any allocation.
func readJSONBody(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("read JSON length: %w", err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 {
		return nil, errJSONEmpty
	}
	if n > MaxJSONLength {
		return nil, fmt.Errorf("length %d: %w", n, errJSONTooLong)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("read %d-byte JSON body: %w", n, err)
	}
	return body, nil
}

// writeServerError sends SERVER_ERROR followed by iperf3's error number and
// the system errno, both 4-byte big-endian.
func writeServerError(w io.Writer, code Code, errno int32) error {
	var msg [9]byte
	state := stateServerError
	msg[0] = byte(state)
	binary.BigEndian.PutUint32(msg[1:], uint32(int32(code)))
	binary.BigEndian.PutUint32(msg[5:], uint32(errno))
	_, err := w.Write(msg[:])
	return err
}

// readServerErrorPayload reads the two integers that follow SERVER_ERROR.
func readServerErrorPayload(r io.Reader) (Code, int32, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, 0, err
	}
	return Code(int32(binary.BigEndian.Uint32(b[:4]))), int32(binary.BigEndian.Uint32(b[4:])), nil
}
