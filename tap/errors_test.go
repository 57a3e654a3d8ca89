package tap

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"mesonemu/sim"
)

func TestSetupErrorsNameWhatIsMissingAndTheFix(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		errno unix.Errno
		want  []string
	}{
		{"no tun driver", openError("tap9", unix.ENOENT), unix.ENOENT,
			[]string{"cannot open TAP device tap9", "/dev/net/tun is missing", "`sudo modprobe tun`"}},
		{"tun not accessible", openError("tap9", unix.EACCES), unix.EACCES,
			[]string{"no permission to open /dev/net/tun"}},
		{"no CAP_NET_ADMIN", attachError("tap9", unix.EPERM), unix.EPERM,
			[]string{"CAP_NET_ADMIN privilege is missing", "`sudo ip tuntap add dev tap9 mode tap user $USER`", "cap_net_admin+ep"}},
		{"kernel-chosen name", attachError("", unix.EPERM), unix.EPERM,
			[]string{"cannot open TAP device:", "ip tuntap add dev tap0 mode tap user $USER"}},
		{"in use", attachError("tap9", unix.EBUSY), unix.EBUSY,
			[]string{"another process is attached"}},
		{"not a TAP", attachError("eth0", unix.EINVAL), unix.EINVAL,
			[]string{"exists but is not a TAP device", "`sudo ip link del eth0`"}},
		// water's errors: the open's errno bare, an ioctl's in an *os.SyscallError.
		{"water: no tun driver", setupFailure("tap9", unix.ENOENT), unix.ENOENT,
			[]string{"/dev/net/tun is missing (the kernel's TUN/TAP driver is not loaded) (no such file or directory); fix: run `sudo modprobe tun`"}},
		{"water: TUNSETIFF busy", setupFailure("tap9", os.NewSyscallError("ioctl", unix.EBUSY)), unix.EBUSY,
			[]string{"cannot open TAP device tap9: another process is attached to it (device or resource busy); fix: "}},
		{"water: TUNSETIFF refused", setupFailure("tap9", os.NewSyscallError("ioctl", unix.EPERM)), unix.EPERM,
			[]string{"CAP_NET_ADMIN privilege is missing to create or attach to it (operation not permitted); fix: "}},
		{"no namespace", netnsError("lab", "/var/run/netns/lab", os.ErrNotExist), 0,
			[]string{"network namespace /var/run/netns/lab does not exist", "`sudo ip netns add lab`"}},
		{"namespace not allowed", netnsError("lab", "/var/run/netns/lab", unix.EPERM), unix.EPERM,
			[]string{"CAP_SYS_ADMIN privilege is missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var se *SetupError
			if !errors.As(tc.err, &se) {
				t.Fatalf("%T is not a *SetupError", tc.err)
			}
			msg := tc.err.Error()
			if strings.Contains(msg, "\n") || se.Problem == "" || se.Fix == "" {
				t.Errorf("not one sentence with problem and fix: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
			if tc.errno != 0 && !errors.Is(tc.err, tc.errno) {
				t.Errorf("%q does not wrap %v", msg, tc.errno)
			}
		})
	}
}

// A namespace that does not exist is a setup error with exit status 2 before
// anything boots, and it needs no privilege to find out.
func TestRunMissingNamespaceIsSetupError(t *testing.T) {
	code, c, err := Run(context.Background(), Options{TAP: "tap9", Netns: "mesonemu-test-does-not-exist"})
	var se *SetupError
	if code != ExitSetup || c != nil || !errors.As(err, &se) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Run: code %d, counters %v, err %v; want %d and a *SetupError", code, c, err, ExitSetup)
	}
	t.Log(err)
}

func TestRunRejectsBadArgumentsBeforeOpening(t *testing.T) {
	var stderr strings.Builder
	code, c, err := Run(context.Background(), Options{TAP: "tap9", Netns: "mesonemu-test-does-not-exist",
		Iperf3Args: []string{"-c"}, Stderr: &stderr})
	if code != 1 || c != nil || err != nil {
		t.Errorf("Run: code %d, counters %v, err %v; want iperf3's parameter error, status 1", code, c, err)
	}
	if !strings.HasPrefix(stderr.String(), "iperf3: parameter error - ") {
		t.Errorf("stderr %q", stderr.String())
	}
	if _, _, err := Run(context.Background(), Options{TAP: "tap9", Netns: "x", Sim: simBad}); err == nil || errors.As(err, new(*SetupError)) {
		t.Errorf("bad sim options: %v", err)
	}
	if _, _, err := Run(context.Background(), Options{TAP: strings.Repeat("t", 16)}); !errors.As(err, new(*SetupError)) {
		t.Errorf("16-byte interface name: %v", err)
	}
}

var simBad = sim.Options{Driver: "post-fix"}
