package tap

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Addresses on the test link, from the benchmarking range 198.18.0.0/15.
const (
	hostIP  = "198.18.1.1"
	boardIP = "198.18.1.2"
	tapName = "mesonemu0"
)

// need skips the test when the machine cannot run it, naming what is missing;
// under CI=true a missing tool is a failure instead.
func need(t testing.TB, tools ...string) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces and TAP devices need CAP_NET_ADMIN and CAP_SYS_ADMIN)")
	}
	if _, err := os.Stat(TunPath); err != nil {
		missing = append(missing, TunPath+" (modprobe tun)")
	}
	for _, tool := range append([]string{"ip"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" in PATH")
		}
	}
	if len(missing) == 0 {
		hogFromEnv(t)
		return
	}
	msg := "needs " + strings.Join(missing, ", ")
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// netns is a network namespace of the test's own, removed (with every
// interface in it) when the test ends. Nothing here touches the main namespace.
type netns struct {
	t    testing.TB
	name string
}

func newNetns(t testing.TB) *netns {
	t.Helper()
	var r [4]byte
	if _, err := rand.Read(r[:]); err != nil {
		t.Fatal(err)
	}
	ns := &netns{t: t, name: "mesonemu-test-" + hex.EncodeToString(r[:])}
	run(t, "ip", "netns", "add", ns.name)
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "netns", "del", ns.name).CombinedOutput(); err != nil {
			t.Errorf("ip netns del %s: %v: %s", ns.name, err, out)
		}
	})
	ns.ip("link", "set", "lo", "up")
	return ns
}

// ip runs `ip -n NS args...`.
func (ns *netns) ip(args ...string) string {
	ns.t.Helper()
	return run(ns.t, "ip", append([]string{"-n", ns.name}, args...)...)
}

// addPersistentTAP makes a TAP with `ip tuntap add` inside the namespace and
// gives it the host side's address (the carrier comes when Run attaches).
func (ns *netns) addPersistentTAP(name string) {
	ns.t.Helper()
	ns.ip("tuntap", "add", "dev", name, "mode", "tap")
	ns.configure(name)
}

// configure gives the TAP the host side's address, brings it up and keeps
// IPv6 off it, so the capture holds only the test's traffic.
func (ns *netns) configure(name string) {
	ns.t.Helper()
	run(ns.t, "ip", "netns", "exec", ns.name, "sysctl", "-q", "-w", "net.ipv6.conf."+name+".disable_ipv6=1")
	ns.ip("addr", "add", hostIP+"/24", "dev", name)
	ns.ip("link", "set", name, "up")
}

// tapNetns is a test's namespace with the persistent TAP, and the test's time
// bound d.
func tapNetns(t testing.TB, d time.Duration) (*netns, context.Context) {
	ns := newNetns(t)
	ns.addPersistentTAP(tapName)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ns, ctx
}

// hostServer is Debian's iperf3 -s -1 -J, bound to one of the host side's
// addresses in the namespace.
type hostServer struct {
	cmd         *exec.Cmd
	out, stderr bytes.Buffer
}

// startHostServer starts Debian's iperf3 server on hostIP and returns once
// it listens.
func (ns *netns) startHostServer(ctx context.Context) *hostServer {
	ns.t.Helper()
	return ns.startHostServerOn(ctx, hostIP)
}

// startHostServerOn is startHostServer bound to addr.
func (ns *netns) startHostServerOn(ctx context.Context, addr string) *hostServer {
	ns.t.Helper()
	s := &hostServer{cmd: ns.exec(ctx, 20*time.Second, "iperf3", "-s", "-1", "-J", "-B", addr)}
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.stderr
	if err := s.cmd.Start(); err != nil {
		ns.t.Fatal(err)
	}
	ns.waitListening(ctx, 5201)
	return s
}

// wait waits for the server's one test to end.
func (s *hostServer) wait() error { return s.cmd.Wait() }

// exec runs a command inside the namespace, bounded by timeout.
func (ns *netns) exec(ctx context.Context, timeout time.Duration, name string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	ns.t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns.name, name}, args...)...)
	cmd.WaitDelay = time.Second
	return cmd
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// exists reports whether interface name is in the namespace.
func (ns *netns) exists(name string) bool {
	err := exec.Command("ip", "-n", ns.name, "link", "show", "dev", name).Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		ns.t.Fatal(err)
	}
	return err == nil
}

// waitListening waits until a TCP socket in the namespace listens on port, so
// a client started next is not refused. It polls ss: a probe connection would
// count as a client to a one-off iperf3 server.
func (ns *netns) waitListening(ctx context.Context, port int) {
	ns.t.Helper()
	for {
		out, err := exec.CommandContext(ctx, "ip", "netns", "exec", ns.name, "ss", "-Hltn", fmt.Sprintf("sport = :%d", port)).Output()
		if err == nil && strings.TrimSpace(string(out)) != "" {
			return
		}
		select {
		case <-ctx.Done():
			ns.t.Fatalf("nothing listens on port %d in %s", port, ns.name)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
