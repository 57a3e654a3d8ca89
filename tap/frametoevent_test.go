package tap

import (
	"io"
	"os"
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
// TAP (no root needed; the wake-ups are the same). The engine has an event
// every 257 us of its own (the pre-fix RX watchdog's period), so it is
// sometimes asleep in the kernel and sometimes spinning to a deadline when
// the frame comes. Reported: mean and p99 of the latency, per way.
func BenchmarkFrameToEvent(b *testing.B) {
	for _, way := range []string{"epoll", "goroutine"} {
		b.Run(way, func(b *testing.B) {
			var r pace.Recorder
			frameToEvent(b, way == "epoll", &r)
			s := r.Summary()
			b.ReportMetric(float64(s.MeanNs)/1e3, "mean-us")
			b.ReportMetric(float64(s.P99Ns)/1e3, "p99-us")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func frameToEvent(b *testing.B, watched bool, rec *pace.Recorder) {
	m := emu.NewMachineClock(1, emu.WallPaced)
	defer m.Stop()
	if m.Pacing().Pacer != "timerfd" {
		b.Skipf("no pacer here: %s", m.Pacing().Pacer)
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		b.Fatal(err)
	}
	rf := os.NewFile(uintptr(fds[0]), "pipe-r") // non-blocking: Go's poller has it
	defer rf.Close()
	defer unix.Close(fds[1])
	var port io.Reader = rf
	if !watched {
		port = readerOnly{rf}
	}
	arrived := make(chan int64, 1)
	var in hostReader
	var wg sync.WaitGroup
	done := make(chan struct{})
	unwatch := in.run(m, port, done, &wg, func([]byte) { m.Inject(func() { arrived <- pace.Now() }) })
	var tick func()
	tick = func() { m.After(257*emu.Microsecond, tick) }
	m.Lock()
	tick()
	m.Unlock()
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() { _ = m.Run(stop, func() bool { return false }); close(stopped) }()
	frame := make([]byte, 64)
	for b.Loop() {
		// A gap the engine spends asleep or spinning, as between a host's frames.
		time.Sleep(100 * time.Microsecond)
		t0 := pace.Now()
		if _, err := unix.Write(fds[1], frame); err != nil {
			b.Fatal(err)
		}
		rec.Add(time.Duration(<-arrived - t0))
	}
	close(stop)
	<-stopped
	close(done)
	unwatch()
	rf.Close()
	wg.Wait()
}
