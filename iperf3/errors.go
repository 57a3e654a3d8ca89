package iperf3

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// Code is an iperf3 error number (i_errno in src/iperf_api.h). It is what a
// SERVER_ERROR message carries on the wire, so the numbers must not change.
type Code int

// The iperf3 error numbers this implementation produces or understands.
// Names follow iperf3's IE* constants.
const (
	CodeDuration       Code = 5   // IEDURATION
	CodeNumStreams     Code = 6   // IENUMSTREAMS
	CodeBlockSize      Code = 7   // IEBLOCKSIZE
	CodeInterval       Code = 9   // IEINTERVAL
	CodeOmit           Code = 12  // IEOMIT
	CodeUnimplemented  Code = 13  // IEUNIMP
	CodeBufSize        Code = 8   // IEBUFSIZE
	CodeMSS            Code = 10  // IEMSS
	CodeFile           Code = 14  // IEFILE
	CodeBurst          Code = 15  // IEBURST
	CodeEndConditions  Code = 16  // IEENDCONDITIONS
	CodeUDPBlockSize   Code = 20  // IEUDPBLOCKSIZE
	CodeBadTOS         Code = 21  // IEBADTOS
	CodeBadFormat      Code = 24  // IEBADFORMAT
	CodeReverseBidir   Code = 25  // IEREVERSEBIDIR
	CodeTotalRate      Code = 27  // IETOTALRATE
	CodeTotalInterval  Code = 28  // IETOTALINTERVAL
	CodeIdleTimeout    Code = 30  // IEIDLETIMEOUT
	CodeRcvTimeout     Code = 31  // IERCVTIMEOUT
	CodeRcvTimeoutMode Code = 32  // IERVRSONLYRCVTIMEOUT
	CodeSndTimeout     Code = 33  // IESNDTIMEOUT
	CodeConnect        Code = 103 // IECONNECT
	CodeAccept         Code = 104 // IEACCEPT
	CodeSendCookie     Code = 105 // IESENDCOOKIE
	CodeRecvCookie     Code = 106 // IERECVCOOKIE
	CodeCtrlWrite      Code = 107 // IECTRLWRITE
	CodeCtrlRead       Code = 108 // IECTRLREAD
	CodeCtrlClose      Code = 109 // IECTRLCLOSE
	CodeMessage        Code = 110 // IEMESSAGE
	CodeSendMessage    Code = 111 // IESENDMESSAGE
	CodeRecvMessage    Code = 112 // IERECVMESSAGE
	CodeSendParams     Code = 113 // IESENDPARAMS
	CodeRecvParams     Code = 114 // IERECVPARAMS
	CodePackageResults Code = 115 // IEPACKAGERESULTS
	CodeSendResults    Code = 116 // IESENDRESULTS
	CodeRecvResults    Code = 117 // IERECVRESULTS
	CodeClientTerm     Code = 119 // IECLIENTTERM
	CodeServerTerm     Code = 120 // IESERVERTERM
	CodeAccessDenied   Code = 121 // IEACCESSDENIED
	CodeSetBuf         Code = 124 // IESETBUF
	CodeSetTOS         Code = 125 // IESETTOS
	CodeSetDontFrag    Code = 145 // IESETDONTFRAGMENT
	CodeProtocol       Code = 131 // IEPROTOCOL
	CodeSetCongestion  Code = 134 // IESETCONGESTION
	CodeNoMsg          Code = 144 // IENOMSG
	CodeStreamConnect  Code = 203 // IESTREAMCONNECT
	CodeStreamWrite    Code = 205 // IESTREAMWRITE
	CodeStreamRead     Code = 206 // IESTREAMREAD
	CodeStreamID       Code = 208 // IESTREAMID
)

// codeText holds iperf_strerror's wording (src/iperf_error.c) so errors read the
// same as the real tool's "iperf3: error - ..." lines.
var codeText = map[Code]string{
	CodeDuration:       fmt.Sprintf("test duration valid values are 0 to %d seconds", maxDuration),
	CodeNumStreams:     fmt.Sprintf("number of parallel streams too large (maximum = %d)", maxStreams),
	CodeBlockSize:      fmt.Sprintf("block size too large (maximum = %d bytes)", maxBlockSize),
	CodeInterval:       "invalid report interval (min = 0.1, max = 60 seconds)",
	CodeBadFormat:      "bad format specifier (valid formats are in the set [kmgtKMGT])",
	CodeOmit:           fmt.Sprintf("bogus value for --omit (maximum = %d seconds)", maxOmit),
	CodeUnimplemented:  "not implemented yet",
	CodeBufSize:        fmt.Sprintf("socket buffer size too large (maximum = %d bytes)", maxTCPBuffer),
	CodeMSS:            fmt.Sprintf("TCP MSS too large (maximum = %d bytes)", maxMSS),
	CodeSetBuf:         "unable to set socket buffer size",
	CodeSetTOS:         "unable to set IP TOS",
	CodeSetDontFrag:    "unable to set IP Do-Not-Fragment flag",
	CodeBadTOS:         "bad TOS value (must be between 0 and 255 inclusive)",
	CodeSetCongestion:  "unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported on this host",
	CodeFile:           "unable to open -F file",
	CodeBurst:          fmt.Sprintf("invalid burst count (maximum = %d)", maxBurst),
	CodeEndConditions:  "only one test end condition (-t, -n, -k) may be specified",
	CodeUDPBlockSize:   fmt.Sprintf("block size invalid (minimum = %d bytes, maximum = %d bytes)", minUDPBlockSize, maxUDPBlockSize),
	CodeReverseBidir:   "cannot be both reverse and bidirectional",
	CodeTotalRate:      "total required bandwidth is larger than server limit",
	CodeTotalInterval:  "invalid time interval for calculating average data rate",
	CodeRcvTimeout:     "receive timeout value is incorrect or not in range",
	CodeRcvTimeoutMode: "client receive timeout is valid only in receiving mode",
	CodeSndTimeout:     "send timeout value is incorrect or not in range",
	CodeIdleTimeout:    "idle timeout parameter is not positive or larger than allowed limit",
	CodeConnect:        "unable to connect to server",
	CodeAccept:         "unable to accept connection from client",
	CodeSendCookie:     "unable to send cookie to server",
	CodeRecvCookie:     "unable to receive cookie at server",
	CodeCtrlWrite:      "unable to write to the control socket",
	CodeCtrlRead:       "unable to read from the control socket",
	CodeCtrlClose:      "control socket has closed unexpectedly",
	CodeMessage:        "received an unknown control message",
	CodeSendMessage:    "unable to send control message",
	CodeRecvMessage:    "unable to receive control message",
	CodeSendParams:     "unable to send parameters to server",
	CodeRecvParams:     "unable to receive parameters from client",
	CodePackageResults: "unable to package results",
	CodeSendResults:    "unable to send results",
	CodeRecvResults:    "unable to receive results",
	CodeClientTerm:     "the client has terminated",
	CodeServerTerm:     "the server has terminated",
	CodeAccessDenied:   "the server is busy running a test. try again later",
	CodeProtocol:       "protocol does not exist",
	CodeNoMsg:          "idle timeout for receiving data",
	CodeStreamConnect:  "unable to connect stream",
	CodeStreamWrite:    "unable to write to stream socket",
	CodeStreamRead:     "unable to read from stream socket",
	CodeStreamID:       "stream has an invalid id",
}

// Error is a failed test. Code is the iperf3 error number; Remote is set when
// the peer reported it in a SERVER_ERROR message, together with the peer's
// system errno. Err is the local cause, if any.
type Error struct {
	Code   Code
	Remote bool
	Errno  int32
	Err    error
}

// Error reads like iperf3's message, with the cause appended.
func (e *Error) Error() string {
	if e.Interrupted() {
		// 3.12's iperf_got_sigend: iperf_errexit(test, "interrupt - %s", ...).
		return "interrupt - " + codeText[CodeClientTerm]
	}
	msg, ok := codeText[e.Code]
	if !ok {
		msg = fmt.Sprintf("iperf3 error %d", int(e.Code))
	}
	if e.Remote && e.Errno != 0 {
		msg += fmt.Sprintf(" (remote errno %d)", e.Errno)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Interrupted reports a client stopped by its user (a cancelled context,
// iperf3's SIGINT or SIGTERM) rather than by a failure.
func (e *Error) Interrupted() bool {
	return e.Code == CodeClientTerm && !e.Remote && errors.Is(e.Err, context.Canceled)
}

// Unwrap gives the local cause.
func (e *Error) Unwrap() error { return e.Err }

// fail builds an *Error with an optional cause.
func fail(code Code, cause error) *Error { return &Error{Code: code, Err: cause} }

// streamError is a data stream's read or write failure in 3.12's words:
// an errno cause as C's strerror gives it ("Message too long").
func streamError(code Code, err error) *Error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		err = unwrapPathError(errno)
	}
	return fail(code, err)
}

// CodeOf reports the iperf3 error number carried by err, or 0.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// Causes that have no iperf3 number of their own.
var (
	errJSONTooLong  = fmt.Errorf("JSON message longer than %d bytes", MaxJSONLength)
	errJSONEmpty    = errors.New("empty JSON message")
	errIdle         = errors.New("no progress on the control or data connections")
	errGraceExpired = errors.New("test outlived its duration plus omit plus the 40 s grace period")
)
