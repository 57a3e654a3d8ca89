package perfrun

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"mesonemu/emu"
	"mesonemu/iperf3"
	"mesonemu/netstack"
	"mesonemu/sim"
)

// soakSeconds of virtual time: about 4-5x as long in wall time on a 2-core host.
const soakSeconds = 20

// TestSoakEveryFrameAccounted runs parallel iperf3 streams in both directions at
// once over the pre-fix link (0.38 % TX frame loss) and checks, every virtual
// second and exactly, that each stage of the path accounts for every frame it
// was handed: delivered onward or dropped with a counted cause. It also checks
// that goroutines and heap stay bounded and that every ring slot is accounted
// for at the end.
func TestSoakEveryFrameAccounted(t *testing.T) {
	if testing.Short() {
		t.Skip("soak: 20 s of virtual time")
	}
	d := uint32(4)
	o, err := Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: &d, Seed: 3}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	goroutinesBefore := runtime.NumGoroutine()
	b, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	m := b.Sim.Machine()

	// The per-second check runs as a hardware event, under the machine lock,
	// so the counters it reads form one consistent snapshot.
	var mu sync.Mutex
	var violations []string
	checks := 0
	var check func()
	check = func() {
		if v := conservationLocked(b); v != "" {
			mu.Lock()
			violations = append(violations, fmt.Sprintf("t=%.0fs: %s", m.Now().Seconds(), v))
			mu.Unlock()
		}
		checks++
		m.After(emu.Second, check)
	}
	m.Lock()
	m.After(emu.Second, check)
	m.Unlock()

	// Goroutines and heap, sampled from the side every wall second.
	var maxG int
	var maxHeap uint64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			select {
			case <-stopSampling:
				return
			case <-time.After(time.Second):
			}
			maxG = max(maxG, runtime.NumGoroutine())
			runtime.ReadMemStats(&ms)
			maxHeap = max(maxHeap, ms.HeapAlloc)
		}
	}()

	// A wall-time bound only: the run itself is bounded by iperf3's -t.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lnPC, err := b.PC.Listen(5201)
	if err != nil {
		t.Fatal(err)
	}
	lnBoard, err := b.Board.Listen(5202)
	if err != nil {
		t.Fatal(err)
	}
	srv := func(seed uint64) iperf3.ServerOptions {
		return iperf3.ServerOptions{Clock: b.Clock, TCPInfo: netstack.TCPInfo, Seed: seed, Sched: b.Sched}
	}
	var up, down *iperf3.Result
	errs := make([]error, 4)
	tasks := []*emu.Task{
		b.Go("pc iperf3 -s", func() { _, errs[0] = iperf3.ServeOne(ctx, lnPC, srv(11)) }),
		b.Go("board iperf3 -s", func() { _, errs[1] = iperf3.ServeOne(ctx, lnBoard, srv(12)) }),
		b.Go("board iperf3 -c", func() {
			up, errs[2] = iperf3.Run(ctx, iperf3.ClientOptions{Host: "198.18.0.1", Port: 5201, Seconds: soakSeconds, Parallel: 2,
				Dial: b.Board.Dial, Clock: b.Clock, TCPInfo: netstack.TCPInfo, Seed: 13, Sched: b.Sched})
		}),
		b.Go("pc iperf3 -c", func() {
			down, errs[3] = iperf3.Run(ctx, iperf3.ClientOptions{Host: "198.18.0.2", Port: 5202, Seconds: soakSeconds, Parallel: 2,
				Dial: b.PC.Dial, Clock: b.Clock, TCPInfo: netstack.TCPInfo, Seed: 14, Sched: b.Sched})
		}),
	}
	running := func() bool {
		for _, tk := range tasks {
			if !tk.Done() {
				return true
			}
		}
		return false
	}
	if err := b.RunWhile(ctx, running); err != nil {
		t.Fatalf("engine: %v", err)
	}
	for _, err := range errs {
		if err != nil {
			t.Fatalf("iperf3: %v", err)
		}
	}
	// Let the rings drain: TX completions and RX refills.
	m.Advance(50 * emu.Millisecond)
	m.Lock()
	final := conservationLocked(b)
	m.Unlock()
	txOwned, rxOwned, ringErr := ringOwnership(b)
	close(stopSampling)
	<-sampled
	b.Close()

	t.Logf("board->PC %.1f Mbit/s, PC->board %.1f Mbit/s, %d checks, max %d goroutines (%d before), max heap %d MiB",
		up.End.SumReceived.BitsPerSecond/1e6, down.End.SumReceived.BitsPerSecond/1e6, checks, maxG, goroutinesBefore, maxHeap>>20)
	if checks < soakSeconds {
		t.Errorf("only %d per-second checks ran in %d virtual seconds", checks, soakSeconds)
	}
	for _, v := range violations {
		t.Error(v)
	}
	if final != "" {
		t.Errorf("at the end: %s", final)
	}
	path := b.Sim.Hardware().Path()
	if path.TxWireDamaged == 0 {
		t.Errorf("the pre-fix link damaged no frames: the soak did not exercise loss")
	}
	if ringErr != nil {
		t.Fatal(ringErr)
	}
	cfg := b.Sim.Guest.MAC.Config()
	if txOwned != 0 || rxOwned != cfg.RxRingSize {
		t.Errorf("rings at rest: %d TX descriptors still owned by the DMA (want 0), %d of %d RX descriptors owned (want all)", txOwned, rxOwned, cfg.RxRingSize)
	}
	if maxG > goroutinesBefore+400 {
		t.Errorf("goroutines grew to %d (from %d)", maxG, goroutinesBefore)
	}
	if maxHeap > 1<<30 {
		t.Errorf("heap grew to %d MiB", maxHeap>>20)
	}
}

// conservationLocked checks every stage's books at one instant (machine lock
// held) and describes the first imbalance, or returns "".
func conservationLocked(b *Bench) string {
	hw := b.Sim.Hardware()
	p := hw.PathLocked()
	mac := hw.MACCountersLocked()
	fe := hw.FarEnd().StatsLocked()
	feSeen := fe.RxPackets + fe.RxCRCErrors + fe.RxAlignErrors + fe.RxShortLengthErrors + fe.RxLongLengthErrors + fe.RxMissedErrors + fe.RxDropped
	macOutcomes := mac.RxDelivered + mac.RxDroppedCRC + mac.RxDroppedLength + mac.RxDroppedNoDescriptor + mac.RxDroppedDisabled + mac.RxDroppedBusError + mac.RxDroppedFiltered
	switch {
	case mac.TxFrames != p.TxFromMAC:
		return fmt.Sprintf("MAC sent %d frames, the wire saw %d", mac.TxFrames, p.TxFromMAC)
	case p.TxFromMAC != p.TxNoClock+p.TxNoLink+p.TxBadTiming+p.TxAtFarEnd:
		return fmt.Sprintf("TX wire: %d in, %d + %d + %d dropped + %d to the far end", p.TxFromMAC, p.TxNoClock, p.TxNoLink, p.TxBadTiming, p.TxAtFarEnd)
	case p.TxAtFarEnd != feSeen:
		return fmt.Sprintf("far end got %d frames, accounted %d", p.TxAtFarEnd, feSeen)
	case fe.TxPackets != p.RxFromFarEnd:
		return fmt.Sprintf("far end sent %d frames, the cable delivered %d", fe.TxPackets, p.RxFromFarEnd)
	case p.RxFromFarEnd != p.RxNoLink+p.RxBadTiming+p.RxSFDLost+p.RxAtMAC:
		return fmt.Sprintf("RX wire: %d in, %d + %d + %d dropped + %d to the MAC", p.RxFromFarEnd, p.RxNoLink, p.RxBadTiming, p.RxSFDLost, p.RxAtMAC)
	case p.RxAtMAC != mac.RxSeen || mac.RxSeen != macOutcomes:
		return fmt.Sprintf("MAC saw %d of %d frames, outcomes %d", mac.RxSeen, p.RxAtMAC, macOutcomes)
	}
	return ""
}

// ringOwnership reads every descriptor's OWN bit through the bus, as the guest
// would see it.
func ringOwnership(b *Bench) (txOwned, rxOwned int, err error) {
	drv := b.Sim.Guest.MAC
	cfg, lay := drv.Config(), drv.Layout()
	bus := b.Sim.Machine().Bus()
	count := func(base uint32, n int) (int, error) {
		owned := 0
		for i := 0; i < n; i++ {
			v, err := bus.Read32(base + uint32(16*i))
			if err != nil {
				return 0, err
			}
			if v&(1<<31) != 0 {
				owned++
			}
		}
		return owned, nil
	}
	if txOwned, err = count(lay.TxDesc, cfg.TxRingSize); err != nil {
		return
	}
	rxOwned, err = count(lay.RxDesc, cfg.RxRingSize)
	return
}
