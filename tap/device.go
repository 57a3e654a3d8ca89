package tap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TunPath is the TUN/TAP clone device.
const TunPath = "/dev/net/tun"

// NetnsDir is where `ip netns add NAME` pins named network namespaces.
const NetnsDir = "/var/run/netns"

// Device is an open TAP interface: each Read returns one Ethernet frame from
// the host kernel (no FCS), each Write gives it one.
type Device struct {
	f          *os.File
	name       string
	persistent bool
}

// Name is the interface name (the kernel picks one when Open was given "").
func (d *Device) Name() string { return d.name }

// Persistent reports whether the device outlives Close: true for one made with
// `ip tuntap add`, false for one this process created.
func (d *Device) Persistent() bool { return d.persistent }

// Read reads one frame. It blocks until a frame arrives or Close is called
// (then it returns os.ErrClosed). A buffer shorter than the frame gets its
// first len(p) bytes (the kernel truncates).
func (d *Device) Read(p []byte) (int, error) { return d.f.Read(p) }

// Write sends one frame to the host kernel.
func (d *Device) Write(p []byte) (int, error) { return d.f.Write(p) }

// Close releases the device; a non-persistent device disappears.
func (d *Device) Close() error { return d.f.Close() }

// Open attaches to the TAP interface name in the process's network namespace,
// creating it if absent ("" lets the kernel choose tapN).
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
		return openTap(name)
	}
	var d *Device
	err := InNetns(netns, func() error {
		var err error
		d, err = openTap(name)
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

// ifreq is struct ifreq as TUNSETIFF and TUNGETIFF use it: the name, then the
// flags in the union, padded to the union's 24 bytes.
type ifreq struct {
	name  [unix.IFNAMSIZ]byte
	flags uint16
	_     [22]byte
}

func ioctlIfreq(fd int, req uint, r *ifreq) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(r)))
	if errno != 0 {
		return errno
	}
	return nil
}

// openTap opens the clone device and attaches (or creates) a TAP without
// packet information headers, leaving an existing device's flags alone.
func openTap(name string) (*Device, error) {
	fd, err := unix.Open(TunPath, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, openError(name, err)
	}
	var r ifreq
	copy(r.name[:], name)
	r.flags = unix.IFF_TAP | unix.IFF_NO_PI
	if err := ioctlIfreq(fd, unix.TUNSETIFF, &r); err != nil {
		unix.Close(fd)
		return nil, attachError(name, err)
	}
	var got ifreq
	if err := ioctlIfreq(fd, unix.TUNGETIFF, &got); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("tap %s: read interface flags: %w", name, err)
	}
	n := got.name[:]
	if i := bytes.IndexByte(n, 0); i >= 0 {
		n = n[:i]
	}
	d := &Device{name: string(n), persistent: got.flags&unix.IFF_PERSIST != 0}
	d.f = os.NewFile(uintptr(fd), TunPath+":"+d.name)
	if d.f == nil {
		unix.Close(fd)
		return nil, errors.New("tap: wrap file descriptor")
	}
	return d, nil
}
