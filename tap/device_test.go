package tap

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// The kernel's answers, in a namespace of the test's own: a created TAP is
// not persistent, a second open of it is refused as busy, an existing
// non-TAP interface (lo, a TUN device) is refused as the wrong kind, and a
// device made with `ip tuntap add` is attached to and survives Close.
func TestOpenAgainstTheKernel(t *testing.T) {
	need(t)
	ns := newNetns(t)
	ns.ip("tuntap", "add", "dev", "tun7", "mode", "tun")
	ns.ip("tuntap", "add", "dev", "tap7", "mode", "tap")

	created, err := OpenIn(ns.name, "mesonemu1")
	if err != nil {
		t.Fatal(err)
	}
	if created.Name() != "mesonemu1" || created.Persistent() || !ns.exists("mesonemu1") {
		t.Errorf("created %q persistent %v", created.Name(), created.Persistent())
	}
	for _, tc := range []struct {
		name  string
		errno unix.Errno
	}{
		{"mesonemu1", unix.EBUSY},
		{"lo", unix.EINVAL},
		{"tun7", unix.EINVAL},
	} {
		d, err := OpenIn(ns.name, tc.name)
		var se *SetupError
		if d != nil || !errors.As(err, &se) || !errors.Is(err, tc.errno) || se.Device != tc.name {
			t.Errorf("open %s: %v, want a *SetupError for %v", tc.name, err, tc.errno)
		}
	}
	created.Close()
	if ns.exists("mesonemu1") {
		t.Error("created TAP survived Close")
	}

	auto, err := OpenIn(ns.name, "")
	if err != nil {
		t.Fatal(err)
	}
	if auto.Name() == "" || !ns.exists(auto.Name()) {
		t.Errorf("kernel-named TAP %q not found", auto.Name())
	}
	auto.Close()

	existing, err := OpenIn(ns.name, "tap7")
	if err != nil {
		t.Fatal(err)
	}
	if !existing.Persistent() {
		t.Error("tap7 from `ip tuntap add` not reported persistent")
	}
	existing.Close()
	if !ns.exists("tap7") {
		t.Error("tap7 vanished when we detached")
	}
}
