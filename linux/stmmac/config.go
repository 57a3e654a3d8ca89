package stmmac

import (
	"cmp"
	"fmt"
	"math/bits"

	"mesonemu/emu"
	"mesonemu/ether"
)

// Defaults, as Linux v5.4 stmmac chooses them for a 1500-byte MTU.
const (
	// DefaultBase is the DWMAC register base on Meson8b.
	DefaultBase = 0xc9410000

	// DefaultTxRingSize and DefaultRxRingSize are DMA_TX_SIZE / DMA_RX_SIZE (common.h);
	// DefaultBufSize is DEFAULT_BUFSIZE, what stmmac_set_bfsize picks for MTU <= 1500.
	// UNCONFIRMED for the Dec 2019 kernel (docs/reference/dwmac-3.70a.md §7).
	DefaultTxRingSize = 512
	DefaultRxRingSize = 512
	DefaultBufSize    = 1536

	// DefaultCSRClockRange is STMMAC_CSR_150_250M (MDC = clk_csr_i / 102) for the
	// 159.375 MHz clk81 that feeds "stmmaceth" on Meson8b.
	DefaultCSRClockRange = 4

	// DefaultTxCoalFrames and DefaultTxCoalTimerUs are STMMAC_TX_FRAMES and
	// STMMAC_COAL_TX_TIMER of Linux v5.4's common.h: 1 frame (IC on every frame) and
	// 1000 us. Evidence: the context lines of Jose Abreu's net-next patches of 13/14 Nov
	// 2019 ("net: stmmac: Tune-up default coalesce settings", "Setup a default RX
	// Coalesce value instead of the minimum"), written against the tree v5.4 was
	// released from, read "STMMAC_COAL_TX_TIMER 1000 / STMMAC_TX_FRAMES 1 /
	// STMMAC_RX_FRAMES 25" and "MIN_DMA_RIWT 0x10"; those patches changed them for
	// v5.5 to 25 frames, RX_FRAMES 0 and DEF_DMA_RIWT 0xa0. Whether the Dec 2019 test
	// kernel carried the v5.5 values is UNCONFIRMED: set the fields to 25 / 0xa0 for it.
	DefaultTxCoalFrames  = 1
	DefaultTxCoalTimerUs = 1000

	// DefaultRIWT is MIN_DMA_RIWT (0x10 in v5.4), which stmmac_hw_setup writes to the
	// RX watchdog when use_riwt (v5.5 writes DEF_DMA_RIWT 0xa0 instead). In units of
	// 256 CSR clock cycles: 0x10 * 256 / 159.375 MHz = 25.7 us (computed).
	DefaultRIWT = 0x10

	// DefaultNAPIBudget is NAPI_POLL_WEIGHT; DefaultNetdevBudget is net.core.netdev_budget,
	// the packets one softirq run may process before the rest is deferred.
	DefaultNAPIBudget   = 64
	DefaultNetdevBudget = 300

	// DefaultPBL is DEFAULT_DMA_PBL (no "snps,pbl" on Meson8b), with 8xPBL on because
	// the device tree has no "snps,no-pbl-x8".
	DefaultPBL = 8

	// MaxFrameLen / MinFrameLen bound what Xmit accepts: an Ethernet frame without FCS,
	// header (14 bytes) up to a 1500-byte payload.
	MaxFrameLen = ether.MaxFrameLenNoFCS
	MinFrameLen = ether.HeaderLen
)

// Limits on the configuration (STMMAC_GET_ENTRY needs power-of-two rings).
const (
	minRingSize = 64
	maxRingSize = 1024
	// txStopThreshold is MAX_SKB_FRAGS + 1 with 4 KiB pages: stmmac_xmit stops the
	// queue when no more than this many descriptors stay free.
	txStopThreshold = 17 + 1
	// descAlign aligns the rings and buffer pools (a cache line on Cortex-A5 is 32
	// bytes; 64 keeps every buffer on a 16-byte boundary as v5.5 requires).
	descAlign = 64
)

// Config is the platform data (device tree + stmmac defaults) the driver runs with.
type Config struct {
	// Base is the register base (0: DefaultBase).
	Base uint32
	// RAMStart and RAMSize delimit the guest RAM the driver may use for descriptor
	// rings and buffers, the part of memory dma_alloc_coherent would hand out.
	RAMStart, RAMSize uint32
	// TxRingSize, RxRingSize (powers of two, 64..1024) and BufSize (multiple of 16,
	// 1536..2032) default to 512, 512 and 1536.
	TxRingSize, RxRingSize, BufSize int
	// MAC is the station address (must be a valid unicast address).
	MAC ether.MAC
	// CSRClockRange is clk_csr (0..5; 0 is a valid code, so there is no zero default:
	// use DefaultConfig).
	CSRClockRange int
	// TxCoalFrames and TxCoalTimerUs are tx_coal_frames / tx_coal_timer (0: defaults).
	TxCoalFrames, TxCoalTimerUs int
	// RIWT is the RX watchdog value written when RX mitigation is used (0: DefaultRIWT).
	RIWT uint32
	// RIWTOff forces use_riwt off (plat->riwt_off), as if the core were older than 3.50.
	RIWTOff bool
	// NAPIBudget and NetdevBudget default to 64 and 300.
	NAPIBudget, NetdevBudget int
	// HZ, when positive, rounds kernel timers to jiffies as mod_timer(jiffies +
	// usecs_to_jiffies(t)) does. 0 runs them at the exact microsecond (assumption:
	// the Dec 2019 kernel's HZ is UNCONFIRMED; multi_v7_defconfig uses 100).
	HZ int
	// AlwaysArmTxTimer re-arms the TX coalescing timer after every frame, as commit
	// 4772f26db8d1 ("net: stmmac: Always arm TX Timer at end of transmission start",
	// v5.5-rc, 5.4.11 stable) does; v5.4.0 arms it only for frames without IC.
	AlwaysArmTxTimer bool
	// RxIRQLeavesTx stops an RX interrupt from scheduling the TX NAPI as well,
	// as v5.6 does ("net: stmmac: Let TX and RX interrupts be independently
	// enabled/disabled", Dec 2019). v5.4 and v5.5's stmmac_napi_check set
	// handle_tx with every RX schedule, so each RX interrupt also cleans TX.
	RxIRQLeavesTx bool
	// BQL applies byte queue limits to the TX queue as stmmac does since v4.x
	// (netdev_tx_sent_queue in stmmac_xmit, netdev_tx_completed_queue in
	// stmmac_tx_clean): once the bytes not yet cleaned reach the dynamic limit
	// (linux/lib/dql), Xmit refuses frames (ErrRingFull) until TX clean frees room.
	BQL bool
	// Promiscuous sets PR|PCF in the frame filter (IFF_PROMISC), for bridging.
	Promiscuous bool
	// FixMACSpeed, if set, is called on link up with the speed in Mbit/s, as
	// plat->fix_mac_speed is (the glue driver's hook).
	FixMACSpeed func(speedMbps int) error
}

// DefaultConfig is the Meson8b / Linux v5.4 configuration for a RAM region.
func DefaultConfig(ramStart, ramSize uint32, mac ether.MAC) Config {
	return Config{
		Base:          DefaultBase,
		RAMStart:      ramStart,
		RAMSize:       ramSize,
		TxRingSize:    DefaultTxRingSize,
		RxRingSize:    DefaultRxRingSize,
		BufSize:       DefaultBufSize,
		MAC:           mac,
		CSRClockRange: DefaultCSRClockRange,
		TxCoalFrames:  DefaultTxCoalFrames,
		TxCoalTimerUs: DefaultTxCoalTimerUs,
		RIWT:          DefaultRIWT,
		NAPIBudget:    DefaultNAPIBudget,
		NetdevBudget:  DefaultNetdevBudget,
	}
}

func (c Config) withDefaults() Config {
	c.Base = cmp.Or(c.Base, DefaultBase)
	c.TxRingSize = cmp.Or(c.TxRingSize, DefaultTxRingSize)
	c.RxRingSize = cmp.Or(c.RxRingSize, DefaultRxRingSize)
	c.BufSize = cmp.Or(c.BufSize, DefaultBufSize)
	c.TxCoalFrames = cmp.Or(c.TxCoalFrames, DefaultTxCoalFrames)
	c.TxCoalTimerUs = cmp.Or(c.TxCoalTimerUs, DefaultTxCoalTimerUs)
	c.RIWT = cmp.Or(c.RIWT, DefaultRIWT)
	c.NAPIBudget = cmp.Or(c.NAPIBudget, DefaultNAPIBudget)
	c.NetdevBudget = cmp.Or(c.NetdevBudget, DefaultNetdevBudget)
	return c
}

func (c Config) validate() error {
	for _, r := range []struct {
		name string
		n    int
	}{{"TX ring", c.TxRingSize}, {"RX ring", c.RxRingSize}} {
		if r.n < minRingSize || r.n > maxRingSize || bits.OnesCount(uint(r.n)) != 1 {
			return fmt.Errorf("stmmac config: %s size %d: want a power of two in [%d, %d]",
				r.name, r.n, minRingSize, maxRingSize)
		}
	}
	if c.BufSize < DefaultBufSize || c.BufSize > bufSize2KiB-16 || c.BufSize%16 != 0 {
		return fmt.Errorf("stmmac config: buffer size %d: want a multiple of 16 in [%d, %d]",
			c.BufSize, DefaultBufSize, bufSize2KiB-16)
	}
	if c.CSRClockRange < 0 || c.CSRClockRange > 0xf {
		return fmt.Errorf("stmmac config: CSR clock range %d: want 0..15", c.CSRClockRange)
	}
	// STMMAC_TX_MAX_FRAMES and STMMAC_MAX_COAL_TX_TICK bound what ethtool accepts.
	if c.TxCoalFrames < 0 || c.TxCoalFrames > 256 {
		return fmt.Errorf("stmmac config: TX coalesce frames %d: want 1..256", c.TxCoalFrames)
	}
	if c.TxCoalTimerUs < 0 || c.TxCoalTimerUs > 100000 {
		return fmt.Errorf("stmmac config: TX coalesce timer %d us: want 1..100000", c.TxCoalTimerUs)
	}
	if c.RIWT > 0xff { // MAX_DMA_RIWT
		return fmt.Errorf("stmmac config: RIWT %#x: want at most 0xff", c.RIWT)
	}
	if c.NAPIBudget < 1 || c.NetdevBudget < c.NAPIBudget {
		return fmt.Errorf("stmmac config: NAPI budget %d, netdev budget %d: want 1 <= napi <= netdev",
			c.NAPIBudget, c.NetdevBudget)
	}
	if c.HZ < 0 || c.HZ > 10000 {
		return fmt.Errorf("stmmac config: HZ %d: want 0..10000", c.HZ)
	}
	if c.MAC.IsZero() || c.MAC.IsMulticast() {
		return fmt.Errorf("stmmac config: MAC address %s is not a valid unicast address", c.MAC)
	}
	if c.Base%4 != 0 {
		return fmt.Errorf("stmmac config: register base %#x is not word aligned", c.Base)
	}
	return nil
}

// Layout is where the driver placed its rings and buffers in guest RAM.
type Layout struct {
	RxDesc, TxDesc uint32 // descriptor rings (16 bytes per descriptor)
	RxBuf, TxBuf   uint32 // buffer pools (BufSize bytes per descriptor)
	End            uint32 // first byte after the last buffer
}

// rxBufAddr and txBufAddr are the buffers of descriptor i.
func (l Layout) rxBufAddr(i, bufSize int) uint32 { return l.RxBuf + uint32(i*bufSize) }
func (l Layout) txBufAddr(i, bufSize int) uint32 { return l.TxBuf + uint32(i*bufSize) }

func alignUp(v, a uint64) uint64 { return (v + a - 1) &^ (a - 1) }

// layout carves the RAM region: RX ring, TX ring, RX buffers, TX buffers, each
// aligned to descAlign bytes.
func (c Config) layout() (Layout, error) {
	start := uint64(c.RAMStart)
	off := alignUp(start, descAlign)
	rxDesc := off
	off = alignUp(off+uint64(c.RxRingSize)*descSize, descAlign)
	txDesc := off
	off = alignUp(off+uint64(c.TxRingSize)*descSize, descAlign)
	rxBuf := off
	off = alignUp(off+uint64(c.RxRingSize)*uint64(c.BufSize), descAlign)
	txBuf := off
	off += uint64(c.TxRingSize) * uint64(c.BufSize)
	end := start + uint64(c.RAMSize)
	if off > end || end > 1<<32 {
		return Layout{}, fmt.Errorf("stmmac config: RAM region [%#x, +%#x) too small: rings and buffers need %#x bytes",
			c.RAMStart, c.RAMSize, off-start)
	}
	return Layout{RxDesc: uint32(rxDesc), TxDesc: uint32(txDesc), RxBuf: uint32(rxBuf),
		TxBuf: uint32(txBuf), End: uint32(off)}, nil
}

// RequiredRAM is how many bytes of guest RAM, starting at start, the configuration
// needs for its rings and buffers.
func RequiredRAM(c Config, start uint32) (uint32, error) {
	c = c.withDefaults()
	c.RAMStart, c.RAMSize = start, ^uint32(0)-start
	l, err := c.layout()
	if err != nil {
		return 0, err
	}
	return l.End - start, nil
}

// usecs converts microseconds to virtual time.
func usecs(us int) emu.Time { return emu.Time(us) * emu.Microsecond }
