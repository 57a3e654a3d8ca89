package stmmac

import (
	"strings"
	"testing"
)

// TestTrees: the default tree is v5.5-rc and each tree sets exactly its tuning.
func TestTrees(t *testing.T) {
	for _, c := range []struct {
		name, want string
		frames     int
		riwt       uint32
		perFrame   bool
	}{
		{"", "v5.5-rc", 25, 0xa0, true},
		{"v5.5-rc", "v5.5-rc", 25, 0xa0, true},
		{"v5.4", "v5.4", 1, 0x10, false},
	} {
		tree, err := LookupTree(c.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig(0, 1<<20, testMAC)
		tree.Apply(&cfg)
		if tree.Name != c.want || cfg.TxCoalFrames != c.frames || cfg.TxCoalTimerUs != 1000 ||
			cfg.RIWT != c.riwt || cfg.AlwaysArmTxTimer != c.perFrame || cfg.HZ != 100 || tree.Why == "" {
			t.Errorf("tree %q: %+v gives %+v", c.name, tree, cfg)
		}
	}
	if _, err := LookupTree("v4.19"); err == nil || !strings.Contains(err.Error(), "v5.4, v5.5-rc") {
		t.Errorf("unknown tree: %v", err)
	}
}
