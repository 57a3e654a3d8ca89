package mesonemu_test

import (
	"context"
	"fmt"
	"time"

	"mesonemu"
	"mesonemu/scan"
)

// The commit's bug in raw frames: with the old DT's 4 ns the pre-fix driver
// loses frames on the wire; the fixed driver with 2 ns (the DT change that
// followed the fix) loses none.
func ExampleLinkTest() {
	ctx := context.Background()
	for _, b := range []mesonemu.Board{
		{Driver: mesonemu.DriverPreFix, TxDelayNs: mesonemu.Ns(4), Seed: 1},
		{Driver: mesonemu.DriverFixed, TxDelayNs: mesonemu.Ns(2), Seed: 1},
	} {
		r, err := mesonemu.LinkTest(ctx, b, mesonemu.LinkOptions{Frames: 20000, Direction: mesonemu.BoardTX})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %d ns: %s, %d of %d lost\n", b.Driver, *b.TxDelayNs, r.Verdict.Class, r.Verdict.BoardToPC.Lost, r.Verdict.BoardToPC.Sent)
	}
	// Output:
	// pre-fix 4 ns: lossy, 76 of 20000 lost
	// fixed 2 ns: clean, 0 of 20000 lost
}

// The main job's verdict, here on a link that carries no frame.
func ExampleRun() {
	b := mesonemu.Board{Driver: mesonemu.DriverPreFix, TxDelayNs: mesonemu.Ns(2)}
	_, rep, err := mesonemu.Run(context.Background(), b, mesonemu.RunOptions{Duration: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s\n", rep.Verdict.Class, rep.Verdict.Why)
	// Output:
	// dead: every frame the board sent was lost on the wire (3 of 3)
}

// A scan of two board TX skews: which cells of the delay map (MAC TXDLY
// step, PHY delay off or on) pass at each.
func ExampleScan() {
	o := mesonemu.ScanOptions{Frames: 500, Skew: &scan.SkewRange{FromPs: 0, ToPs: 1000, StepPs: 1000}}
	r, err := mesonemu.Scan(context.Background(), mesonemu.Board{}, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	pass := map[float64][]string{}
	for _, c := range r.Cells {
		if c.Pass {
			pass[c.TXSkewPs] = append(pass[c.TXSkewPs], fmt.Sprintf("%d/%v", c.MACTxDelaySteps, c.PHYTxDelay))
		}
	}
	for _, skew := range r.SkewsPs {
		fmt.Printf("skew %.0f ps: %v\n", skew, pass[skew])
	}
	// Output:
	// skew 0 ps: [1/false 0/true]
	// skew 1000 ps: [0/false 1/false 0/true 3/true]
}
