package iperf3

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"

	"mesonemu/socket"
)

// ServerOptions configures Serve. Zero values take iperf3's defaults.
type ServerOptions struct {
	Port        int           // -p, only for the banner; default: the listener's port
	Family      Family        // -4, -6: what Main asks Env.Listen for
	OneOff      bool          // -1: return after one test
	JSON        bool          // -J: one JSON document per test
	Interval    time.Duration // -i; 0 means 1 s
	NoIntervals bool          // -i 0

	Clock tcpip.Clock // default tcpip.NewStdClock()
	// ListenUDP opens the UDP socket of a UDP test on the test's port;
	// default: the control connection's stack (UDPSockets) or the host's.
	ListenUDP func(ctx context.Context, port int) (net.PacketConn, error)
	// SockOpts applies a client's -w, -M, -N and -C to its data streams;
	// nil: they are not applied.
	SockOpts    socket.OptionsFunc
	TCPInfo     socket.TCPInfoFunc    // sender statistics (reverse tests); nil: none
	Congestion  socket.CongestionFunc // nil: congestion control not reported
	Output      io.Writer             // text or JSON output; nil: discarded
	ErrOutput   io.Writer             // "iperf3: error - ..." lines; nil: discarded
	IdleTimeout time.Duration         // default DefaultIdleTimeout
	// WaitTimeout is --idle-timeout: with no client for that long the server
	// listens afresh, or with OneOff returns nil. 0: wait for ever.
	WaitTimeout time.Duration
	// Limit is --server-bitrate-limit (ratelimit.go).
	Limit BitrateLimit
	// Verbose is -V: 3.12's extra lines (text output only).
	Verbose bool
	// SndTimeout is --snd-timeout: TCP_USER_TIMEOUT of control and data.
	SndTimeout time.Duration
	// File is -F: a receiving stream writes what it receives to it, a
	// sending one (-R) sends it, as 3.12's server does.
	File string
	// Format is -f: the unit of every bitrate printed (kmgtKMGT; 0 adaptive).
	Format byte
	// Stamps is --timestamps: the text lines' time prefix.
	Stamps     LineStamps
	Seed       uint64 // payload randomness; 0: random
	SystemInfo string // JSON system_info
	// OnTest, if set, sees every finished test: its Result (nil if no
	// client came) and its error.
	OnTest func(*Result, error)
	// Sched runs the server's activities; nil: goroutines. On mesonemu's
	// engine it is the machine's, and Serve must be called from one of its
	// tasks.
	Sched coop.Sched
}

func (o ServerOptions) withDefaults(ln net.Listener) (ServerOptions, error) {
	if o.Port == 0 {
		_, o.Port = splitAddr(ln.Addr())
	}
	var err error
	if o.Interval, err = reportInterval(o.Interval, o.NoIntervals); err != nil {
		return o, err
	}
	if o.ErrOutput == nil {
		o.ErrOutput = io.Discard
	}
	sharedDefaults(&o.Clock, &o.Output, &o.IdleTimeout, &o.Seed, &o.SystemInfo, &o.Sched)
	return o, nil
}

// Serve runs iperf3 3.12 server tests on ln, one at a time, until ctx is
// done (or after one test with OneOff, returning that test's error). A client
// arriving while a test runs gets ACCESS_DENIED. Serve closes ln on return.
func Serve(ctx context.Context, ln net.Listener, opts ServerOptions) error {
	o, err := opts.withDefaults(ln)
	if err != nil {
		_ = ln.Close()
		return err
	}
	srv := &server{
		o: o, ln: ln,
		inbox: coop.NewInbox[any](o.Sched),
		taken: o.Sched.NewWaker(),
		rng:   rand.New(rand.NewPCG(o.Seed, o.Seed^0x6970657266332e73)),
		stamp: newLineStamper(o.Stamps, o.Clock),
	}
	accepting := coop.NewGroup(o.Sched)
	accepting.Go(o.Sched, srv.acceptLoop)
	stop := context.AfterFunc(ctx, func() { srv.inbox.Post(ctxDone{}) })
	defer func() {
		stop()
		srv.quit.Store(true)
		_ = ln.Close()
		srv.taken.Wake()
		accepting.Wait()
		srv.drain()
	}()
	var banner *printer
	if !o.JSON {
		banner = &printer{w: o.Output, stamp: srv.stamp}
	}
	if o.Verbose {
		printIntro(banner, o.SystemInfo)
	}
	for n := 1; ; n++ {
		banner.printf("-----------------------------------------------------------\n")
		banner.printf("Server listening on %d (test #%d)\n", o.Port, n)
		banner.printf("-----------------------------------------------------------\n")
		res, err := srv.runTest(ctx)
		if errors.Is(err, errNoClient) {
			if o.OneOff {
				return nil
			}
			continue // 3.12 restarts its server: a new banner, a new test number
		}
		if res == nil {
			// No client came: the context ended or the listener failed.
			return err
		}
		if err != nil && !o.JSON && ctx.Err() == nil {
			fmt.Fprintf(o.ErrOutput, "%siperf3: error - %s\n", srv.stamp.now(), err) // 3.12's iperf_err stamps too
		}
		if o.OnTest != nil {
			o.OnTest(res, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if o.OneOff {
			return err
		}
	}
}

// ServeOne serves exactly one test (iperf3 -s -1) and returns its Result.
func ServeOne(ctx context.Context, ln net.Listener, opts ServerOptions) (*Result, error) {
	var res *Result
	opts.OneOff = true
	inner := opts.OnTest
	opts.OnTest = func(r *Result, err error) {
		res = r
		if inner != nil {
			inner(r, err)
		}
	}
	err := Serve(ctx, ln, opts)
	return res, err
}

// server is one Serve call. Its inbox takes the accept loop's connections and
// the running test's messages; the accept loop takes the next connection
// only once the last one was taken (taken), so a flood waits in the
// listener's backlog, not in memory.
type server struct {
	o         ServerOptions
	ln        net.Listener
	inbox     *coop.Inbox[any]
	taken     coop.Waker
	quit      atomic.Bool
	acceptErr error // the listener failed while a test ran
	rng       *rand.Rand
	waits     int // waits for a client so far (tells their timers apart)
	stamp     *lineStamper
}

// acceptLoop hands every connection to whoever serves: the next test takes
// it as its control connection, a running test as a data stream or refuses it.
func (srv *server) acceptLoop() {
	for !srv.quit.Load() {
		conn, err := srv.ln.Accept()
		if err != nil {
			srv.inbox.Post(acceptFailed{err})
			return
		}
		srv.inbox.Post(accepted{conn})
		srv.taken.Wait()
	}
}

// take is the loop's side of an accepted connection.
func (srv *server) take(m accepted) net.Conn {
	srv.taken.Wake()
	return m.conn
}

// discard drops a message nobody will handle, closing what it holds.
func discard(v any) {
	switch m := v.(type) {
	case accepted:
		_ = m.conn.Close()
	case cookieResult:
		_ = m.conn.Close()
	case testMsg:
		discard(m.v)
	}
}

// drain discards what is left once Serve returns.
func (srv *server) drain() {
	for {
		v, ok := srv.inbox.TryRecv()
		if !ok {
			return
		}
		discard(v)
	}
}

// waitControl takes the next connection as a test's control connection.
func (srv *server) waitControl(ctx context.Context) (net.Conn, error) {
	srv.waits++
	if d := srv.o.WaitTimeout; d > 0 {
		gen := srv.waits
		t := srv.o.Clock.AfterFunc(d, func() { srv.inbox.Post(waitExpired{gen}) })
		defer t.Stop()
	}
	for {
		if srv.acceptErr != nil {
			return nil, fail(CodeAccept, srv.acceptErr)
		}
		switch m := srv.inbox.Recv().(type) {
		case accepted:
			return srv.take(m), nil
		case acceptFailed:
			srv.acceptErr = m.err
		case ctxDone:
			return nil, ctx.Err()
		case waitExpired:
			if m.gen == srv.waits {
				return nil, errNoClient
			}
		default:
			discard(m) // a finished test's late message
		}
	}
}

func (srv *server) runTest(ctx context.Context) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctrl, err := srv.waitControl(ctx)
	if err != nil {
		return nil, err
	}
	t := newServerTest(srv, ctrl)
	err = t.run(ctx)
	if err != nil && t.wd.expired.Load() {
		err = fail(CodeNoMsg, errIdle) // whatever broke, it broke because the test stalled
	}
	t.cleanup()
	if t.listenerMSS {
		setListenerMSS(srv.ln, 0)
	}
	res := t.s.res
	res.UDPDrops = t.udpDrops()
	if err != nil {
		res.Error = err.Error()
	}
	if srv.o.JSON {
		if out, merr := res.marshalOutput(); merr == nil {
			_, _ = srv.o.Output.Write(out)
		}
	}
	return res, err
}

// errNoClient: no client came within --idle-timeout.
var errNoClient = errors.New("no client within the idle timeout")

// waitExpired is a wait's --idle-timeout firing; gen tells one wait from the
// next, so a late timer cannot end a later wait.
type waitExpired struct{ gen int }

// deny answers a connection that cannot join with ACCESS_DENIED and closes
// it. The write runs aside so a peer that does not read cannot stall a test.
func deny(sched coop.Sched, conn net.Conn) {
	sched.Go(func() {
		_ = writeState(conn, stateAccessDenied)
		_ = conn.Close()
	})
}

type serverPhase int

const (
	srvCookie    serverPhase = iota // waiting for the control cookie
	srvParams                       // PARAM_EXCHANGE sent
	srvStreams                      // CREATE_STREAMS sent, accepting streams
	srvRunning                      // TEST_RUNNING sent
	srvExchange                     // EXCHANGE_RESULTS sent
	srvDisplayed                    // DISPLAY_RESULTS sent, waiting for IPERF_DONE
)

type cookieResult struct {
	seq    int // accept order
	conn   net.Conn
	cookie []byte
	err    error
}

type serverTest struct {
	srv    *server
	o      ServerOptions
	s      *session
	ctrl   net.Conn
	cookie []byte
	phase  serverPhase
	rate   rateWindow // --server-bitrate-limit's recent intervals

	pending int
	// Streams join in accept order whatever order their cookies arrive
	// in: the client numbers its streams in connect order and the results
	// exchange matches them by number.
	acceptSeq int
	nextSeq   int
	arrived   map[int]cookieResult

	udp *udpListener // UDP tests only
	ctx context.Context

	listenerMSS bool // the listener has the test's -M until it ends

	testRuntime
}

// maxPendingStreams bounds, beyond the streams the test needs, connections
// whose cookie is still being read or waiting their turn, so a flood of
// silent connections cannot pile up activities.
const maxPendingStreams = 16

func newServerTest(srv *server, ctrl net.Conn) *serverTest {
	o := srv.o
	t := &serverTest{srv: srv, o: o, ctrl: ctrl, arrived: make(map[int]cookieResult)}
	t.testRuntime = newRuntime(o.Sched, o.Clock, func(v any) { srv.inbox.Post(testMsg{t, v}) }, ctrl)
	var out *printer
	if !o.JSON {
		out = &printer{w: o.Output, stamp: srv.stamp}
	}
	t.s = &session{
		role: 's', clock: o.Clock, out: out, fileName: o.File, unit: o.Format, interval: o.Interval, tcpInfo: o.TCPInfo, verbose: o.Verbose && out != nil,
		res: &Result{Start: Start{Version: versionString, SystemInfo: o.SystemInfo}, Intervals: []Interval{}},
	}
	return t
}

func (t *serverTest) cleanup() {
	if t.udp != nil {
		t.udp.close()
	}
	t.shutdown()
	t.s.closeFiles()
}

// udpDrops is what a UDP test's socket received and counted for no stream
// (nil for a TCP test).
func (t *serverTest) udpDrops() *UDPDropCounts {
	if t.udp == nil {
		return nil
	}
	return t.udp.drops.counts()
}

func (t *serverTest) run(ctx context.Context) error {
	t.ctx = ctx
	t.wd = newWatchdog(t.o.Clock, t.o.IdleTimeout, t.closeAll, t.post)
	t.reader = newCtrlReader(t.sched, t.ctrl, &t.wd.progress, t.post)
	t.reader.request(readCookie)
	return t.testRuntime.loop(t.nextMsg, t.o.Clock, t.onTimers, func(v any) (bool, error) { return t.onMessage(ctx, v) })
}

// nextMsg is the server's next message for this test; an earlier test's
// are dropped.
func (t *serverTest) nextMsg() any {
	for {
		v := t.srv.inbox.Recv()
		tm, ok := v.(testMsg)
		if !ok {
			return v
		}
		if tm.t == t {
			return tm.v
		}
		discard(tm)
	}
}

// onMessage handles the server's own messages; done or an error ends the test.
func (t *serverTest) onMessage(ctx context.Context, v any) (done bool, err error) {
	switch m := v.(type) {
	case ctxDone:
		return true, t.terminate(ctx.Err())
	case readResult:
		return t.onControl(m)
	case accepted:
		t.onConnection(t.srv.take(m))
	case acceptFailed:
		t.srv.acceptErr = m.err // the next test reports it
	case cookieResult:
		return false, t.onStreamCookie(m)
	case udpSetup:
		return false, t.onUDPSetup(m)
	}
	return false, nil
}

// refuse reports an error to the client in SERVER_ERROR before the test
// ends, so the real client prints a reason instead of a bare disconnect.
func (t *serverTest) refuse(err error) error {
	_ = writeServerError(t.ctrl, CodeOf(err), 0)
	return err
}

func (t *serverTest) readFailure(r readResult) error {
	if err := t.heldFailure(); err != nil {
		return err
	}
	switch {
	case r.kind == readCookie:
		return fail(CodeRecvCookie, r.err)
	case r.kind == readJSONMessage && (errors.Is(r.err, errJSONTooLong) || errors.Is(r.err, errJSONEmpty)):
		code := CodeRecvParams
		if t.phase == srvExchange {
			code = CodeRecvResults
		}
		return t.refuse(fail(code, r.err))
	case r.kind == readJSONMessage && t.phase == srvParams:
		return fail(CodeRecvParams, r.err)
	case r.kind == readJSONMessage:
		return fail(CodeRecvResults, r.err)
	case errors.Is(r.err, io.EOF):
		return fail(CodeCtrlClose, errors.New("the client has unexpectedly closed the connection"))
	}
	return fail(CodeRecvMessage, r.err)
}

func (t *serverTest) onControl(r readResult) (done bool, err error) {
	if r.err != nil {
		if t.phase == srvDisplayed && errors.Is(r.err, io.EOF) {
			return true, nil // results are complete; the client just left
		}
		return false, t.readFailure(r)
	}
	switch r.kind {
	case readCookie:
		t.cookie = r.body
		if err := writeState(t.ctrl, stateParamExchange); err != nil {
			return false, fail(CodeSendMessage, err)
		}
		t.phase = srvParams
		t.reader.request(readJSONMessage)
		return false, nil
	case readJSONMessage:
		if t.phase == srvParams {
			return false, t.onParams(r.body)
		}
		return false, t.onClientResults(r.body)
	}
	return t.onState(r.state)
}

func (t *serverTest) onParams(body []byte) error {
	p, err := parseParams(body)
	if err != nil {
		return t.refuse(err)
	}
	s, o := t.s, t.o
	if o.Limit.requested(p) {
		return t.refuse(fail(CodeTotalRate, nil))
	}
	t.rate.limit = o.Limit
	p.SndTimeout = o.SndTimeout
	if o.SndTimeout > 0 {
		if err := applySockOpts(o.SockOpts, t.ctrl, socket.Options{UserTimeout: o.SndTimeout}); err != nil {
			return t.refuse(err)
		}
	}
	s.params = p
	t.listenerMSS = p.MSS > 0 && !p.UDP && setListenerMSS(t.srv.ln, p.MSS)
	s.sending = p.Reverse || p.Bidir
	if s.sending && o.TCPInfo != nil && !p.UDP {
		s.senderHasRetrans = 1
	}
	s.res.Start.UDP = p.UDP
	s.res.Start.SockBufsize = p.Window
	s.res.Title = p.Title
	s.res.ExtraData = p.ExtraData
	s.res.Start.TargetBitrate = int64(p.Bandwidth)
	if p.UDP {
		if err := t.listenUDP(); err != nil {
			return t.refuse(err)
		}
	}
	if p.GetServerOutput && s.out != nil {
		s.out.capture = new(bytes.Buffer)
	}
	if err := writeState(t.ctrl, stateCreateStreams); err != nil {
		return fail(CodeSendMessage, err)
	}
	t.phase = srvStreams
	host, port := splitAddr(t.ctrl.RemoteAddr())
	s.res.Start.Timestamp = timestamp(o.Clock.Now())
	s.res.Start.AcceptedConnection = &Endpoint{Host: host, Port: port}
	s.res.Start.Cookie = cookieString(t.cookie)
	s.verboseTime(o.Clock.Now())
	s.out.printf("Accepted connection from %s, port %d\n", host, port)
	s.verboseParams(s.res.Start.Cookie, 0)
	t.reader.request(readStateByte)
	return nil
}

// onConnection takes a connection that arrived during the test: while
// streams are being created it may be one (its cookie decides); otherwise
// the server is busy.
func (t *serverTest) onConnection(conn net.Conn) {
	if t.phase != srvStreams || t.pending+len(t.arrived) >= t.s.streamCount()+maxPendingStreams {
		deny(t.sched, conn)
		return
	}
	t.pending++
	// Tracked from now on, so the end of the test (or the idle watchdog) closes it
	// even while its cookie is still awaited.
	t.addConn(conn)
	seq := t.acceptSeq
	t.acceptSeq++
	progress := &t.wd.progress
	t.sched.Go(func() {
		timer := t.o.Clock.AfterFunc(t.o.IdleTimeout, func() { _ = conn.Close() })
		buf := make([]byte, CookieSize)
		_, err := io.ReadFull(countingReader{r: conn, n: progress}, buf)
		timer.Stop()
		t.post(cookieResult{seq: seq, conn: conn, cookie: buf, err: err})
	})
}

func (t *serverTest) onStreamCookie(cr cookieResult) error {
	t.pending--
	t.arrived[cr.seq] = cr
	for {
		next, ok := t.arrived[t.nextSeq]
		if !ok {
			return nil
		}
		delete(t.arrived, t.nextSeq)
		t.nextSeq++
		if err := t.admitStream(next); err != nil {
			return err
		}
	}
}

// admitStream checks a new connection's cookie: a match becomes the next
// stream, anything else gets ACCESS_DENIED (iperf_tcp_accept).
func (t *serverTest) admitStream(cr cookieResult) error {
	if cr.err != nil {
		_ = cr.conn.Close()
		return nil
	}
	if t.phase != srvStreams || string(cr.cookie) != string(t.cookie) {
		deny(t.sched, cr.conn)
		return nil
	}
	s := t.s
	t.setSockOpts(cr.conn)
	s.noteBuffers(cr.conn)
	if _, err := s.addFileStream(cr.conn, s.nextSender()); err != nil {
		return err
	}
	if s.congestion == "" {
		s.congestion = congestionOf(t.o.Congestion, cr.conn)
	}
	if len(s.streams) == s.streamCount() {
		return t.startTest()
	}
	return nil
}

// startTest runs once every stream is in: TEST_START, the clocks and timers,
// TEST_RUNNING, then data.
func (t *serverTest) startTest() error {
	s, tl := t.s, t.tl
	if err := writeState(t.ctrl, stateTestStart); err != nil {
		return fail(CodeSendMessage, err)
	}
	s.verboseStarting()
	now := s.clock.NowMonotonic()
	s.startTest(now)
	if s.params.Time > 0 {
		// create_server_timers: duration + omit + 4 s max RTT x 10 state changes.
		grace := time.Duration(s.params.Time+s.params.Omit+40) * time.Second
		tl.set(evGrace, now.Add(grace))
	}
	if s.params.Omit > 0 {
		tl.set(evOmit, now.Add(time.Duration(s.params.Omit)*time.Second))
	}
	if s.interval > 0 {
		tl.set(evTick, now.Add(s.interval))
	}
	tl.rearm(now)
	if err := writeState(t.ctrl, stateTestRunning); err != nil {
		return fail(CodeSendMessage, err)
	}
	limit := uint64(0)
	if s.sending {
		limit = s.params.sendLimit()
	}
	if t.udp != nil {
		t.udp.counting.Store(true)
	}
	t.startTransferOf(s, limit, t.srv.rng)
	t.phase = srvRunning
	return nil
}

func (t *serverTest) onTimers() error {
	s, tl := t.s, t.tl
	now := s.clock.NowMonotonic()
	return t.dueTimers(now, func(e event) (bool, error) {
		switch e {
		case evGrace:
			tl.stop()
			return true, fail(CodeNoMsg, errGraceExpired)
		case evTick:
			s.onTick(tl, now)
			if t.overLimit() {
				tl.stop()
				return true, fail(CodeTotalRate, nil)
			}
		case evOmit:
			s.onOmit(tl, now)
		default:
			tl.clear(e)
		}
		return false, nil
	})
}

// overLimit feeds the interval just reported to --server-bitrate-limit.
func (t *serverTest) overLimit() bool {
	var bytes uint64
	var secs float64
	for _, st := range t.s.streams {
		bytes += st.last.bytes
		secs = max(secs, st.last.end.Sub(st.last.start).Seconds())
	}
	return t.rate.add(bytes, secs, t.s.interval)
}

func (t *serverTest) onState(state int8) (done bool, err error) {
	switch state {
	case stateTestStart:
		// iperf3's server accepts and ignores it.
	case stateTestEnd:
		if t.phase != srvRunning {
			return false, t.refuse(fail(CodeMessage, fmt.Errorf("TEST_END before the test ran")))
		}
		if err := t.endTest(); err != nil {
			return false, err
		}
		t.reader.request(readJSONMessage)
		return false, nil
	case stateIperfDone:
		if t.phase == srvDisplayed {
			return true, nil
		}
		return false, fail(CodeMessage, fmt.Errorf("IPERF_DONE before the results were displayed"))
	case stateClientTerminate:
		t.partialResults()
		return false, fail(CodeClientTerm, nil)
	default:
		return false, t.refuse(fail(CodeMessage, fmt.Errorf("state %d", state)))
	}
	t.reader.request(readStateByte)
	return false, nil
}

// endTest handles TEST_END: final statistics, streams closed, the server's
// report printed (before the exchange, as iperf3 does), EXCHANGE_RESULTS.
func (t *serverTest) endTest() error {
	s := t.s
	t.tl.stop()
	t.xfer.stop.Store(true)
	if t.udp != nil {
		t.udp.counting.Store(false)
	}
	s.takeStats(s.clock.NowMonotonic(), true)
	for _, st := range s.streams {
		unblock(st.conn)
	}
	if t.udp != nil {
		t.udp.close()
	}
	s.reportInterval()
	s.summarize()
	if err := writeState(t.ctrl, stateExchangeResults); err != nil {
		return fail(CodeSendMessage, err)
	}
	t.phase = srvExchange
	return nil
}

func (t *serverTest) onClientResults(body []byte) error {
	s := t.s
	peer, err := parseResults(body)
	if err != nil {
		return t.refuse(err)
	}
	if err := s.applyPeer(peer); err != nil {
		return t.refuse(fail(CodeRecvResults, err))
	}
	local := s.localResults()
	if s.params.GetServerOutput {
		if t.o.JSON {
			if doc, err := json.Marshal(s.res); err == nil {
				local.ServerOutputJSON = doc
			}
		} else if s.out != nil && s.out.capture != nil {
			local.ServerOutputText = s.out.capture.String()
		}
	}
	body, err = local.MarshalJSON()
	if err == nil && len(body) > MaxJSONLength {
		// Too much server output for one message: send the results alone.
		local.ServerOutputJSON, local.ServerOutputText = nil, ""
		body, err = local.MarshalJSON()
	}
	if err != nil {
		return fail(CodePackageResults, err)
	}
	if err := writeJSONBytes(t.ctrl, body); err != nil {
		return fail(CodeSendResults, err)
	}
	if err := writeState(t.ctrl, stateDisplayResults); err != nil {
		return fail(CodeSendMessage, err)
	}
	t.phase = srvDisplayed
	t.reader.request(readStateByte)
	return nil
}

func (t *serverTest) partialResults() {
	if t.phase != srvRunning {
		return
	}
	t.s.takeStats(t.s.clock.NowMonotonic(), true)
	t.s.reportInterval()
	t.s.summarize()
}

// terminate is the server being stopped mid-test: partial results and
// SERVER_TERMINATE to the client.
func (t *serverTest) terminate(cause error) error {
	t.partialResults()
	_ = writeState(t.ctrl, stateServerTerminate)
	return fail(CodeServerTerm, cause)
}

// listenUDP opens the test's UDP socket before CREATE_STREAMS (iperf3
// binds it on the control port's number).
func (t *serverTest) listenUDP() error {
	listen, err := udpListenerFor(t.o.ListenUDP, t.ctrl)
	if err != nil {
		return err
	}
	pc, err := listen(t.ctx, t.o.Port)
	if err != nil {
		return fail(CodeStreamConnect, fmt.Errorf("UDP listener on port %d: %w", t.o.Port, err))
	}
	if err := t.setUDPBuffers(pc); err != nil {
		_ = pc.Close()
		return err
	}
	t.s.noteBuffers(pc)
	clock := t.o.Clock
	t.udp = newUDPListener(pc, t.post, t.s.streamCount(), t.s.params.Counters64,
		func() float64 { return monoSeconds(clock.NowMonotonic()) }, &t.wd.progress)
	t.sched.Go(t.udp.run)
	return nil
}

// onUDPSetup admits a UDP stream; the test starts with the last one.
func (t *serverTest) onUDPSetup(m udpSetup) error {
	if t.phase != srvStreams {
		return nil
	}
	s := t.s
	st, err := t.udp.admit(m.addr, func(c net.Conn) (*stream, error) { return s.addFileStream(c, s.nextSender()) })
	if err != nil {
		return err
	}
	if st != nil && len(s.streams) == s.streamCount() {
		if err := t.setUDPTOS(); err != nil {
			return err
		}
		return t.startTest()
	}
	return nil
}

// setSockOpts applies the client's -w, -M, -N, -C and -S to a data stream.
// Like 3.12 the server only warns about a congestion control it lacks.
func (t *serverTest) setSockOpts(c net.Conn) {
	o := t.s.params.sockOpts()
	o.TOS = t.s.params.TOS
	err := applySockOpts(t.o.SockOpts, c, o)
	if CodeOf(err) == CodeSetCongestion {
		fmt.Fprintf(t.o.ErrOutput, "warning: TCP congestion control algorithm not supported\n")
		o.Congestion = ""
		err = applySockOpts(t.o.SockOpts, c, o)
	}
	if err != nil {
		fmt.Fprintf(t.o.ErrOutput, "warning: %v\n", err)
	}
}
