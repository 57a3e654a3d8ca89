package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// child is this test binary run as the CLI (TestMain) with the process's own
// signal handling, its stdout and stderr captured.
type child struct {
	cmd            *exec.Cmd
	stdout, stderr *lockedBuffer
}

type lockedBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func newLockedBuffer() *lockedBuffer { return &lockedBuffer{mu: make(chan struct{}, 1)} }

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.String()
}

// startChild starts the CLI with args; prefix, if any, runs it (ip netns exec).
func startChild(t *testing.T, prefix []string, args ...string) *child {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv := append(append([]string{}, prefix...), self)
	c := &child{cmd: exec.Command(argv[0], argv[1:]...), stdout: newLockedBuffer(), stderr: newLockedBuffer()}
	c.cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\x1f"))
	c.cmd.Stdout, c.cmd.Stderr = c.stdout, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cmd.Process.Kill(); _ = c.cmd.Wait() })
	return c
}

// waitFor polls until out() holds want, or fails after limit.
func waitFor(t *testing.T, what string, out func() string, want string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(out(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on %s after %v:\n%s", want, what, limit, out())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// interrupt sends SIGINT and returns the exit status and how long the child
// took to stop.
func (c *child) interrupt(t *testing.T) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return c.cmd.ProcessState.ExitCode(), time.Since(start)
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after SIGINT\nstdout:\n%s\nstderr:\n%s", c.stdout, c.stderr)
	}
	return 0, 0
}

// TestSIGINTStopsTheMainJob: Ctrl-C in the middle of the main job stops it,
// prints the counters and what was measured, and exits 130.
func TestSIGINTStopsTheMainJob(t *testing.T) {
	c := startChild(t, nil, "--time", "30s", "--driver", "pre-fix", "--tx-delay-ns", "4")
	waitFor(t, "stdout", c.stdout.String, "0.00-1.00", 60*time.Second)
	code, took := c.interrupt(t)
	out, errs := c.stdout.String(), c.stderr.String()
	if code != 130 {
		t.Errorf("exit status %d after SIGINT, want 130\nstderr: %s", code, errs)
	}
	// The engine checks for cancellation between events; a loaded machine
	// may take a little longer than the second a user expects.
	if took > 3*time.Second {
		t.Errorf("took %v to stop after SIGINT", took)
	}
	for _, want := range []string{"Link counters", "rx_crc_errors", "interrupted at", "retransmits by the board's TCP so far"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "iperf Done") {
		t.Error("the run finished before the signal: the test did not interrupt it")
	}
	if !strings.Contains(errs, "mesonemu: stopped by SIGINT") || strings.Contains(errs, "context canceled") {
		t.Errorf("stderr %q, want one line naming SIGINT", errs)
	}
}

// TestSIGINTStopsATAPRun: the board's iperf3 server on a TAP device (in a
// network namespace of the test's own) stops on Ctrl-C, prints the bridge's
// counters and exits 130.
func TestSIGINTStopsATAPRun(t *testing.T) {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces and TAP devices)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		missing = append(missing, "/dev/net/tun (modprobe tun)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		missing = append(missing, "ip in PATH")
	}
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs " + strings.Join(missing, ", "))
		}
		t.Skip("needs " + strings.Join(missing, ", "))
	}
	var r [4]byte
	_, _ = rand.Read(r[:])
	ns := "mesonemu-cli-" + hex.EncodeToString(r[:])
	ipCmd := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	ipCmd("netns", "add", ns)
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", ns, err, out)
		}
	})
	ipCmd("-n", ns, "tuntap", "add", "dev", "mtap0", "mode", "tap")
	ipCmd("-n", ns, "addr", "add", "198.18.1.1/24", "dev", "mtap0")
	ipCmd("-n", ns, "link", "set", "mtap0", "up")
	c := startChild(t, []string{"ip", "netns", "exec", ns}, "--tap", "mtap0", "iperf3", "-s")
	waitFor(t, "stdout", c.stdout.String, "Server listening", 30*time.Second)
	code, took := c.interrupt(t)
	errs := c.stderr.String()
	if code != 130 {
		t.Errorf("exit status %d after SIGINT, want 130\nstderr: %s", code, errs)
	}
	if took > 3*time.Second {
		t.Errorf("took %v to stop after SIGINT", took)
	}
	for _, want := range []string{"on TAP mtap0", "TAP bridge counters", "mesonemu: stopped by SIGINT"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}
