package tap

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ExitSetup is the exit status for a missing device or privilege, as for any
// usage error of the command line.
const ExitSetup = 2

// SetupError says what is missing to open the TAP (a privilege, the TUN driver,
// a namespace, a usable interface) and how to fix it. Its message is one
// sentence meant to be printed as is.
type SetupError struct {
	Device  string // interface name ("" if none was named)
	Problem string // what is missing or wrong
	Fix     string // the command or setting that fixes it
	Err     error  // the system error underneath, if any
	// Kind is the sentinel a caller tests with errors.Is (ErrNoDevice,
	// ErrNoNetns, ErrSameTAP, ErrNoBoardTAP); nil for other failures.
	Kind error
}

// Sentinels of SetupError.Kind: what a command line turns into exit status
// ExitSetup and one line.
var (
	// ErrNoDevice: the named TAP does not exist. Nothing creates one: a
	// typing error must not leave a stray interface behind.
	ErrNoDevice = errors.New("no such TAP device")
	// ErrNoNetns: the named network namespace does not exist.
	ErrNoNetns = errors.New("no such network namespace")
	// ErrSameTAP: both ends of the wire were given the same TAP.
	ErrSameTAP = errors.New("the same TAP for both ends")
	// ErrNoBoardTAP: wire was not given the board-side TAP.
	ErrNoBoardTAP = errors.New("no board-side TAP")
)

func (e *SetupError) Error() string {
	s := "cannot open TAP device"
	if e.Device != "" {
		s += " " + e.Device
	}
	s += ": " + e.Problem
	if e.Err != nil {
		s += fmt.Sprintf(" (%v)", e.Err)
	}
	if e.Fix != "" {
		s += "; fix: " + e.Fix
	}
	return s
}

func (e *SetupError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Kind, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// noDeviceError says that the TAP name does not exist in netns and gives the
// line that makes it.
func noDeviceError(netns, name string) *SetupError {
	fix := fmt.Sprintf("ip tuntap add dev %s mode tap", displayName(name))
	where := "in this network namespace"
	if netns == "" {
		// Run under `ip netns exec NS`: the device belongs in NS too.
		if cur := currentNetnsName(); cur != "" {
			netns, where = cur, "in network namespace "+cur+", where mesonemu runs"
		}
	} else {
		where = "in network namespace " + netns
	}
	if netns != "" {
		fix = fmt.Sprintf("ip -n %s tuntap add dev %s mode tap", netns, displayName(name))
	}
	return &SetupError{Device: name, Kind: ErrNoDevice,
		Problem: "no such interface " + where + " (mesonemu attaches to a TAP, it does not create one)",
		Fix:     "create it, as root, with `" + fix + "`"}
}

func displayName(name string) string {
	if name == "" {
		return "tap0"
	}
	return name
}

// openError explains a failed open of /dev/net/tun.
func openError(name string, err error) error {
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENODEV), errors.Is(err, unix.ENXIO):
		return &SetupError{Device: name, Err: err,
			Problem: TunPath + " is missing (the kernel's TUN/TAP driver is not loaded)",
			Fix:     "run `sudo modprobe tun` (in a container, pass the host's " + TunPath + " through)"}
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return &SetupError{Device: name, Err: err,
			Problem: "no permission to open " + TunPath,
			Fix:     "run as root, or make the device readable and writable for your user (it usually is: mode 0666)"}
	}
	return &SetupError{Device: name, Err: err, Problem: "opening " + TunPath + " failed", Fix: "check that " + TunPath + " is the TUN/TAP character device 10:200"}
}

// attachError explains a failed TUNSETIFF.
func attachError(name string, err error) error {
	n := displayName(name)
	switch {
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return &SetupError{Device: name, Err: err,
			Problem: "the CAP_NET_ADMIN privilege is missing to create or attach to it",
			Fix: fmt.Sprintf("create it once for your user with `sudo ip tuntap add dev %s mode tap user $USER`, "+
				"or run mesonemu with CAP_NET_ADMIN (`sudo setcap cap_net_admin+ep $(which mesonemu)`)", n)}
	case errors.Is(err, unix.EBUSY):
		return &SetupError{Device: name, Err: err,
			Problem: "another process is attached to it",
			Fix:     "stop that process or choose another device name"}
	case errors.Is(err, unix.EINVAL):
		return &SetupError{Device: name, Err: err,
			Problem: "an interface of that name exists but is not a TAP device (a TUN device or another kind)",
			Fix:     fmt.Sprintf("choose another name, or delete it with `sudo ip link del %s` and create it with `sudo ip tuntap add dev %s mode tap user $USER`", n, n)}
	}
	return &SetupError{Device: name, Err: err, Problem: "the kernel refused to attach it",
		Fix: fmt.Sprintf("check `ip -d link show %s`", n)}
}

// netnsError explains a namespace that cannot be entered.
func netnsError(netns, path string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &SetupError{Err: err, Kind: ErrNoNetns, Problem: fmt.Sprintf("network namespace %s does not exist", path),
			Fix: fmt.Sprintf("create it with `sudo ip netns add %s`", netns)}
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return &SetupError{Err: err, Problem: fmt.Sprintf("the CAP_SYS_ADMIN privilege is missing to enter network namespace %s", path),
			Fix: "run as root"}
	case errors.Is(err, unix.EINVAL):
		return &SetupError{Err: err, Problem: fmt.Sprintf("%s is not a network namespace", path),
			Fix: "give a name from `ip netns list` or a /proc/PID/ns/net path"}
	}
	return &SetupError{Err: err, Problem: fmt.Sprintf("cannot enter network namespace %s", path), Fix: "check `ip netns list`"}
}
