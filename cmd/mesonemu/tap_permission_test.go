package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// childArgsEnv carries the command line of a child run of this test binary:
// TestMain then runs the CLI with it and exits with its status.
const childArgsEnv = "MESONEMU_TEST_CLI_ARGS"

func TestMain(m *testing.M) {
	if a, ok := os.LookupEnv(childArgsEnv); ok {
		os.Exit(runProcess(strings.Split(a, "\x1f")))
	}
	os.Exit(m.Run())
}

// TestCLITAPWithoutPermission: a user who may not open a TAP device asks for
// one and gets exit status 2 with one line that says why and what to do. As
// root, the CLI runs as a child of this test as user nobody (setpriv) inside a
// network namespace of its own (unshare) where the device exists, so nothing
// can reach the main namespace. Otherwise the device is missing, and the
// refusal says how to create it.
func TestCLITAPWithoutPermission(t *testing.T) {
	args := []string{"--tap", "mesonemu-perm0", "iperf3", "-s"}
	var code int
	var stdout, stderr string
	if os.Geteuid() != 0 {
		code, stdout, stderr = runCLI(args...)
	} else {
		code, stdout, stderr = runAsNobody(t, args)
	}
	// Where /dev/net/tun is not world-writable the open fails; where it is (mode
	// 0666, the usual udev rule) creating the device needs CAP_NET_ADMIN.
	why := strings.Contains(stderr, "no permission to open /dev/net/tun") ||
		strings.Contains(stderr, "the CAP_NET_ADMIN privilege is missing") ||
		os.Geteuid() != 0 && strings.Contains(stderr, "ip tuntap add dev mesonemu-perm0 mode tap")
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if code != 2 || stdout != "" || len(lines) != 1 || !strings.Contains(stderr, "TAP device mesonemu-perm0") || !why {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line: the TAP device, and the missing permission or privilege", code, stdout, stderr)
	}
}

// runAsNobody runs the CLI as user nobody in a new network namespace: a copy
// of this test binary that nobody may execute, started by unshare and setpriv.
func runAsNobody(t *testing.T, args []string) (int, string, string) {
	t.Helper()
	var missing []string
	for _, tool := range []string{"unshare", "setpriv", "ip", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" (util-linux)")
		}
	}
	if len(missing) > 0 {
		msg := "needs " + strings.Join(missing, ", ")
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "mesonemu-perm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "mesonemu.test")
	if err := copyExecutable(self, bin); err != nil {
		t.Fatal(err)
	}
	// The device exists in the namespace (root made it), so the refusal is
	// about opening it.
	cmd := exec.Command("unshare", "--net", "sh", "-c", `ip tuntap add dev "$1" mode tap && exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$2"`,
		"sh", "mesonemu-perm0", bin)
	cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\x1f"))
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("unshare/setpriv: %v: %s", err, errb.String())
	return 0, "", ""
}

func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
