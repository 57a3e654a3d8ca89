package stmmac

import (
	"fmt"
	"hash/crc32"
	"math/bits"
)

// The multicast half of dwmac1000_set_filter (Linux v5.4), reached through
// ndo_set_rx_mode whenever the stack joins or leaves a link-layer group (an
// IPv6 address joins all-nodes and its solicited-node group). Without it the
// MAC's destination filter drops every multicast frame, neighbour
// solicitations included, and IPv6 cannot resolve the board.

// GMAC_FRAME_FILTER bits of the multicast filter.
const (
	frameFilterHMC = 1 << 2  // hash multicast
	frameFilterHPF = 1 << 10 // hash or perfect filter
)

// mcastBitsLog2 is the hash table size of the Meson8b's core: 64 bins
// (HASH_TABLE_SIZE, hw->mcast_bits_log2 = 6), in GMAC_HASH_HIGH:LOW.
const mcastBitsLog2 = 6

// mcastBin is a group's hash bin: the top bits of the bit-reversed
// Ethernet CRC of the address, bitrev32(~crc32_le(~0, addr, 6)) >> 26.
func mcastBin(addr [6]byte) uint32 {
	return bits.Reverse32(crc32.ChecksumIEEE(addr[:])) >> (32 - mcastBitsLog2)
}

// SetMulticast sets the interface's multicast list (dev->mc, as the stack's
// group joins leave it) and, on an open device, programs the filter as
// ndo_set_rx_mode does. An empty list is Linux's empty mc list: no hash. An
// address without the group bit is refused.
func (d *Driver) SetMulticast(groups [][6]byte) error {
	for _, g := range groups {
		if g[0]&1 == 0 {
			return fmt.Errorf("stmmac: %x is not a multicast address", g)
		}
	}
	d.mcMu.Lock()
	d.mc = append([][6]byte(nil), groups...)
	d.mcMu.Unlock()
	d.txMu.Lock()
	open := d.open
	d.txMu.Unlock()
	if !open {
		return nil // Open programs it (__dev_open calls dev_set_rx_mode)
	}
	return d.writeFilter()
}

func (d *Driver) hasMulticast() bool {
	d.mcMu.Lock()
	defer d.mcMu.Unlock()
	return len(d.mc) > 0
}

// writeFilter is dwmac1000_set_filter with the current list: the 64-bin hash
// (dwmac1000_set_mchash writes LOW then HIGH), then the frame filter: HMC
// with a non-empty list, HPF always (the hash or the perfect address), PR|PCF
// instead when the interface is promiscuous.
func (d *Driver) writeFilter() error {
	var table [2]uint32
	var value uint32
	d.mcMu.Lock()
	switch {
	case d.cfg.Promiscuous:
		value = frameFilterPR | frameFilterPCF
	case len(d.mc) > 0:
		value = frameFilterHMC
		for _, g := range d.mc {
			bin := mcastBin(g)
			table[bin>>5] |= 1 << (bin & 31)
		}
	}
	d.mcMu.Unlock()
	value |= frameFilterHPF
	if err := d.wr(gmacHashLow, table[0]); err != nil {
		return fmt.Errorf("write hash table: %w", err)
	}
	if err := d.wr(gmacHashHigh, table[1]); err != nil {
		return fmt.Errorf("write hash table: %w", err)
	}
	if err := d.wr(gmacFrameFilter, value); err != nil {
		return fmt.Errorf("write frame filter: %w", err)
	}
	return nil
}
