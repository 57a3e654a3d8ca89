package tap

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"mesonemu/sim"
)

// framePort is an in-memory TAP: frames put in `in` are what the kernel
// sends (Read returns them), Write counts what the kernel would receive.
type framePort struct {
	in   chan []byte
	done chan struct{}
	once sync.Once

	mu  sync.Mutex
	got int
}

func newFramePort() *framePort {
	return &framePort{in: make(chan []byte, 10000), done: make(chan struct{})}
}

func (p *framePort) Read(b []byte) (int, error) {
	select {
	case f := <-p.in:
		return copy(b, f), nil
	case <-p.done:
		return 0, os.ErrClosed
	}
}

func (p *framePort) Write(b []byte) (int, error) {
	select {
	case <-p.done:
		return 0, os.ErrClosed
	default:
	}
	p.mu.Lock()
	p.got++
	p.mu.Unlock()
	return len(b), nil
}

func (p *framePort) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

func (p *framePort) received() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.got
}

// ipv4Frame is a frame of n bytes (without FCS) from src to dst, with seq in
// its payload so that each is different.
func ipv4Frame(n int, dst, src byte, seq int) []byte {
	f := make([]byte, n)
	copy(f, []byte{0x02, 0, 0, 0, 0, dst, 0x02, 0, 0, 0, 0, src, 0x08, 0x00})
	binary.BigEndian.PutUint32(f[20:], uint32(seq))
	return f
}

// TestWirePortsCountEveryFrame: the whole path between two in-memory TAPs,
// no root needed. The board's Linux sends a runt, an oversize frame and a
// burst of 5000 full frames, far more than the board's qdisc (1000) and TX
// ring (512) take at once on a 100 Mbit/s link; the PC sends 100. Every frame arrives or is counted by
// its cause, and the fixed board's wire breaks none.
func TestWirePortsCountEveryFrame(t *testing.T) {
	boardLinux, pcLinux := newFramePort(), newFramePort()
	// At 100 Mbit/s the cable drains 8100 full frames a second, so the
	// burst outruns it whatever the host's speed.
	so := fixedBoard
	so.Speed = 100
	w := &wire{o: WireOptions{Sim: so, BoardTAP: "board0", TAP: "pc0", Stderr: io.Discard},
		boardDev: boardLinux, pcDev: pcLinux}
	defer w.close()
	const burst, back = 5000, 100
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Queued before the board's port starts reading, so the whole burst
	// reaches the board at once, as from a Linux whose TCP window opened.
	boardLinux.in <- make([]byte, 10)
	boardLinux.in <- make([]byte, MaxFrameLen+1)
	for i := range burst {
		boardLinux.in <- ipv4Frame(1514, 1, 2, i)
	}
	w.o.Ready = func() {
		go func() {
			defer cancel()
			for i := range back {
				pcLinux.in <- ipv4Frame(60, 2, 1, i)
			}
			// Wait until both directions went quiet.
			last := -1
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(200 * time.Millisecond):
				}
				n := boardLinux.received() + pcLinux.received()
				if n == last {
					return
				}
				last = n
			}
		}()
	}
	r, err := w.run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Conservation(); err != nil {
		t.Errorf("frames not conserved:\n%v", err)
	}
	c := func(where, name string) uint64 { return r.must(t, where, name) }
	full := c("board port tap->eth0", "drop_qdisc_full")
	toQdisc := c("board port tap->eth0", "to_qdisc")
	t.Logf("board: %d read, %d runt, %d too long, %d qdisc full, %d queued; PC got %d; board's Linux got %d",
		c("board port tap->eth0", "tap_read"), c("board port tap->eth0", "drop_runt"), c("board port tap->eth0", "drop_too_long"),
		full, toQdisc, pcLinux.received(), boardLinux.received())
	if c("board port tap->eth0", "tap_read") != burst+2 || c("board port tap->eth0", "drop_runt") != 1 ||
		c("board port tap->eth0", "drop_too_long") != 1 {
		t.Errorf("board port: read %d (runt %d, too long %d), want %d (1, 1)", c("board port tap->eth0", "tap_read"),
			c("board port tap->eth0", "drop_runt"), c("board port tap->eth0", "drop_too_long"), burst+2)
	}
	if full == 0 || full+toQdisc != burst {
		t.Errorf("a burst of %d: %d queued, %d dropped at the full qdisc; want some of each", burst, toQdisc, full)
	}
	if got := uint64(pcLinux.received()); got != toQdisc || c("pc nic", "rx_crc_errors") != 0 {
		t.Errorf("PC's Linux got %d frames of %d queued (%d bad FCS); the fixed wire loses none", got, toQdisc, c("pc nic", "rx_crc_errors"))
	}
	if got := boardLinux.received(); got != back {
		t.Errorf("board's Linux got %d frames of the PC's %d", got, back)
	}
}

// BenchmarkWirePorts: the fixed board carrying full frames from an in-memory
// board-side TAP to an in-memory PC-side one, in real time, with at most 1000
// frames in flight so that no queue overflows. It measures the emulator's own
// share of a wire run's host cost: frames per wall second (the line rate
// bounds it at ~81000) and the process's CPU per frame. The kernels' TAP
// reads and writes are not in it. Run with -benchtime 200000x.
func BenchmarkWirePorts(b *testing.B) {
	boardLinux, pcLinux := newFramePort(), newFramePort()
	w := &wire{o: WireOptions{Sim: fixedBoard, BoardTAP: "board0", TAP: "pc0", Stderr: io.Discard},
		boardDev: boardLinux, pcDev: pcLinux}
	defer w.close()
	ctx, cancel := context.WithCancel(context.Background())
	var wall, cpu float64
	w.o.Ready = func() {
		go func() {
			defer cancel()
			frame := ipv4Frame(1514, 1, 2, 0)
			start, cpu0 := time.Now(), cpuSeconds()
			for i := 0; i < b.N; i++ {
				for i-pcLinux.received() >= 1000 {
					time.Sleep(50 * time.Microsecond)
				}
				boardLinux.in <- frame
			}
			for pcLinux.received() < b.N {
				if time.Since(start) > time.Minute {
					return
				}
				time.Sleep(time.Millisecond)
			}
			wall, cpu = time.Since(start).Seconds(), cpuSeconds()-cpu0
		}()
	}
	if _, err := w.run(ctx); err != nil {
		b.Fatal(err)
	}
	if wall == 0 {
		b.Fatalf("%d of %d frames arrived", pcLinux.received(), b.N)
	}
	b.ReportMetric(float64(b.N)/wall, "frames/s")
	b.ReportMetric(cpu/float64(b.N)*1e6, "cpu-us/frame")
	b.ReportMetric(0, "ns/op")
}

// TestFramesReadWhenTheMachineStopsAreCounted: frames both ports read while
// the machine is not running never become events; Close counts them as
// drop_machine_stopped, so conservation holds however far a busy host let
// the machine fall behind.
func TestFramesReadWhenTheMachineStopsAreCounted(t *testing.T) {
	s, err := sim.New(fixedBoard) // booted in virtual time; nothing runs it afterwards
	if err != nil {
		t.Fatal(err)
	}
	boardLinux, pcLinux := newFramePort(), newFramePort()
	port := NewBoardPort(s.Machine(), s.Guest.MAC, nil, boardLinux, 0)
	bridge := NewBridge(s.Machine(), s.Hardware().FarEnd(), pcLinux, BridgeConfig{})
	const n = 10
	for i := range n {
		boardLinux.in <- ipv4Frame(1514, 1, 2, i)
		pcLinux.in <- ipv4Frame(60, 2, 1, i)
	}
	for deadline := time.Now().Add(5 * time.Second); port.in.tapRead.Load()+bridge.in.tapRead.Load() < 2*n; {
		if time.Now().After(deadline) {
			t.Fatalf("read %d and %d frames of %d", port.in.tapRead.Load(), bridge.in.tapRead.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
	port.Close()
	bridge.Close()
	if c := port.Counters(); c.TapRead != n || c.NotTaken != n || c.ToQdisc+c.QdiscFull != 0 {
		t.Errorf("board port: %+v; want %d read and %d not taken", c, n, n)
	}
	if c := bridge.Counters(); c.TapRead != n || c.NotOffered != n || c.SentToBoard+c.QueueFull != 0 {
		t.Errorf("bridge: %+v; want %d read and %d not offered", c, n, n)
	}
}
