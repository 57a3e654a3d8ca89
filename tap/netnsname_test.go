package tap

import (
	"errors"
	"strings"
	"testing"
)

// TestMissingTAPHintNamesTheNamespace: run inside a named namespace (as after
// `ip netns exec NS mesonemu --tap X`), the hint for a missing TAP creates it
// there, with `ip -n NS`; in a namespace without a name it is the plain line.
func TestMissingTAPHintNamesTheNamespace(t *testing.T) {
	need(t)
	ns := newNetns(t)
	var inside string
	var err error
	if ierr := InNetns(ns.name, func() error {
		inside = currentNetnsName()
		err = noDeviceError("", "mesonemu5")
		return nil
	}); ierr != nil {
		t.Fatal(ierr)
	}
	if inside != ns.name {
		t.Errorf("inside %s the namespace's name reads %q", ns.name, inside)
	}
	want := "`ip -n " + ns.name + " tuntap add dev mesonemu5 mode tap`"
	if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "sudo") {
		t.Errorf("hint %q, want one with %s and no sudo", err, want)
	}
	if outside := currentNetnsName(); outside == ns.name {
		t.Errorf("outside the namespace its name still reads %q", outside)
	}
}
