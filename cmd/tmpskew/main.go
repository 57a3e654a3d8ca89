package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"mesonemu/netstack"
	"mesonemu/netstack/iperf3"
	"mesonemu/perfrun"
	"mesonemu/sim"
)

func main() {
	d := uint32(4)
	skew := 500.0
	ctx := context.Background()
	b, err := perfrun.Start(ctx, perfrun.Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: &d, Seed: 1, TXSkewPs: &skew, PhyMode: "rgmii"}, BoardIP: perfrun.DefaultBoardIP, PCIP: perfrun.DefaultPCIP, CC: "cubic"})
	if err != nil {
		panic(err)
	}
	ln, _ := b.PC.Listen(5201)
	var se, ce error
	srv := b.Go("s", func() {
		_, se = iperf3.ServeOne(ctx, ln, iperf3.ServerOptions{Clock: b.Clock, Sched: b.Sched, Seed: 3, ErrOutput: io.Discard})
	})
	cli := b.Go("c", func() {
		_, ce = iperf3.Run(ctx, iperf3.ClientOptions{Host: "198.18.0.1", Seconds: 3, Dial: b.Board.Dial, Clock: b.Clock, Sched: b.Sched, Seed: 4, TCPInfo: netstack.TCPInfo})
	})
	err = b.RunWhile(ctx, func() bool { return !srv.Done() || !cli.Done() })
	fmt.Println("run:", err, "server:", se, "client:", ce, "at", b.Sim.HW.M.Now().Seconds())
	_ = time.Second
	b.Close()
}
