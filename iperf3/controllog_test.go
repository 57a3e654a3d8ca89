package iperf3

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// scenarios are the recorded real iperf3 3.12 exchanges in testdata/<name>/:
// the client's arguments (the server was "iperf3 -s -1" plus serverArgs).
var scenarios = []struct {
	name       string
	clientArgs []string
	serverArgs []string
}{
	{"forward", []string{"-t", "1"}, nil},
	{"reverse", []string{"-t", "1", "-R"}, nil},
	{"parallel3", []string{"-t", "1", "-P", "3"}, nil},
	{"bytes", []string{"-n", "1M"}, nil},
	{"server-output", []string{"-t", "1", "--get-server-output"}, nil},
	{"server-output-json", []string{"-t", "1", "-R", "--get-server-output"}, []string{"-J"}},
	{"json", []string{"-t", "1", "-J"}, []string{"-J"}},
	{"json-reverse", []string{"-t", "1", "-R", "-J"}, []string{"-J"}},
}

// controlLog is one recorded control connection, split into its messages.
type controlLog struct {
	Cookie        []byte // 37 bytes
	Params        []byte // parameter JSON
	ClientStates  []int8 // state bytes the client sent, in order
	ClientResults []byte // results JSON the client sent
	ServerStates  []int8 // state bytes the server sent, in order
	ServerResults []byte // results JSON the server sent
}

func takeJSON(b []byte) (body, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("short length prefix")
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, fmt.Errorf("JSON length %d beyond %d recorded bytes", n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}

// splitControl parses the two directions of a recorded control connection:
// client: cookie, params JSON, state bytes, with the results JSON after
// TEST_END; server: state bytes, with its results JSON after EXCHANGE_RESULTS.
func splitControl(c2s, s2c []byte) (controlLog, error) {
	var l controlLog
	if len(c2s) < CookieSize {
		return l, fmt.Errorf("client sent %d bytes, no cookie", len(c2s))
	}
	l.Cookie, c2s = c2s[:CookieSize], c2s[CookieSize:]
	var err error
	if l.Params, c2s, err = takeJSON(c2s); err != nil {
		return l, fmt.Errorf("params: %w", err)
	}
	if l.ClientStates, l.ClientResults, err = splitStates(c2s, stateTestEnd); err != nil {
		return l, fmt.Errorf("client results: %w", err)
	}
	if l.ServerStates, l.ServerResults, err = splitStates(s2c, stateExchangeResults); err != nil {
		return l, fmt.Errorf("server results: %w", err)
	}
	return l, nil
}

// splitStates reads one direction's state bytes; the results JSON follows
// the state after.
func splitStates(b []byte, after int8) (states []int8, results []byte, err error) {
	for len(b) > 0 {
		st := int8(b[0])
		b = b[1:]
		states = append(states, st)
		if st == after {
			if results, b, err = takeJSON(b); err != nil {
				return states, results, err
			}
		}
	}
	return states, results, nil
}

func loadControlLog(t *testing.T, name string) controlLog {
	t.Helper()
	dir := filepath.Join("testdata", name)
	c2s, err := os.ReadFile(filepath.Join(dir, "control_c2s.bin"))
	if err != nil {
		t.Fatalf("recorded exchange missing (regenerate with IPERF3_RECORD=1 go test -run TestRecord): %v", err)
	}
	s2c, err := os.ReadFile(filepath.Join(dir, "control_s2c.bin"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := splitControl(c2s, s2c)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

// realIperf3 returns the path of the reference binary, or skips the test
// (fails it when CI=true) if it is missing.
func realIperf3(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("iperf3")
	if err == nil {
		out, verr := exec.Command(path, "--version").Output()
		if verr == nil && strings.HasPrefix(string(out), "iperf 3.12") {
			return path
		}
		err = fmt.Errorf("%s is not iperf 3.12: %q", path, strings.SplitN(string(out), "\n", 2)[0])
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("the real iperf3 3.12 binary is required when CI=true: %v", err)
	}
	t.Skipf("needs the real iperf3 3.12 binary as the reference peer (apt-get install iperf3): %v", err)
	return ""
}

// freePort finds a TCP port for a real iperf3 server to bind. It is below
// the kernel's ephemeral range, so no connection of a parallel test can take
// it as its local port before the server binds it, and it is never given to
// two tests of this process. Nothing may listen on it, on any address.
func freePort(t *testing.T) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	lo, hi := 10000, ephemeralLow()
	for i := 0; i < 1000; i++ {
		p := lo + rand.IntN(hi-lo)
		if portsGiven[p] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
		if err != nil {
			continue
		}
		ln.Close()
		portsGiven[p] = true
		return p
	}
	t.Fatalf("no free TCP port in %d-%d after 1000 tries", lo, hi-1)
	return 0
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// ephemeralLow is the first port the kernel hands to connections by itself
// (net.ipv4.ip_local_port_range), 32768 if it cannot be read or is too low
// to leave room under it.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	if n, err := strconv.Atoi(f[0]); err == nil && n > 11000 {
		return n
	}
	return 32768
}

func itoa(n int) string { return strconv.Itoa(n) }
