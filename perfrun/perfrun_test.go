package perfrun

import (
	"context"
	"os"
	"testing"
	"time"

	"mesonemu/sim"
)

func u32(v uint32) *uint32 { return &v }

func TestSmoke(t *testing.T) {
	res, rep, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", Seed: 1}, Duration: 3 * time.Second, Output: os.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	_ = res
	t.Logf("%.1f Mbit/s retr %d lost %d/%d wall %.1f", rep.ThroughputBps/1e6, rep.Retransmits, rep.DataFramesLost, rep.DataFramesSent, rep.WallSeconds)
}
