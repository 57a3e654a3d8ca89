package main

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"strings"

	"mesonemu/tap"
)

// End is one side of the link: a network namespace the relay creates, with
// one TAP device holding one address.
type End struct {
	Netns  string       // name for `ip netns add`
	Device string       // TAP interface name inside Netns
	Addr   netip.Prefix // the interface's address, e.g. 198.18.9.2/24
}

func (e End) validate() error {
	switch {
	case e.Netns == "" || strings.ContainsAny(e.Netns, "/ \t\n"):
		return fmt.Errorf("namespace %q: want a plain name", e.Netns)
	case e.Device == "" || len(e.Device) > 15:
		return fmt.Errorf("device %q: want a name of 1-15 bytes", e.Device)
	case !e.Addr.IsValid() || !e.Addr.Addr().Is4():
		return fmt.Errorf("address %v: want an IPv4 prefix", e.Addr)
	}
	return nil
}

// ip runs one iproute2 command and returns its error with its output.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// setUp creates e's namespace and TAP, addresses it, switches IPv6 off (so
// only the traffic under test crosses the link) and opens the TAP. On error
// nothing of e is left behind.
func (e End) setUp() (io.ReadWriteCloser, error) {
	if err := ip("netns", "add", e.Netns); err != nil {
		return nil, err
	}
	steps := [][]string{
		{"-n", e.Netns, "tuntap", "add", "dev", e.Device, "mode", "tap"},
		{"-n", e.Netns, "addr", "add", e.Addr.String(), "dev", e.Device},
		{"-n", e.Netns, "link", "set", "lo", "up"},
		{"-n", e.Netns, "link", "set", e.Device, "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return nil, errors.Join(err, e.tearDown())
		}
	}
	if err := e.disableIPv6(); err != nil {
		return nil, errors.Join(err, e.tearDown())
	}
	dev, err := tap.OpenIn(e.Netns, e.Device)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open %s in %s: %w", e.Device, e.Netns, err), e.tearDown())
	}
	return dev, nil
}

// disableIPv6 writes the namespace's own sysctl (the /proc/sys/net of a
// thread inside it).
func (e End) disableIPv6() error {
	return tap.InNetns(e.Netns, func() error {
		for _, k := range []string{"all", "default", e.Device} {
			p := "/proc/sys/net/ipv6/conf/" + k + "/disable_ipv6"
			if err := os.WriteFile(p, []byte("1"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("%s: switch IPv6 off: %w", e.Netns, err)
			}
		}
		return nil
	})
}

// tearDown removes the namespace; its TAP goes with it. Processes still
// inside keep it alive until they exit: whoever started them stops them.
func (e End) tearDown() error { return ip("netns", "del", e.Netns) }
