package perfrun

import (
	"context"
	"os"
	"testing"
	"time"

	"mesonemu/sim"
	stmmacdrv "mesonemu/stmmac/driver"
)

func u32(v uint32) *uint32 { return &v }

func TestSmoke(t *testing.T) {
	res, rep, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "fixed", Seed: 1}, Duration: 10 * time.Second, Output: os.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	_ = res
	t.Logf("%.1f Mbit/s retr %d lost %d/%d wall %.1f", rep.ThroughputBps/1e6, rep.Retransmits, rep.DataFramesLost, rep.DataFramesSent, rep.WallSeconds)
}

func TestSmokePrefix(t *testing.T) {
	_, rep, err := Run(context.Background(), Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: u32(4), Seed: 1}, Duration: 10 * time.Second, Output: os.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f Mbit/s retr %d lost %d/%d wall %.1f", rep.ThroughputBps/1e6, rep.Retransmits, rep.DataFramesLost, rep.DataFramesSent, rep.WallSeconds)
}

func TestSmokePrefix55(t *testing.T) {
	so := sim.Options{Driver: "pre-fix", TxDelayNs: u32(4), Seed: 1, Stmmac: func(c *stmmacdrv.Config) { c.TxCoalFrames = 25; c.RIWT = 0xa0; c.AlwaysArmTxTimer = true }}
	_, rep, err := Run(context.Background(), Options{Sim: so, Duration: 10 * time.Second, Output: os.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f Mbit/s retr %d lost %d/%d wall %.1f", rep.ThroughputBps/1e6, rep.Retransmits, rep.DataFramesLost, rep.DataFramesSent, rep.WallSeconds)
}
