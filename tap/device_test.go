package tap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"mesonemu/sim"
)

// The kernel's answers, in a namespace of the test's own: a name that does not
// exist is refused with ErrNoDevice and the line that makes it, and nothing
// is created; a device made with `ip tuntap add` is attached to, a second
// open of it is refused as busy, an existing non-TAP interface (lo, a TUN
// device) as the wrong kind, and it survives Close with its persist flag
// (water would clear it). No refused open leaves an fd behind, and the TAP's
// fd is not inherited by the programs the process runs.
func TestOpenAgainstTheKernel(t *testing.T) {
	need(t)
	ns := newNetns(t)
	ns.ip("tuntap", "add", "dev", "tun7", "mode", "tun")
	ns.ip("tuntap", "add", "dev", "tap7", "mode", "tap")

	for _, tc := range []struct{ name, fix string }{
		{"mesonemu1", "`ip -n " + ns.name + " tuntap add dev mesonemu1 mode tap`"},
		{"", "`ip -n " + ns.name + " tuntap add dev tap0 mode tap`"},
	} {
		d, err := OpenIn(ns.name, tc.name)
		var se *SetupError
		if d != nil || !errors.Is(err, ErrNoDevice) || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.fix) {
			t.Errorf("open %q: %v, want ErrNoDevice with the fix %s", tc.name, err, tc.fix)
		}
		if tc.name != "" && ns.exists(tc.name) {
			t.Errorf("open %q created the interface", tc.name)
		}
	}
	if n := len(openTunFDs(t)); n != 0 {
		t.Errorf("%d fds on %s after refusing missing devices, want 0", n, TunPath)
	}

	existing, err := OpenIn(ns.name, "tap7")
	if err != nil {
		t.Fatal(err)
	}
	if existing.Name() != "tap7" || !existing.Persistent() {
		t.Errorf("opened %q persistent %v", existing.Name(), existing.Persistent())
	}
	fds := openTunFDs(t)
	if len(fds) != 1 {
		t.Fatalf("%d fds on %s after one open, want 1", len(fds), TunPath)
	}
	for fd := range fds {
		if !closeOnExecSet(t, fd) {
			t.Errorf("TAP fd %d lacks close-on-exec", fd)
		}
	}
	for _, tc := range []struct {
		name  string
		errno unix.Errno
	}{
		{"tap7", unix.EBUSY},
		{"lo", unix.EINVAL},
		{"tun7", unix.EINVAL},
	} {
		d, err := OpenIn(ns.name, tc.name)
		var se *SetupError
		if d != nil || !errors.As(err, &se) || !errors.Is(err, tc.errno) || se.Device != tc.name {
			t.Errorf("open %s: %v, want a *SetupError for %v", tc.name, err, tc.errno)
		}
	}
	if n := len(openTunFDs(t)); n != 1 {
		t.Errorf("%d fds on %s after the refused opens, want 1 (a refused open leaked its fd)", n, TunPath)
	}
	existing.Close()
	if !ns.exists("tap7") {
		t.Error("tap7 vanished when we detached")
	} else if !persistOn(ns, "tap7") {
		t.Error("tap7 lost its persist flag")
	}
	if n := len(openTunFDs(t)); n != 0 {
		t.Errorf("%d fds on %s after every device was closed", n, TunPath)
	}
}

// TestRunKeepsPersistentTAP: a TAP made with `ip tuntap add` is still there,
// persistent, after a whole Run has attached to it and let go.
func TestRunKeepsPersistentTAP(t *testing.T) {
	need(t)
	ns := newNetns(t)
	ns.addPersistentTAP(tapName)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, c, err := Run(ctx, Options{Sim: sim.Options{Seed: 1}, TAP: tapName, Netns: ns.name, Ready: func(string) { cancel() }})
	if err != nil || code != 0 || c == nil {
		t.Fatalf("Run: code %d, counters %v, %v", code, c, err)
	}
	if !ns.exists(tapName) || !persistOn(ns, tapName) {
		t.Fatalf("%s after Run: exists %v; want it there with persist on", tapName, ns.exists(tapName))
	}
}

// persistOn reads the device's persist flag as `ip -d link` shows it.
func persistOn(ns *netns, name string) bool {
	return strings.Contains(ns.ip("-d", "link", "show", "dev", name), " persist on ")
}

func openTunFDs(t *testing.T) map[int]bool {
	t.Helper()
	fds, err := tunFDs()
	if err != nil {
		t.Fatal(err)
	}
	return fds
}

// closeOnExecSet reads O_CLOEXEC from the fd's flags in /proc (octal).
func closeOnExecSet(t *testing.T, fd int) bool {
	t.Helper()
	info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:\t"); ok {
			flags, err := strconv.ParseUint(v, 8, 64)
			if err != nil {
				t.Fatalf("fdinfo flags %q: %v", v, err)
			}
			return flags&unix.O_CLOEXEC != 0
		}
	}
	t.Fatalf("no flags in fdinfo %q", info)
	return false
}
