package stmmac

import (
	"fmt"
	"strings"
)

// Tree is the stmmac core's tuning as one Linux tree ships it: the constants
// of common.h and stmmac_main.c that decide when TX descriptors are cleaned
// (IC every TxCoalFrames frames, else the coalescing timer) and when the RX
// interrupt comes (every RX descriptor carries DIC when the RX watchdog is used,
// so RI waits for RIWT).
type Tree struct {
	Name string
	// Why says where the numbers come from and what is not confirmed.
	Why string

	TxCoalFrames, TxCoalTimerUs int
	RIWT                        uint32
	AlwaysArmTxTimer            bool
	// HZ is the kernel's tick rate: stmmac's TX timer is a timer_list, so
	// mod_timer(jiffies + usecs_to_jiffies(t)) fires on a tick boundary.
	HZ int
	// BQL: byte queue limits on the TX queue (both trees: netdev_tx_sent_queue
	// in stmmac_xmit, netdev_tx_completed_queue in stmmac_tx_clean).
	BQL bool
}

// Trees are the trees a user can choose with --kernel.
//
// DefaultTree is "v5.5-rc": the fix was posted and tested in late December
// 2019, after v5.5-rc1 (8 Dec 2019) had merged Jose Abreu's net-next coalescing
// patches of 13/14 Nov 2019, so the test kernel most likely carried them.
// Which tree the commit's iperf3 numbers were measured on is UNCONFIRMED.
var Trees = []Tree{
	{
		Name:         "v5.4",
		Why:          "STMMAC_TX_FRAMES 1, STMMAC_COAL_TX_TIMER 1000 us, MIN_DMA_RIWT 0x10 (context lines of the Nov 2019 patches)",
		TxCoalFrames: DefaultTxCoalFrames, TxCoalTimerUs: DefaultTxCoalTimerUs, RIWT: DefaultRIWT,
		HZ: DefaultHZ, BQL: true,
	},
	{
		Name: "v5.5-rc",
		Why: "\"Tune-up default coalesce settings\": STMMAC_TX_FRAMES 25, STMMAC_COAL_TX_TIMER 1000 us; " +
			"\"Setup a default RX Coalesce value\": DEF_DMA_RIWT 0xa0; 4772f26db8d1 arms the TX timer after every frame",
		TxCoalFrames: 25, TxCoalTimerUs: 1000, RIWT: 0xa0, AlwaysArmTxTimer: true, HZ: DefaultHZ,
		BQL: true,
	},
}

// DefaultHZ is CONFIG_HZ of both trees: multi_v7_defconfig sets no HZ, so ARM's
// "Timer frequency" choice gives 100 Hz. The test kernel's HZ is UNCONFIRMED.
const DefaultHZ = 100

// DefaultTree is the tree mesonemu boots unless told otherwise (see Trees).
const DefaultTree = "v5.5-rc"

// LookupTree finds a tree by name ("" is DefaultTree).
func LookupTree(name string) (Tree, error) {
	if name == "" {
		name = DefaultTree
	}
	var names []string
	for _, k := range Trees {
		if k.Name == name {
			return k, nil
		}
		names = append(names, k.Name)
	}
	return Tree{}, fmt.Errorf("kernel %q: want one of %s", name, strings.Join(names, ", "))
}

// Apply sets the tree's tuning in a driver configuration.
func (k Tree) Apply(c *Config) {
	c.TxCoalFrames, c.TxCoalTimerUs = k.TxCoalFrames, k.TxCoalTimerUs
	c.RIWT, c.AlwaysArmTxTimer, c.HZ = k.RIWT, k.AlwaysArmTxTimer, k.HZ
	c.BQL = k.BQL
}
