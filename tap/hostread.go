package tap

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// hostReader reads the frames a host's kernel writes to a TAP, for the far
// end's bridge and the board's port alike: every read is counted, frames of
// an impossible length are counted and dropped, the rest go to deliver (with
// a buffer it may keep), and a device that keeps failing is given up after a
// back-off rather than spun on.
type hostReader struct {
	tapRead, tooLong, runt, readErrors atomic.Uint64
}

// loop reads port until it is closed (done) or gone; closed says whether the
// owner shut it, so that its read error is the end rather than a failure.
func (r *hostReader) loop(port io.Reader, done <-chan struct{}, deliver func(frame []byte)) {
	buf := make([]byte, readBufLen)
	failures := 0
	for {
		n, err := port.Read(buf)
		if err != nil {
			if isClosed(done) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.EOF) {
				return
			}
			r.readErrors.Add(1)
			if failures++; failures > 100 {
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
		r.tapRead.Add(1)
		switch {
		case n > MaxFrameLen:
			r.tooLong.Add(1)
		case n < MinFrameLen:
			r.runt.Add(1)
		default:
			deliver(append([]byte(nil), buf[:n]...))
		}
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
