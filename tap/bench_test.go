package tap

import (
	"context"
	"encoding/json"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
	"mesonemu/iperf3"
	"mesonemu/netstack"
)

// benchSeconds is each iperf3 run's length in the benchmark.
const benchSeconds = "3"

// BenchmarkEmulatedVsBypass measures, in real time, the fixed board sending to
// Debian's iperf3 server through the TAP, side by side with the same gVisor
// stack (same options, same clock type, same loss recovery) writing straight
// into the same kind of TAP with the MAC, DMA, wire, PHY and far end bypassed:
// once unpaced (as fast as the host goes) and once over netstack.IdealWire at
// the 1 Gbit/s line rate the emulated path obeys (frame + preamble + FCS + gap,
// paced by the same real-time machine).
// Reported: the three throughputs, emulated/bypass for both, and the process's
// CPU seconds per gigabit moved (the iperf3 server is another process).
// The board's CPU cost model is left out on both sides: it would cap both at
// the calibrated board's speed and hide what the emulation itself costs.
// Run with -benchtime 1x: each iteration is 3 × 3 s.
func BenchmarkEmulatedVsBypass(b *testing.B) {
	need(b, "iperf3", "ss")
	var emu, byp, byp1G, emuCPU, bypCPU, byp1GCPU float64
	for i := 0; i < b.N; i++ {
		r, c := measure(func() float64 { return benchEmulated(b) })
		emu, emuCPU = emu+r, emuCPU+c
		r, c = measure(func() float64 { return benchBypass(b, false) })
		byp, bypCPU = byp+r, bypCPU+c
		r, c = measure(func() float64 { return benchBypass(b, true) })
		byp1G, byp1GCPU = byp1G+r, byp1GCPU+c
	}
	n := float64(b.N)
	b.ReportMetric(emu/n/1e6, "emulated-Mbit/s")
	b.ReportMetric(byp/n/1e6, "bypass-Mbit/s")
	b.ReportMetric(byp1G/n/1e6, "bypass1G-Mbit/s")
	b.ReportMetric(emu/byp, "ratio")
	b.ReportMetric(emu/byp1G, "ratio1G")
	b.ReportMetric(emuCPU/n, "emulated-cpu-s/Gbit")
	b.ReportMetric(bypCPU/n, "bypass-cpu-s/Gbit")
	b.ReportMetric(byp1GCPU/n, "bypass1G-cpu-s/Gbit")
	b.ReportMetric(0, "ns/op") // a run's wall time says nothing here
}

// measure runs f (which returns bits per second over the 3 s test) and the
// process CPU time it took per gigabit.
func measure(f func() float64) (bps, cpuPerGbit float64) {
	before := cpuSeconds()
	bps = f()
	cpu := cpuSeconds() - before
	if bps > 0 {
		cpuPerGbit = cpu / (bps * 3 / 1e9)
	}
	return bps, cpuPerGbit
}

func cpuSeconds() float64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// startServer runs Debian's iperf3 -s -1 -J in the namespace; wait returns
// what it received, in bits per second.
func startServer(b *testing.B, ctx context.Context, ns *netns) (wait func() float64) {
	srv := ns.startHostServer(ctx)
	return func() float64 {
		if err := srv.wait(); err != nil {
			b.Fatalf("Debian iperf3 server: %v", err)
		}
		var r iperfJSON
		if err := json.Unmarshal(srv.out.Bytes(), &r); err != nil {
			b.Fatalf("server JSON: %v", err)
		}
		return r.End.SumReceived.BitsPerSecond
	}
}

func benchEmulated(b *testing.B) float64 {
	ns := newNetns(b)
	ns.addPersistentTAP(tapName)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	wait := startServer(b, ctx, ns)
	code, _, err := Run(ctx, Options{Sim: fixedBoard, TAP: tapName, Netns: ns.name, noCPUModel: true,
		Iperf3Args: []string{"-c", hostIP, "-t", benchSeconds}})
	if err != nil || code != 0 {
		b.Fatalf("board: exit %d, %v", code, err)
	}
	return wait()
}

func benchBypass(b *testing.B, paced bool) float64 {
	ns := newNetns(b)
	ns.addPersistentTAP(tapName)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	wait := startServer(b, ctx, ns)
	dev, err := OpenIn(ns.name, tapName)
	if err != nil {
		b.Fatal(err)
	}
	m := emu.NewMachineClock(1, emu.WallPaced)
	defer m.Stop()
	var nic netstack.FrameNIC
	if paced {
		n, closeLink := idealLink(b, m, dev)
		defer closeLink()
		nic = n
	} else {
		n := NewDirectNIC(m, dev)
		defer n.Close()
		nic = n
	}
	h, err := netstack.NewHost(netstack.HostConfig{Name: "bypass", Machine: m, Addr: netip.MustParsePrefix(boardIP + "/24"),
		MAC: tcpip.LinkAddress("\x02\xad\xc1\x00\x00\x01"), CC: "cubic", NIC: nic, Seeded: 3})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	code := 0
	task := m.Go("bypass iperf3", func() {
		code = iperf3.Main(ctx, []string{"-c", hostIP, "-t", benchSeconds}, iperf3.Env{Dial: h.Dial, Clock: netstack.NewClock(m),
			TCPInfo: netstack.TCPInfo, Congestion: netstack.Congestion("cubic"), Seed: 8, Sched: netstack.Sched{M: m}})
	})
	if err := m.Run(ctx.Done(), task.Done); err != nil {
		b.Fatal(err)
	}
	if code != 0 {
		b.Fatalf("bypass iperf3 exit %d", code)
	}
	return wait()
}

// idealLink joins a FrameNIC port of an ideal 1 Gbit/s cable (the machine's
// scheduler paces it) to the TAP: the line rate without MAC, DMA, wire model,
// PHY or far-end NIC.
func idealLink(b *testing.B, m *emu.Machine, dev *Device) (netstack.FrameNIC, func()) {
	w := netstack.NewIdealWire(m, 1000, 0, 256)
	// Frames reach the TAP from a machine event; a TAP write does not block.
	w.B.SetReceiver(func(f []byte) { _, _ = dev.Write(f) })
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, readBufLen)
		for {
			n, err := dev.Read(buf)
			if err != nil {
				return
			}
			if n >= MinFrameLen && n <= MaxFrameLen {
				f := append([]byte(nil), buf[:n]...)
				m.Inject(func() { _ = w.B.Transmit(f) })
			}
		}
	}()
	return w.A, func() { dev.Close(); <-done }
}
