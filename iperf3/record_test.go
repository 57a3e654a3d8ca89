package iperf3

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRecordRealExchanges re-records testdata/ from the real iperf3 3.12:
// "iperf3 -s -1" and "iperf3 -c" talk through a recording proxy on loopback,
// which keeps both directions of the control connection and the first bytes
// of every data stream. It runs only with IPERF3_RECORD=1.
func TestRecordRealExchanges(t *testing.T) {
	if os.Getenv("IPERF3_RECORD") != "1" {
		t.Skip("set IPERF3_RECORD=1 to re-record testdata/ from the real iperf3")
	}
	bin := realIperf3(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) { recordScenario(t, bin, sc.name, sc.clientArgs, sc.serverArgs) })
	}
}

func recordScenario(t *testing.T, bin, name string, clientArgs, serverArgs []string) {
	upPort, stopServer := onRealServer(t, bin, serverArgs...)
	defer stopServer(true)

	p := startRecordingProxy(t, upPort)
	args := append([]string{"-c", "127.0.0.1", "-p", itoa(p.port)}, clientArgs...)
	cliOut, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("real client: %v\n%s", err, cliOut)
	}
	srvOut := stopServer(false)
	p.close()

	log, err := splitControl(p.ctrlC2S.Bytes(), p.ctrlS2C.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var cookies strings.Builder
	for _, c := range p.dataPrefixes {
		if !bytes.Equal(c, log.Cookie) {
			t.Fatalf("data stream began %q, control cookie %q", c, log.Cookie)
		}
		cookies.WriteString(cookieString(c) + "\n")
	}
	dir := filepath.Join("testdata", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"args.txt": []byte(fmt.Sprintf("server: iperf3 -s -1 %s\nclient: iperf3 -c 127.0.0.1 %s\n",
			strings.Join(serverArgs, " "), strings.Join(clientArgs, " "))),
		"control_c2s.bin":     p.ctrlC2S.Bytes(),
		"control_s2c.bin":     p.ctrlS2C.Bytes(),
		"cookie.txt":          []byte(cookieString(log.Cookie) + "\n"),
		"data_cookies.txt":    []byte(cookies.String()),
		"params.json":         log.Params,
		"client_results.json": log.ClientResults,
		"server_results.json": log.ServerResults,
		"client_output.txt":   cliOut,
		"server_output.txt":   []byte(srvOut),
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// waitListening polls /proc/net/tcp{,6} until srv itself listens on port:
// the listening socket's inode must be one of srv's descriptors, so another
// process's listener on a reused port does not pass for it. Connecting to
// check would use up the one-off server's only test.
func waitListening(t *testing.T, port int, srv *exec.Cmd) {
	t.Helper()
	want := fmt.Sprintf(":%04X ", port)
	fdDir := fmt.Sprintf("/proc/%d/fd", srv.Process.Pid)
	for i := 0; i < 500; i++ {
		if exited(srv.Process.Pid) {
			t.Fatalf("%s exited before it listened on port %d", srv.Path, port)
		}
		for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
			b, _ := os.ReadFile(f)
			for _, line := range strings.Split(string(b), "\n") {
				fields := strings.Fields(line)
				if len(fields) > 9 && strings.HasSuffix(fields[1]+" ", want) && fields[3] == "0A" &&
					ownsSocket(fdDir, fields[9]) {
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s is not listening on port %d after 5 s", srv.Path, port)
}

// exited reports whether the child pid has ended (a zombie not yet waited
// for, or gone).
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

// ownsSocket reports whether one of the descriptors in fdDir is the socket
// with this inode.
func ownsSocket(fdDir, inode string) bool {
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(fdDir, e.Name())); err == nil && l == "socket:["+inode+"]" {
			return true
		}
	}
	return false
}

type recordingProxy struct {
	ln               net.Listener
	port             int
	wg               sync.WaitGroup
	mu               sync.Mutex
	ctrlC2S, ctrlS2C bytes.Buffer
	dataPrefixes     [][]byte
}

func startRecordingProxy(t *testing.T, upPort int) *recordingProxy {
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	p := &recordingProxy{ln: ln}
	_, p.port = splitAddr(ln.Addr())
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for n := 0; ; n++ {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", upPort))
			if err != nil {
				down.Close()
				continue
			}
			if n == 0 {
				p.pipe(down, up, &p.ctrlC2S, &p.ctrlS2C)
				continue
			}
			prefix := &prefixWriter{limit: CookieSize}
			p.pipe(down, up, prefix, io.Discard)
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				<-prefix.done()
				p.mu.Lock()
				p.dataPrefixes = append(p.dataPrefixes, prefix.bytes())
				p.mu.Unlock()
			}()
		}
	}()
	return p
}

// pipe copies both ways, teeing each direction into a recorder.
func (p *recordingProxy) pipe(down, up net.Conn, c2s, s2c io.Writer) {
	var both sync.WaitGroup
	both.Add(2)
	copyHalf := func(dst, src net.Conn, rec io.Writer) {
		defer both.Done()
		_, _ = io.Copy(io.MultiWriter(dst, rec), src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}
	go copyHalf(up, down, c2s)
	go copyHalf(down, up, s2c)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		both.Wait()
		down.Close()
		up.Close()
		if pw, ok := c2s.(*prefixWriter); ok {
			pw.finish()
		}
	}()
}

func (p *recordingProxy) close() {
	p.ln.Close()
	p.wg.Wait()
}

// prefixWriter keeps the first limit bytes written to it.
type prefixWriter struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	ch    chan struct{}
	once  sync.Once
}

func (w *prefixWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	if room := w.limit - len(w.buf); room > 0 {
		w.buf = append(w.buf, b[:min(room, len(b))]...)
	}
	w.mu.Unlock()
	return len(b), nil
}

func (w *prefixWriter) done() <-chan struct{} { return w.channel() }

func (w *prefixWriter) finish() { close(w.channel()) }

func (w *prefixWriter) channel() chan struct{} {
	w.once.Do(func() { w.ch = make(chan struct{}) })
	return w.ch
}

func (w *prefixWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.buf...)
}
