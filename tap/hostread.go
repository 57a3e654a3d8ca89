package tap

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"mesonemu/emu"
)

// hostReader reads the frames a host's kernel writes to a TAP, for the far
// end's bridge and the board's port alike: every read is counted, frames of
// an impossible length are counted and dropped, the rest go to deliver (with
// a buffer it may keep), and a device that keeps failing is given up after a
// back-off rather than spun on.
type hostReader struct {
	tapRead, tooLong, runt, readErrors atomic.Uint64

	m        *emu.Machine
	fd       int // the watched fd, -1 when a goroutine reads
	rc       syscall.RawConn
	buf      []byte
	failures int
	deliver  func(frame []byte)
	start    func() // the reader goroutine, for when the watch is lost
}

// watchBurst is the most frames one wake-up of the loop reads from a TAP
// before it runs what is due: a burst of host frames cannot hold the
// board's own events back by more than this many reads.
const watchBurst = 64

// maxFailures is how many reads in a row may fail before the device is taken
// for gone.
const maxFailures = 100

// run reads port into deliver until done is closed or port is gone. When port
// is a file (a TAP) and m's pacer can watch it, m's loop reads it itself
// (emu.Machine.WatchFD): a frame reaches the engine without a reader
// goroutine's wake-up in between, tens of microseconds on a loaded host
// (docs/decisions.md). Otherwise, or once the watch is lost, a goroutine
// counted in wg reads it. stopWatch, called before port is closed, ends the
// watch.
func (r *hostReader) run(m *emu.Machine, port io.Reader, done <-chan struct{}, wg *sync.WaitGroup, deliver func(frame []byte)) (stopWatch func()) {
	r.m, r.fd, r.deliver = m, -1, deliver
	var wgMu sync.Mutex // the lost watch's Add against Close's Wait
	stopped := false
	r.start = func() {
		wgMu.Lock()
		defer wgMu.Unlock()
		if !stopped {
			wg.Add(1)
			go func() { defer wg.Done(); r.loop(port, done) }()
		}
	}
	stopWatch = func() {
		wgMu.Lock()
		stopped = true
		wgMu.Unlock()
		if r.fd >= 0 {
			_ = m.UnwatchFD(r.fd)
		}
	}
	if sc, ok := port.(syscall.Conn); ok && r.watch(sc) {
		return stopWatch
	}
	r.start()
	return stopWatch
}

// watch puts the port's fd in the pacer's epoll set; false: it cannot.
func (r *hostReader) watch(sc syscall.Conn) bool {
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	fd := -1
	if rc.Control(func(f uintptr) { fd = int(f) }) != nil || fd < 0 {
		return false
	}
	r.rc, r.fd, r.buf = rc, fd, make([]byte, readBufLen)
	if !r.m.WatchFD(fd, r.ready, r.start) {
		r.rc, r.fd = nil, -1
		return false
	}
	return true
}

// ready reads up to watchBurst frames from the watched fd (on the machine's
// loop, the fd readable); it returns false when the device is gone.
func (r *hostReader) ready() bool {
	for range watchBurst {
		var n int
		var err error
		if r.rc.Read(func(fd uintptr) bool { n, err = unix.Read(int(fd), r.buf); return true }) != nil {
			return false // closed
		}
		switch {
		case errors.Is(err, unix.EAGAIN):
			return true
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			r.readErrors.Add(1)
			r.failures++
			return r.failures <= maxFailures
		}
		r.failures = 0
		r.count(r.buf[:n])
	}
	return true
}

// count accounts for one frame read and delivers it if its length is one a
// frame can have.
func (r *hostReader) count(frame []byte) {
	r.tapRead.Add(1)
	switch {
	case len(frame) > MaxFrameLen:
		r.tooLong.Add(1)
	case len(frame) < MinFrameLen:
		r.runt.Add(1)
	default:
		r.deliver(append([]byte(nil), frame...))
	}
}

// loop reads port until it is closed (done) or gone; closed says whether the
// owner shut it, so that its read error is the end rather than a failure.
func (r *hostReader) loop(port io.Reader, done <-chan struct{}) {
	buf := make([]byte, readBufLen)
	failures := 0
	for {
		n, err := port.Read(buf)
		if err != nil {
			if isClosed(done) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.EOF) {
				return
			}
			r.readErrors.Add(1)
			if failures++; failures > maxFailures {
				return // the device is gone
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		failures = 0
		r.count(buf[:n])
	}
}

func isClosed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// writeNow writes frame to the watched fd from the loop itself, without
// waking a writer goroutine: one thread hop fewer per frame, and on a loaded
// host each hop is a wait for a CPU. A TAP takes a frame at once or refuses
// it (it never makes a writer wait), so the loop never blocks here. It
// reports false when there is no watched fd (the caller queues the frame for
// its writer), and counts the outcome in written, failed or closed.
func (r *hostReader) writeNow(frame []byte, written, failed, closed *atomic.Uint64) bool {
	if r.rc == nil {
		return false
	}
	var err error
	if r.rc.Write(func(fd uintptr) bool { _, err = unix.Write(int(fd), frame); return true }) != nil {
		closed.Add(1)
		return true
	}
	if err != nil {
		failed.Add(1)
	} else {
		written.Add(1)
	}
	return true
}
