package tap

import (
	"io"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"mesonemu/emu"
	"mesonemu/emu/pace"
)

// readerOnly hides a file's SyscallConn, so hostReader reads it on a
// goroutine of its own (the way without the pacer's epoll set).
type readerOnly struct{ io.Reader }

// BenchmarkFrameToEvent measures how long a frame written to a descriptor
// takes to become an event running on a wall-paced engine's loop: read by
// the loop itself from the pacer's epoll set, or by a reader goroutine that
// Go's poller wakes and that then wakes the loop. A pipe stands in for the
// TAP (no root needed; the wake-ups are the same). Two engines, one each way,
// run side by side and take the frames in turn, so a host's load falls on
// both alike. Each has an event every 257 us of its own (the pre-fix RX
// watchdog's period), so it is sometimes asleep in the kernel and sometimes
// spinning to a deadline when a frame comes. Reported per way: median, p99
// and mean latency.
func BenchmarkFrameToEvent(b *testing.B) {
	ways := []*frameWay{newFrameWay(b, true), newFrameWay(b, false)}
	frame := make([]byte, 64)
	i := 0
	for b.Loop() {
		// A gap the engines spend asleep or spinning, as between frames.
		time.Sleep(100 * time.Microsecond)
		w := ways[i%2]
		i++
		t0 := pace.Now()
		if _, err := unix.Write(w.wfd, frame); err != nil {
			b.Fatal(err)
		}
		w.lat = append(w.lat, time.Duration(<-w.arrived-t0))
	}
	for _, w := range ways {
		w.close()
		slices.Sort(w.lat)
		var sum time.Duration
		for _, d := range w.lat {
			sum += d
		}
		n := len(w.lat)
		b.ReportMetric(float64(w.lat[n/2])/1e3, w.name+"-median-us")
		b.ReportMetric(float64(w.lat[n*99/100])/1e3, w.name+"-p99-us")
		b.ReportMetric(float64(sum)/float64(n)/1e3, w.name+"-mean-us")
	}
	b.ReportMetric(0, "ns/op")
}

// frameWay is one engine with a pipe whose frames become its events.
type frameWay struct {
	name    string
	m       *emu.Machine
	wfd     int
	rf      *os.File
	arrived chan int64
	lat     []time.Duration

	done, stop, stopped chan struct{}
	wg                  sync.WaitGroup
	unwatch             func()
}

func newFrameWay(b *testing.B, watched bool) *frameWay {
	w := &frameWay{name: "goroutine", m: emu.NewMachineClock(1, emu.WallPaced), arrived: make(chan int64, 1),
		done: make(chan struct{}), stop: make(chan struct{}), stopped: make(chan struct{})}
	if watched {
		w.name = "epoll"
	}
	if w.m.Pacing().Pacer != "timerfd" {
		b.Skipf("no pacer here: %s", w.m.Pacing().Pacer)
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		b.Fatal(err)
	}
	w.rf, w.wfd = os.NewFile(uintptr(fds[0]), "pipe-r"), fds[1] // non-blocking: Go's poller has it
	var port io.Reader = w.rf
	if !watched {
		port = readerOnly{w.rf}
	}
	var in hostReader
	w.unwatch = in.run(w.m, port, w.done, &w.wg, func([]byte) { w.m.Inject(func() { w.arrived <- pace.Now() }) })
	var tick func()
	tick = func() { w.m.After(257*emu.Microsecond, tick) }
	w.m.Lock()
	tick()
	w.m.Unlock()
	go func() { _ = w.m.Run(w.stop, func() bool { return false }); close(w.stopped) }()
	return w
}

func (w *frameWay) close() {
	close(w.stop)
	<-w.stopped
	close(w.done)
	w.unwatch()
	w.rf.Close()
	unix.Close(w.wfd)
	w.wg.Wait()
	w.m.Stop()
}
