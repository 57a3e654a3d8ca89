package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTwoSIGINTsKeepWiresJSON: timeout(1) delivers SIGINT to wire twice in a
// row (to the child, then to its process group). The first stops the run;
// the second must not cut the JSON report.
func TestTwoSIGINTsKeepWiresJSON(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs root (network namespaces and TAP devices)")
		}
		t.Skip("needs root (network namespaces and TAP devices)")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skip("needs /dev/net/tun")
	}
	var r [4]byte
	_, _ = rand.Read(r[:])
	ns := [2]string{"mesonemu-wb-" + hex.EncodeToString(r[:]), "mesonemu-wp-" + hex.EncodeToString(r[:])}
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	for i, n := range ns {
		ip("netns", "add", n)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n).Run() })
		ip("-n", n, "tuntap", "add", "dev", []string{"wtb0", "wtp0"}[i], "mode", "tap")
	}
	c := startChild(t, nil, "wire", "--board-tap", "wtb0", "--board-netns", ns[0], "--tap", "wtp0", "--netns", ns[1], "--json")
	waitFor(t, "stderr", c.stderr.String, "real time", 30*time.Second)
	// Two signals sent at once merge in the kernel when the first is still
	// pending, so keep sending until the child has gone: later ones land
	// while the report is written.
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	sent := 0
	for ; sent < 5000; sent++ {
		if c.cmd.Process.Signal(syscall.SIGINT) != nil {
			break
		}
		select {
		case <-done:
		case <-time.After(time.Millisecond):
			continue
		}
		break
	}
	<-done
	if sent < 2 {
		t.Fatalf("the child stopped after %d signal(s): the test sent no second one", sent)
	}
	if code := c.cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130\nstderr: %s", code, c.stderr)
	}
	var rep struct {
		Counters []json.RawMessage `json:"counters"`
		Pacing   struct {
			Pacer string `json:"pacer"`
		} `json:"pacing"`
	}
	if err := json.Unmarshal([]byte(c.stdout.String()), &rep); err != nil || len(rep.Counters) == 0 || rep.Pacing.Pacer == "" {
		t.Errorf("stdout is not a whole wire report (%v, %d counters, pacer %q):\n%s", err, len(rep.Counters), rep.Pacing.Pacer, c.stdout)
	}
}
