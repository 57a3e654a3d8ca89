// Package iperf3 is an iperf3 3.12 wire-compatible client and server on any socket.
// Outside the bus: an application on sockets, the same on the board's stack, the PC's or the host's.
//
// It is an iperf3 3.12 wire-compatible client and server (TCP
// and UDP, -R and --bidir):
// the real iperf3 binary can be either end. It follows
// docs/reference/iperf3-protocol.md (state bytes, 37-byte cookie,
// length-prefixed JSON, parameter and results JSON, stream ids 1, 3, 4, ...,
// the text layout and units, the --json schema) and was checked against
// iperf3 3.12 on loopback; testdata/ holds real exchanges recorded through a
// proxy (re-record with IPERF3_RECORD=1 go test -run TestRecord).
//
// It is transport-agnostic: the client dials through a socket.DialFunc, the server
// serves a net.Listener, so it runs over gVisor gonet connections as well as
// host TCP. Every protocol time (-t, -i, -O, JSON times, the server's 40 s
// grace, idle timeouts) is measured on a tcpip.Clock, so under an emulator's
// virtual clock the results are in virtual seconds. TCP statistics (the Retr
// and Cwnd columns) come from an optional socket.TCPInfoFunc; socket.HostTCPInfo reads
// host sockets.
//
// Entry points: Run (client), Serve / ServeOne (server), ParseArgs for
// iperf3's own flags, Main for a whole command line.
//
// Choices this package makes where iperf3 3.12 or the reference leave room
// (assumptions, each also noted where it is implemented):
//
//   - TCP and UDP. A client asking for SCTP gets SERVER_ERROR IEPROTOCOL.
//   - -M, -w, -N and --snd-timeout reach a TCP data socket before its
//     connect through the dial's context (WithDialOptions); the server gives
//     its listener the test's MSS (3.12 re-creates it). -S is set once a
//     stream is made: after the TCP cookie, after the UDP connect exchange
//     (the server's one UDP socket once every stream has had its reply).
//   - JSON messages longer than MaxJSONLength (1 MiB) or of length 0 are
//     refused before any allocation (3.12 overflowed on 0xffffffff,
//     CVE-2023-38403). The server answers a bad length, bad JSON, out-of-range
//     parameters or an unknown state byte with SERVER_ERROR and its iperf3
//     error number (errno 0), then closes; 3.12 mostly just closed.
//   - Parameter limits are iperf3's client-side ones: -P 1-128, -l 1 B-1 MiB,
//     -t 0-86400 s, -O 0-600 s.
//   - Idle timeout: DefaultIdleTimeout = 120 s (iperf3's --rcv-timeout
//     default), applied in every phase of both roles to "no byte read on the
//     control connection and none moved on any data stream" (once the test
//     has ended, on the control connection alone); detected within a quarter
//     of it. 3.12 applies it only to a receiving side mid-test, blocks forever
//     on a client that never sends its cookie, and drains forever a server
//     that keeps streaming after TEST_END without sending the results.
//   - The server admits data streams in accept order (iperf3's order) but
//     reads their cookies concurrently, so a silent connection cannot block
//     the control connection; at most -P + 16 such connections wait at once,
//     more are refused with ACCESS_DENIED.
//   - A data-stream error waits up to 1 s (test clock) for the control
//     connection to explain it (CLIENT_TERMINATE, SERVER_TERMINATE,
//     SERVER_ERROR), as iperf3's loop reads the control socket first.
//   - Writes are blocking, so a sender counts each block when it hands it
//     over and takes back what a failed write did not pass; a block the end
//     of a reverse test interrupts may be counted whole (at most one block
//     per stream over what the kernel accepted), which keeps "received <=
//     sent". A sending client lets each stream finish its current block
//     before it takes the final count and sends TEST_END.
//   - Like iperf3 the server stops counting at TEST_END, so after a short -n
//     test it may report less than was sent; -n counts whole blocks
//     (ceil(n/len) of them) across all streams.
//   - "[  5]" socket numbers are made up to look like 3.12's file
//     descriptors: client 5, 7, 9, ...; server 5, 8, 10, ...
//   - CPU utilisation is reported as 0 (host CPU load means nothing for an
//     emulated link in virtual time); sndbuf_actual and rcvbuf_actual are the
//     first data socket's (3.12's server reads its listener's, which has the
//     same options); tcp_mss_default is socket.TCPInfo.Snd_mss of
//     the control connection, 0 without a socket.TCPInfoFunc or on the server.
//   - "not available" goes on the wire as a plain -1 (3.12 sends
//     18446744073709551615; both read back as -1). Received counts >= 2^63
//     or < 0 read as not available: -1 retransmits, 0 for other counts.
//   - --cport reaches the socket.DialFunc through the context (socket.LocalPort); stream i
//     binds cport+i as 3.12 does; the control connection uses any port.
//   - system_info is "Go <version> <os>/<arch> (mesonemu iperf3)" unless set.
//   - Payload: one random buffer per test (math/rand/v2 PCG from Seed),
//     shared by the sending streams; receivers read at most 128 KiB at a time.
//     -F opens the file on every data stream, as 3.12 does (payload.go).
//   - --timestamps stamps each print with a wall-clock instant taken once
//     when the run starts plus the test clock's time since (LineStamps), so
//     under the engine the stamps follow virtual time from today's date.
//   - The server treats a client closing its control connection after
//     DISPLAY_RESULTS without IPERF_DONE as a complete test.
package iperf3
