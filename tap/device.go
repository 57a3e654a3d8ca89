package tap

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/songgao/water"
	"golang.org/x/sys/unix"
)

// TunPath is the TUN/TAP clone device.
const TunPath = "/dev/net/tun"

// NetnsDir is where `ip netns add NAME` pins named network namespaces.
const NetnsDir = "/var/run/netns"

// Device is an open TAP interface: each Read returns one Ethernet frame from
// the host kernel (no FCS), each Write gives it one.
type Device struct {
	f          io.ReadWriteCloser // water's *os.File: non-blocking, so Close wakes a blocked Read
	name       string
	persistent bool
}

// Name is the interface name (the kernel picks one when Open was given "").
func (d *Device) Name() string { return d.name }

// Persistent reports whether the device outlives Close. Open only attaches
// to devices made with `ip tuntap add`, so it is always true; it stays for
// callers that report it.
func (d *Device) Persistent() bool { return d.persistent }

// Read reads one frame. It blocks until a frame arrives or Close is called
// (then it returns os.ErrClosed). A buffer shorter than the frame gets its
// first len(p) bytes (the kernel truncates).
func (d *Device) Read(p []byte) (int, error) { return d.f.Read(p) }

// Write sends one frame to the host kernel.
func (d *Device) Write(p []byte) (int, error) { return d.f.Write(p) }

// SyscallConn is the device file's raw connection: the engine's loop reads
// the fd itself when its pacer can watch it.
func (d *Device) SyscallConn() (syscall.RawConn, error) {
	sc, ok := d.f.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("tap %s: %T is not a file", d.name, d.f)
	}
	return sc.SyscallConn()
}

// Close releases the device; the interface stays.
func (d *Device) Close() error { return d.f.Close() }

// Open attaches to the existing TAP interface name in the process's network
// namespace. A name that does not exist (or "") is refused with a *SetupError
// whose Kind is ErrNoDevice and whose Fix is the `ip tuntap add` line.
func Open(name string) (*Device, error) { return OpenIn("", name) }

// OpenIn is Open inside the network namespace netns: a name from `ip netns
// add` (looked up in /var/run/netns) or a path to a namespace file. "" means
// the current namespace. Only the opening thread enters the namespace, and
// only while opening: the interface lives in netns, the process stays where it
// is. The kernel binds a TUN/TAP fd to the namespace it was opened in, so the
// device keeps working after the thread has gone back.
func OpenIn(netns, name string) (*Device, error) {
	if len(name) >= unix.IFNAMSIZ {
		return nil, &SetupError{Device: name, Problem: fmt.Sprintf("interface name %q is longer than %d bytes", name, unix.IFNAMSIZ-1),
			Fix: "choose a shorter name"}
	}
	if netns == "" {
		return openTap("", name)
	}
	var d *Device
	err := InNetns(netns, func() error {
		var err error
		d, err = openTap(netns, name)
		return err
	})
	if err != nil {
		if d != nil {
			d.Close()
		}
		var se *SetupError
		if errors.As(err, &se) && se.Device == "" {
			se.Device = name
		}
		return nil, err
	}
	return d, nil
}

// InNetns runs fn on a thread that has entered network namespace netns (a
// name from `ip netns add` or a path), then puts the thread back. Sockets and
// TAP fds that fn opens stay in netns. "" runs fn where it is.
func InNetns(netns string, fn func() error) error {
	if netns == "" {
		return fn()
	}
	path := netns
	if !filepath.IsAbs(path) {
		path = filepath.Join(NetnsDir, netns)
	}
	ch := make(chan error, 1)
	// A fresh goroutine owns the thread that changes namespace: if switching
	// back fails it exits still locked, and the runtime then kills the thread
	// instead of reusing it in the wrong namespace.
	go func() {
		runtime.LockOSThread()
		err, restored := inNetns(path, netns, fn)
		if restored {
			runtime.UnlockOSThread()
		}
		ch <- err
	}()
	return <-ch
}

func inNetns(path, netns string, fn func() error) (err error, restored bool) {
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return fmt.Errorf("tap: read this thread's network namespace: %w", err), true
	}
	defer orig.Close()
	target, err := os.Open(path)
	if err != nil {
		return netnsError(netns, path, err), true
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return netnsError(netns, path, err), true
	}
	err = fn()
	if rerr := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); rerr != nil {
		return errors.Join(err, fmt.Errorf("tap: return to the original network namespace: %w", rerr)), false
	}
	return err, true
}

// openMu serialises openTap, so a /dev/net/tun fd that appears while one
// open runs is that open's own (see reclaimLeaked).
var openMu sync.Mutex

// openTap attaches to an existing TAP without packet information headers
// through water, in the calling thread's network namespace (named netns, for
// the error). water sets the persist flag to Config.Persist after attaching,
// so Persist is on: an `ip tuntap add` device keeps its flag
// (docs/decisions.md). A name that does not exist is refused before water
// runs, since TUNSETIFF would create it.
func openTap(netns, name string) (*Device, error) {
	existed, err := interfaceExists(name)
	if err != nil {
		return nil, fmt.Errorf("tap %s: list interfaces: %w", displayName(name), err)
	}
	if !existed {
		return nil, noDeviceError(netns, name)
	}
	cfg := water.Config{DeviceType: water.TAP}
	cfg.Name = name
	cfg.Persist = true

	openMu.Lock()
	defer openMu.Unlock()
	before, err := tunFDs()
	if err != nil {
		return nil, fmt.Errorf("tap %s: list open files: %w", displayName(name), err)
	}
	// water opens without O_CLOEXEC; the fork lock keeps a concurrent exec
	// (the tests run ip and iperf3) from inheriting the fd before it is set,
	// which would keep a created TAP alive after Close.
	syscall.ForkLock.RLock()
	ifce, err := water.New(cfg)
	if err == nil {
		err = closeOnExec(ifce.ReadWriteCloser)
		if err != nil {
			ifce.Close()
		}
	} else {
		reclaimLeaked(name, before)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, setupFailure(name, err)
	}
	return &Device{f: ifce.ReadWriteCloser, name: ifce.Name(), persistent: existed}, nil
}

// setupFailure explains water's error: a failed open of /dev/net/tun comes as
// the bare errno, a refused ioctl (TUNSETIFF) as an *os.SyscallError.
func setupFailure(name string, err error) error {
	var sce *os.SyscallError
	if errors.As(err, &sce) {
		return attachError(name, sce.Err)
	}
	return openError(name, err)
}

func interfaceExists(name string) (bool, error) {
	if name == "" {
		return false, nil
	}
	ifs, err := net.Interfaces() // netlink, so in this thread's namespace (not sysfs's)
	if err != nil {
		return false, err
	}
	for _, i := range ifs {
		if i.Name == name {
			return true, nil
		}
	}
	return false, nil
}

func closeOnExec(f io.ReadWriteCloser) error {
	sc, ok := f.(syscall.Conn)
	if !ok {
		return fmt.Errorf("tap: water returned a %T, not a file", f)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { unix.CloseOnExec(int(fd)) })
}

// tunFDs lists this process's fds open on the TUN clone device.
func tunFDs() (map[int]bool, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	fds := make(map[int]bool)
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && link == TunPath {
			fds[fd] = true
		}
	}
	return fds, nil
}

// reclaimLeaked closes the fd water leaves open when an ioctl fails (it
// returns the error without closing it): an fd on /dev/net/tun that was not
// there before this open and is attached to no interface (its fdinfo shows an
// empty "iff:") or to the one being opened.
func reclaimLeaked(name string, before map[int]bool) {
	after, err := tunFDs()
	if err != nil {
		return
	}
	for fd := range after {
		if before[fd] {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
		if err == nil && (strings.Contains(string(info), "\niff:\t\n") || name != "" && strings.Contains(string(info), "\niff:\t"+name+"\n")) {
			unix.Close(fd)
		}
	}
}
