package iperf3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/coop"

	"mesonemu/socket"
)

// ClientOptions configures Run. Zero values take iperf3's defaults.
type ClientOptions struct {
	Host            string        // -c
	Family          Family        // -4, -6
	Port            int           // -p, default 5201
	Seconds         int           // -t; 0 means 10 unless Bytes is set
	Bytes           uint64        // -n: stop after this many bytes (whole blocks)
	Blocks          uint64        // -k: stop after this many blocks (UDP: datagrams)
	Interval        time.Duration // -i; 0 means 1 s
	Format          byte          // -f: the bitrates' unit (kmgtKMGT; 0 adaptive bits)
	NoIntervals     bool          // -i 0: only the final report
	Parallel        int           // -P, default 1
	Reverse         bool          // -R: the server sends
	Bidir           bool          // --bidir: both send at once
	BlockSize       int           // -l, default 131072
	ClientPort      int           // --cport: data stream i binds ClientPort+i
	Omit            int           // -O: seconds measured but left out
	JSON            bool          // -J
	GetServerOutput bool          // --get-server-output
	UDP             bool          // -u
	Bandwidth       uint64        // -b, bit/s per stream; UDP default 1 Mbit/s (1048576)
	BandwidthSet    bool          // -b was given (-b 0 is unlimited)
	Burst           int           // -b RATE/BURST
	PacingTimer     int           // --pacing-timer, µs; default 1000
	Counters64      bool          // --udp-counters-64bit
	Window          int           // -w: SO_SNDBUF and SO_RCVBUF of the data sockets, both ends
	MSS             int           // -M: TCP_MAXSEG
	NoDelay         bool          // -N: TCP_NODELAY
	TOS             int           // -S, --dscp: IP_TOS of the data sockets, both ends
	CongestionAlg   string        // -C: the data streams' congestion control
	Title           string        // -T: prefix of every output line, JSON "title"
	Verbose         bool          // -V: 3.12's extra lines (text output only)
	ExtraData       string        // --extra-data: JSON "extra_data" on both ends
	SndTimeout      time.Duration // --snd-timeout: TCP_USER_TIMEOUT of control and data
	File            string        // -F: send this file's bytes
	ConnectTimeout  time.Duration // --connect-timeout: the control connection's dial
	Repeating       bool          // --repeating-payload: "0123456789..." instead of random bytes
	ZeroCopy        bool          // -Z: 3.12's sendfile path, which sends zeros
	DontFragment    bool          // --dont-fragment: DF on IPv4 UDP data datagrams
	Stamps          LineStamps    // --timestamps: the text lines' time prefix

	Dial        socket.DialFunc       // default socket.HostDial
	DialUDP     socket.DialFunc       // UDP streams; default: the control connection's stack (UDPSockets) or the host's
	SockOpts    socket.OptionsFunc    // applies -w, -M, -N, -C to data streams; nil: they cannot be set
	Clock       tcpip.Clock           // default tcpip.NewStdClock()
	TCPInfo     socket.TCPInfoFunc    // sender statistics; nil: none
	Congestion  socket.CongestionFunc // nil: congestion control not reported
	Output      io.Writer             // text or JSON output; nil: discarded
	IdleTimeout time.Duration         // default DefaultIdleTimeout
	Seed        uint64                // cookie and payload randomness; 0: random
	SystemInfo  string                // JSON system_info; default names Go and the OS
	// Sched runs the test's activities; nil: goroutines. On mesonemu's
	// engine it is the machine's, and Run must be called from one of its
	// tasks.
	Sched coop.Sched
}

func (o ClientOptions) withDefaults() (ClientOptions, error) {
	if o.Host == "" {
		return o, errors.New("iperf3 client: no server host")
	}
	if o.Port == 0 {
		o.Port = DefaultPort
	}
	if o.Port < 1 || o.Port > 65535 {
		return o, fmt.Errorf("iperf3 client: port %d out of range", o.Port)
	}
	if o.ClientPort < 0 || o.ClientPort > 65535 {
		return o, fmt.Errorf("iperf3 client: --cport %d out of range", o.ClientPort)
	}
	if o.Seconds == 0 && o.Bytes == 0 && o.Blocks == 0 {
		o.Seconds = 10
	}
	if o.Seconds < 0 || o.Seconds > maxDuration {
		return o, fail(CodeDuration, nil)
	}
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if o.Parallel < 1 || o.Parallel > maxStreams {
		return o, fail(CodeNumStreams, nil)
	}
	if err := o.udpDefaults(); err != nil {
		return o, err
	}
	if o.Omit < 0 || o.Omit > maxOmit {
		return o, fail(CodeOmit, nil)
	}
	if o.Reverse && o.Bidir {
		return o, fail(CodeReverseBidir, nil)
	}
	if o.Window < 0 || o.Window > maxTCPBuffer {
		return o, fail(CodeBufSize, nil)
	}
	if o.MSS < 0 || o.MSS > maxMSS {
		return o, fail(CodeMSS, nil)
	}
	if o.TOS < 0 || o.TOS > maxTOS {
		return o, fail(CodeBadTOS, nil)
	}
	var err error
	if o.Interval, err = reportInterval(o.Interval, o.NoIntervals); err != nil {
		return o, err
	}
	if o.Dial == nil {
		o.Dial = socket.HostDial
	}
	sharedDefaults(&o.Clock, &o.Output, &o.IdleTimeout, &o.Seed, &o.SystemInfo, &o.Sched)
	return o, nil
}

// udpDefaults applies the block size and rate rules that differ for UDP: a
// UDP block size of 0 is chosen from the control connection's MSS later.
func (o *ClientOptions) udpDefaults() error {
	if !o.BandwidthSet && o.Bandwidth == 0 && o.UDP {
		o.Bandwidth = defaultUDPRate
	}
	if o.Burst < 0 || o.Burst > maxBurst {
		return fail(CodeBurst, nil)
	}
	if o.PacingTimer < 0 {
		return fail(CodeRecvParams, fmt.Errorf("--pacing-timer %d", o.PacingTimer))
	}
	switch {
	case o.UDP && o.BlockSize != 0 && (o.BlockSize < minUDPBlockSize || o.BlockSize > maxUDPBlockSize):
		return fail(CodeUDPBlockSize, nil)
	case o.UDP:
	case o.BlockSize == 0:
		o.BlockSize = DefaultBlockSize
	case o.BlockSize < 1 || o.BlockSize > maxBlockSize:
		return fail(CodeBlockSize, nil)
	}
	return nil
}

// sharedDefaults fills the options client and server default alike: the
// clock, the output, the idle timeout, the seed, system_info and the scheduler.
func sharedDefaults(clock *tcpip.Clock, out *io.Writer, idle *time.Duration, seed *uint64, info *string, sched *coop.Sched) {
	if *clock == nil {
		*clock = tcpip.NewStdClock()
	}
	if *out == nil {
		*out = io.Discard
	}
	if *idle <= 0 {
		*idle = DefaultIdleTimeout
	}
	if *seed == 0 {
		*seed = rand.Uint64()
	}
	if *info == "" {
		*info = defaultSystemInfo()
	}
	*sched = coop.Or(*sched)
}

// reportInterval applies iperf3's -i rules: 0 disables, otherwise 0.1-60 s.
func reportInterval(d time.Duration, off bool) (time.Duration, error) {
	switch {
	case off:
		return 0, nil
	case d == 0:
		return time.Second, nil
	case d < 100*time.Millisecond || d > 60*time.Second:
		return 0, fail(CodeInterval, nil)
	}
	return d, nil
}

// Run performs one test as an iperf3 3.12 client against the server at
// opts.Host. Text or JSON output goes to opts.Output while the test runs; the
// returned Result is the --json document (also on failure, as far as the
// test got, with Error set). Cancelling ctx aborts the test the way Ctrl-C
// does: partial results and CLIENT_TERMINATE to the server.
func Run(ctx context.Context, opts ClientOptions) (*Result, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	c := newClient(o)
	err = c.run(ctx)
	if err != nil && c.wd != nil && c.wd.expired.Load() {
		err = fail(CodeNoMsg, errIdle) // whatever broke, it broke because the test stalled
	}
	c.cleanup()
	res := c.s.res
	if err != nil {
		res.Error = err.Error()
	}
	if o.JSON {
		if out, merr := res.marshalOutput(); merr == nil {
			_, _ = o.Output.Write(out)
		}
	}
	return res, err
}

type clientPhase int

const (
	phaseConnected  clientPhase = iota // cookie sent
	phaseParamsSent                    // parameters sent
	phaseStreams                       // data streams connected
	phaseStarted                       // TEST_START received
	phaseRunning                       // TEST_RUNNING received, data flowing
	phaseEnding                        // waiting for the senders' last blocks
	phaseEnded                         // TEST_END sent
	phaseExchanged                     // results exchanged
)

type client struct {
	o       ClientOptions
	s       *session
	addr    string
	rng     *rand.Rand
	cookie  []byte
	payload []byte
	phase   clientPhase

	ctrl  net.Conn
	inbox *coop.Inbox[any]

	sendersFinished bool
	endAfterOmit    bool
	endBeforeRun    bool        // the test clock ran out before TEST_RUNNING came
	endTimer        tcpip.Timer // endGrace from phaseEnding on; stopped at cleanup

	testRuntime
}

func newClient(o ClientOptions) *client {
	c := &client{
		o:     o,
		addr:  net.JoinHostPort(o.Host, strconv.Itoa(o.Port)),
		rng:   rand.New(rand.NewPCG(o.Seed, o.Seed^0x6970657266332e31)),
		inbox: coop.NewInbox[any](o.Sched),
	}
	c.testRuntime = newRuntime(o.Sched, o.Clock, c.inbox.Post)
	var out *printer
	if !o.JSON {
		out = &printer{w: o.Output, title: o.Title, stamp: newLineStamper(o.Stamps, o.Clock)}
	}
	c.s = &session{
		role: 'c', clock: o.Clock, out: out, unit: o.Format,
		res: &Result{Start: Start{Version: versionString, SystemInfo: o.SystemInfo}, Intervals: []Interval{}},
		params: testParams{
			Omit: o.Omit, Time: o.Seconds, Num: o.Bytes, BlockCount: o.Blocks, Parallel: o.Parallel,
			Reverse: o.Reverse, Bidir: o.Bidir, Len: o.BlockSize, GetServerOutput: o.GetServerOutput,
			UDP: o.UDP, Bandwidth: o.Bandwidth, Burst: o.Burst, PacingTimer: o.PacingTimer, Counters64: o.Counters64,
			Window: o.Window, MSS: o.MSS, NoDelay: o.NoDelay, TOS: o.TOS, Congestion: o.CongestionAlg, Title: o.Title, ExtraData: o.ExtraData, SndTimeout: o.SndTimeout,
			Repeating: o.Repeating, ZeroCopy: o.ZeroCopy, DontFragment: o.DontFragment,
		},
		sending: !o.Reverse, interval: o.Interval, tcpInfo: o.TCPInfo, verbose: o.Verbose && out != nil,
	}
	if c.s.sending && o.TCPInfo != nil && !o.UDP {
		c.s.senderHasRetrans = 1
	}
	c.s.res.Start.UDP = o.UDP
	c.s.res.Start.SockBufsize = o.Window
	c.s.res.Title = o.Title
	c.s.res.ExtraData = o.ExtraData
	c.s.res.Start.TargetBitrate = int64(o.Bandwidth)
	return c
}

func (c *client) cleanup() {
	if c.endTimer != nil {
		c.endTimer.Stop()
	}
	c.shutdown()
	c.s.closeFiles()
}

// dialContext bounds a dial by the idle timeout on the test clock.
func (c *client) dialContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	t := c.o.Clock.AfterFunc(c.o.IdleTimeout, cancel)
	return ctx, func() {
		t.Stop()
		cancel()
	}
}

func timestamp(t time.Time) Timestamp {
	return Timestamp{Time: t.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"), TimeSecs: t.Unix()}
}

func (c *client) run(ctx context.Context) error {
	o, s := c.o, c.s
	s.fileName = o.File
	c.wd = newWatchdog(o.Clock, o.IdleTimeout, c.closeAll, c.post)
	if o.ConnectTimeout > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		t := o.Clock.AfterFunc(o.ConnectTimeout, stop)
		defer t.Stop()
		defer stop()
	}
	if err := checkFamily(o.Host, o.Family); err != nil {
		return fail(CodeConnect, err)
	}
	dctx, cancel := c.dialContext(ctx)
	ctrl, err := o.Dial(dctx, c.addr)
	cancel()
	if err != nil {
		return fail(CodeConnect, err)
	}
	c.ctrl = ctrl
	c.addConn(ctrl)
	if o.SndTimeout > 0 {
		if err := applySockOpts(o.SockOpts, ctrl, socket.Options{UserTimeout: o.SndTimeout}); err != nil {
			return err
		}
	}

	mss := 0
	if o.TCPInfo != nil {
		if info, ok := o.TCPInfo(ctrl); ok {
			mss = int(info.Snd_mss)
			s.res.Start.TCPMSSDefault = mss
		}
	}
	s.verboseIntro(o.SystemInfo)
	if s.verbose {
		s.out.plain("Control connection MSS %d\n", mss) // a bare printf in 3.12
	}
	s.res.Start.Timestamp = timestamp(o.Clock.Now())
	s.res.Start.ConnectingTo = &Endpoint{Host: o.Host, Port: o.Port}
	s.verboseTime(o.Clock.Now())
	s.out.printf("Connecting to host %s, port %d\n", o.Host, o.Port)
	if o.Reverse {
		s.out.printf("Reverse mode, remote host %s is sending\n", o.Host)
	}
	if o.UDP && s.params.Len == 0 {
		// iperf_connect: the control connection's MSS, else DEFAULT_UDP_BLKSIZE.
		s.params.Len = defaultUDPBlkSize
		if mss > 0 && mss <= maxUDPBlockSize {
			s.params.Len = max(mss, minUDPBlockSize)
		}
	}
	c.cookie = newCookie(c.rng)
	s.res.Start.Cookie = cookieString(c.cookie)
	s.verboseParams(s.res.Start.Cookie, mss)
	if _, err := ctrl.Write(c.cookie); err != nil {
		return fail(CodeSendCookie, err)
	}
	c.reader = newCtrlReader(c.sched, ctrl, &c.wd.progress, c.post)
	c.reader.request(readStateByte)
	stop := context.AfterFunc(ctx, func() { c.post(ctxDone{}) })
	defer stop()
	return c.loop(ctx)
}

func (c *client) loop(ctx context.Context) error {
	return c.testRuntime.loop(c.inbox.Recv, c.o.Clock, c.onTimers, func(v any) (bool, error) { return c.onMessage(ctx, v) })
}

// onMessage handles the client's own messages; done or an error ends the test.
func (c *client) onMessage(ctx context.Context, v any) (done bool, err error) {
	switch m := v.(type) {
	case ctxDone:
		return true, c.terminate(ctx.Err())
	case readResult:
		return c.onControl(ctx, m)
	case endDue:
		if c.phase == phaseEnding {
			return false, c.finishTest()
		}
	case limitReached: // posted once, and only by receivers: a receiving -n test
		return false, c.beginEnd()
	case sendersFinished: // posted once, and only where there are senders: a sending test
		c.sendersFinished = true
		switch c.phase {
		case phaseRunning:
			return false, c.beginEnd()
		case phaseEnding:
			return false, c.finishTest()
		}
	}
	return false, nil
}

// readFailure maps a failed control read to iperf3's error.
func (c *client) readFailure(r readResult) error {
	if err := c.heldFailure(); err != nil {
		return err
	}
	if errors.Is(r.err, io.EOF) || errors.Is(r.err, io.ErrUnexpectedEOF) {
		return fail(CodeCtrlClose, r.err)
	}
	if r.kind == readJSONMessage {
		return fail(CodeRecvResults, r.err)
	}
	return fail(CodeCtrlRead, r.err)
}

func (c *client) onControl(ctx context.Context, r readResult) (done bool, err error) {
	if r.err != nil {
		return false, c.readFailure(r)
	}
	switch r.kind {
	case readErrorPayload:
		return false, &Error{Code: r.code, Remote: true, Errno: r.errno}
	case readJSONMessage:
		peer, err := parseResults(r.body)
		if err != nil {
			return false, err
		}
		if err := c.s.applyPeer(peer); err != nil {
			return false, fail(CodeRecvResults, err)
		}
		c.phase = phaseExchanged
		c.reader.request(readStateByte)
		return false, nil
	}
	return c.onState(ctx, r.state)
}

func (c *client) expect(state int8, phase clientPhase) error {
	if c.phase != phase {
		return fail(CodeMessage, fmt.Errorf("state %d arrived out of order", state))
	}
	return nil
}

func (c *client) onState(ctx context.Context, state int8) (done bool, err error) {
	s := c.s
	switch state {
	case stateParamExchange:
		if err := c.expect(state, phaseConnected); err != nil {
			return false, err
		}
		if err := writeJSON(c.ctrl, s.params.wire()); err != nil {
			return false, fail(CodeSendParams, err)
		}
		c.phase = phaseParamsSent
	case stateCreateStreams:
		if err := c.expect(state, phaseParamsSent); err != nil {
			return false, err
		}
		if err := c.connectStreams(ctx); err != nil {
			return false, err
		}
		c.phase = phaseStreams
	case stateTestStart:
		if err := c.expect(state, phaseStreams); err != nil {
			return false, err
		}
		c.s.verboseStarting()
		c.startTimers()
		c.phase = phaseStarted
	case stateTestRunning:
		if err := c.expect(state, phaseStarted); err != nil {
			return false, err
		}
		c.startTransfer()
		c.phase = phaseRunning
		if c.endBeforeRun {
			// iperf3's timer only sets done; its loop then ends the test on
			// the first pass after TEST_RUNNING.
			if err := c.beginEnd(); err != nil {
				return false, err
			}
		}
	case stateExchangeResults:
		if err := c.expect(state, phaseEnded); err != nil {
			return false, err
		}
		if err := writeJSON(c.ctrl, s.localResults()); err != nil {
			return false, fail(CodeSendResults, err)
		}
		c.reader.request(readJSONMessage)
		return false, nil
	case stateDisplayResults:
		if err := c.expect(state, phaseExchanged); err != nil {
			return false, err
		}
		c.display()
		if err := writeState(c.ctrl, stateIperfDone); err != nil {
			return false, fail(CodeSendMessage, err)
		}
		return true, nil
	case stateServerTerminate:
		c.partialResults()
		return false, fail(CodeServerTerm, nil)
	case stateAccessDenied:
		return false, fail(CodeAccessDenied, nil)
	case stateServerError:
		c.reader.request(readErrorPayload)
		return false, nil
	default:
		return false, fail(CodeMessage, fmt.Errorf("state %d", state))
	}
	c.reader.request(readStateByte)
	return false, nil
}

func (c *client) connectStreams(ctx context.Context) error {
	o, s := c.o, c.s
	for i := 0; i < s.streamCount(); i++ {
		dctx := ctx
		if o.ClientPort > 0 {
			dctx = socket.WithLocalPort(ctx, o.ClientPort+i)
		}
		dial := o.Dial
		if o.UDP {
			var err error
			if dial, err = udpDialer(o.DialUDP, c.ctrl); err != nil {
				return err
			}
		} else {
			dctx = socket.WithDialOptions(dctx, s.params.sockOpts().PreConnect())
		}
		dctx, cancel := c.dialContext(dctx)
		conn, err := dial(dctx, c.addr)
		cancel()
		if err != nil {
			return fail(CodeStreamConnect, err)
		}
		c.addConn(conn)
		if err := applySockOpts(o.SockOpts, conn, s.params.sockOpts()); err != nil {
			return err
		}
		s.noteBuffers(conn)
		if o.UDP {
			if err := connectUDP(conn, o.Clock); err != nil {
				return err
			}
		} else if _, err := conn.Write(c.cookie); err != nil {
			return fail(CodeSendCookie, err)
		}
		if err := applySockOpts(o.SockOpts, conn, s.params.tosOpts()); err != nil {
			return err
		}
		if _, err := s.addFileStream(conn, s.nextSender()); err != nil {
			return err
		}
		if s.congestion == "" {
			s.congestion = congestionOf(o.Congestion, conn)
		}
	}
	return nil
}

// startTimers begins the test clock (iperf3's client timers start at
// TEST_START; the end comes after duration plus omit).
func (c *client) startTimers() {
	s, tl := c.s, c.tl
	now := s.clock.NowMonotonic()
	s.startTest(now)
	if s.params.Time > 0 {
		tl.set(evEnd, now.Add(time.Duration(s.params.Time+s.params.Omit)*time.Second))
	}
	if s.params.Omit > 0 {
		tl.set(evOmit, now.Add(time.Duration(s.params.Omit)*time.Second))
	}
	if s.interval > 0 {
		tl.set(evTick, now.Add(s.interval))
	}
	tl.rearm(now)
}

func (c *client) startTransfer() {
	s := c.s
	c.payload = c.startTransferOf(s, s.params.sendLimit(), c.rng)
}

func (c *client) onTimers() error {
	s, tl := c.s, c.tl
	now := s.clock.NowMonotonic()
	return c.dueTimers(now, func(e event) (bool, error) {
		switch e {
		case evEnd:
			tl.stop()
			return true, c.beginEnd()
		case evTick:
			s.onTick(tl, now)
		case evOmit:
			s.onOmit(tl, now)
			if c.endAfterOmit {
				tl.stop()
				return true, c.beginEnd()
			}
		default:
			tl.clear(e)
		}
		return false, nil
	})
}

// beginEnd stops the test once -t elapsed or -n was reached; if -t elapsed
// before the server said TEST_RUNNING, at TEST_RUNNING. Like iperf3 it
// never ends inside the omit period. A sending client lets every stream
// finish the block it is writing before it takes the final statistics, so
// the receiver can never count more than the sender reports.
func (c *client) beginEnd() error {
	if c.phase == phaseStarted {
		c.endBeforeRun = true
		return nil
	}
	if c.phase != phaseRunning {
		return nil
	}
	if c.s.omitting {
		c.endAfterOmit = true
		return nil
	}
	c.tl.stop()
	c.xfer.stop.Store(true)
	if c.s.sending && !c.sendersFinished {
		c.phase = phaseEnding
		c.endTimer = c.o.Clock.AfterFunc(endGrace, func() { c.post(endDue{}) })
		return nil
	}
	return c.finishTest()
}

// endGrace bounds how long the end waits for a sender's last block. On a link
// that has all but died a Write can block for ever, where iperf3 (non-blocking
// sockets) sends TEST_END at once; the block then counts as sent in full.
const endGrace = time.Second

func (c *client) finishTest() error {
	c.s.takeStats(c.s.clock.NowMonotonic(), true)
	if err := writeState(c.ctrl, stateTestEnd); err != nil {
		return fail(CodeSendMessage, err)
	}
	c.phase = phaseEnded
	return nil
}

// display prints the final interval and the summary (DISPLAY_RESULTS).
func (c *client) display() {
	s := c.s
	s.reportInterval()
	if c.o.GetServerOutput && s.peer != nil {
		s.serverOutput = c.printServerOutput // after the first direction's summary, as 3.12
	}
	s.summarize()
	s.out.printf("\n")
	s.out.printf("%s", reportDone)
}

// printServerOutput is --get-server-output's text or JSON from the server.
func (c *client) printServerOutput() {
	s := c.s
	res := s.res
	res.ServerOutputJSON = s.peer.ServerOutputJSON
	if res.ServerOutputJSON == nil {
		res.ServerOutputText = s.peer.ServerOutputText
	}
	if res.ServerOutputJSON != nil {
		if b, err := indentJSON(res.ServerOutputJSON); err == nil {
			s.out.printf(reportServerJSONText, b)
		}
	} else if res.ServerOutputText != "" {
		s.out.printf(reportServerOutput, res.ServerOutputText)
	}
}

// partialResults reports what was measured when a test is cut short.
func (c *client) partialResults() {
	if c.phase < phaseStarted || c.phase >= phaseExchanged {
		return
	}
	if c.phase < phaseEnded {
		c.s.takeStats(c.s.clock.NowMonotonic(), true)
	}
	c.s.reportInterval()
	c.s.summarize()
}

// terminate is the Ctrl-C path: partial results, then CLIENT_TERMINATE.
func (c *client) terminate(cause error) error {
	c.partialResults()
	if c.ctrl != nil {
		_ = writeState(c.ctrl, stateClientTerminate)
	}
	return fail(CodeClientTerm, cause)
}
