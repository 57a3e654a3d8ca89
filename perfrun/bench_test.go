package perfrun

import (
	"context"
	"io"
	"net/netip"
	"runtime"
	"syscall"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
	"mesonemu/iperf3"
	"mesonemu/netstack"
	"mesonemu/sim"
)

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const benchSeconds = 3

// BenchmarkEmulatedVsIdealPair compares the host CPU each virtual second of
// iperf3 costs on the full emulated path (board stack, stmmac driver, DMA, MAC,
// RGMII wire, PHY, far-end NIC, PC stack) with a bare pair of gVisor stacks
// joined by an ideal 1 Gbit/s cable, both on the engine.
func BenchmarkEmulatedVsIdealPair(b *testing.B) {
	var emuCPU, idealCPU time.Duration
	var emuBits, idealBits float64
	for i := 0; i < b.N; i++ {
		start := cpuTime()
		_, rep, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", Seed: 1}, Duration: benchSeconds * time.Second, Output: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		emuCPU += cpuTime() - start
		emuBits += rep.ThroughputBps * benchSeconds

		start = cpuTime()
		idealBits += idealPair(b) * benchSeconds
		idealCPU += cpuTime() - start
	}
	vs := float64(b.N * benchSeconds)
	b.ReportMetric(float64(emuCPU.Milliseconds())/vs, "emulated-cpu-ms/virtual-s")
	b.ReportMetric(float64(idealCPU.Milliseconds())/vs, "ideal-cpu-ms/virtual-s")
	b.ReportMetric(float64(emuCPU)/float64(idealCPU), "cost-ratio")
	b.ReportMetric((float64(emuCPU)/emuBits)/(float64(idealCPU)/idealBits), "cost-ratio-per-bit")
}

// BenchmarkRunCost is the main job's cost: wall and host-CPU seconds per
// virtual second of a 10 s iperf3 test, for the fixed and the pre-fix runs,
// on one thread as the command runs them. Goal on 2 cores: fixed <= 1.0 wall
// s per virtual s, pre-fix <= 0.5.
func BenchmarkRunCost(b *testing.B) {
	for _, c := range []struct {
		name   string
		driver string
		delay  uint32
	}{{"fixed-2ns", "fixed", 2}, {"pre-fix-4ns", "pre-fix", 4}} {
		b.Run(c.name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // testing sets it per benchmark
			var wall, cpu, virt float64
			for i := 0; i < b.N; i++ {
				d := c.delay
				start, cpu0 := time.Now(), cpuTime()
				_, rep, err := Run(context.Background(), Options{Sim: sim.Options{Driver: c.driver, TxDelayNs: &d, Seed: 1},
					Duration: 10 * time.Second, Output: io.Discard})
				if err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start).Seconds()
				cpu += (cpuTime() - cpu0).Seconds()
				virt += rep.VirtualSeconds - rep.LinkUpSeconds
			}
			b.ReportMetric(wall/virt, "wall-s/virtual-s")
			b.ReportMetric(cpu/virt, "cpu-s/virtual-s")
		})
	}
}

// idealPair runs the same iperf3 test between two gVisor hosts on an ideal
// cable, on the engine, and returns the goodput.
func idealPair(b *testing.B) float64 {
	m := emu.NewMachine(1)
	defer m.Stop()
	w := netstack.NewIdealWire(m, 1000, 1*emu.Microsecond, 512)
	clk := netstack.NewClock(m)
	sched := netstack.Sched{M: m}
	mk := func(name, addr string, mac byte, nic netstack.FrameNIC) *netstack.Host {
		h, err := netstack.NewHost(netstack.HostConfig{Name: name, Machine: m, Addr: netip.MustParsePrefix(addr),
			MAC: tcpip.LinkAddress([]byte{2, 0, 0, 0, 0, mac}), NIC: nic, Seeded: int64(mac)})
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	board, pc := mk("a", "198.18.0.2/24", 2, w.A), mk("b", "198.18.0.1/24", 1, w.B)
	defer board.Close()
	defer pc.Close()
	ln, err := pc.Listen(iperf3.DefaultPort)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	m.Go("server", func() { _, _ = iperf3.ServeOne(ctx, ln, iperf3.ServerOptions{Clock: clk, Seed: 3, Sched: sched}) })
	var res *iperf3.Result
	var runErr error
	client := m.Go("client", func() {
		res, runErr = iperf3.Run(ctx, iperf3.ClientOptions{Host: "198.18.0.1", Seconds: benchSeconds, Dial: board.Dial, Clock: clk, Seed: 4, Sched: sched})
	})
	if err := m.Run(nil, client.Done); err != nil {
		b.Fatal(err)
	}
	if runErr != nil {
		b.Fatal(runErr)
	}
	return res.End.SumReceived.BitsPerSecond
}
