// Package stmmac is Linux's stmmac Ethernet driver (v5.4/v5.5) ported to Go.
// Guest side: it drives the DWMAC through registers and descriptors in guest RAM.
//
// It is the guest side of the Ethernet MAC: Linux's stmmac driver
// (drivers/net/ethernet/stmicro/stmmac, "stmmaceth") as Linux v5.4/v5.5 runs it on
// a DWMAC 3.70a ("dwmac1000") with normal descriptors in ring mode, the Amlogic
// case. It reaches the hardware only through its kernel.Kernel: the bus (registers
// at Config.Base, descriptors and buffers in guest RAM) and its interrupt line.
// It keeps its own register and bit constants, as Linux keeps its headers.
//
// Sources: docs/reference/dwmac-3.70a.md §3 (MDIO), §4 (DMA), §6
// (descriptors), §7 (ring usage); Linux v5.4 stmmac_main.c, stmmac_mdio.c,
// stmmac_ethtool.c, dwmac1000_core.c, dwmac1000_dma.c, dwmac_lib.c, norm_desc.c,
// descs_com.h, ring_mode.c, mmc_core.c and common.h (read as published, e.g. the
// 5.4.y tree and the netdev patches whose context lines show the v5.4 state).
//
// What happens when, in Linux's terms:
//   - Probe: version and HW feature registers, use_riwt for cores >= 3.50, the
//     stmmac_mdio_reset dummy write. ReadPHY/WritePHY work from then on.
//   - Open: rings, DMA software reset (10 ms polls, 100 ms timeout), bus mode and
//     CSR7 0x1a061, list bases, MAC address, core init, TE|RE ("Enable the MAC
//     Rx/Tx" in stmmac_hw_setup), CSR6 RSF then TSF|OSF, MMC setup, RIWT, SR then
//     ST; then the RX filter (dev_set_rx_mode) and request_irq.
//   - LinkUp/LinkDown (SetLink): phylink's mac_config + mac_link_up /
//     mac_link_down, and the carrier: from Open until the first LinkUp, and after
//     LinkDown, Xmit returns ErrNoCarrier (Linux's qdisc would drop the packet).
//   - Xmit: stmmac_xmit for one linear frame; ErrRingFull (NETDEV_TX_BUSY) while
//     the queue is stopped, which happens when no more than MAX_SKB_FRAGS+1 = 18
//     descriptors stay free and lasts until TX clean frees more than a quarter of
//     the ring (TxWake). With Config.BQL (both trees) the queue also stops once
//     the bytes not yet cleaned pass the dynamic limit (linux/lib/dql), until TX
//     clean brings them under it. Transmit is the blocking form for a stack's TX
//     goroutine.
//   - Interrupt: MAC core status, dwmac_dma_interrupt, stmmac_napi_check (which
//     schedules the TX NAPI with every RX NAPI unless Config.RxIRQLeavesTx), then
//     the NAPI polls as the softirq on interrupt exit (netdev_budget 300; leftovers
//     from a zero-delay timer, like ksoftirqd).
//
// Assumptions and deviations (not in the reference):
//   - DefaultConfig's coalescing is v5.4's (TX 1 frame / 1000 us, RIWT 0x10) and its
//     timers fire at the exact microsecond unless Config.HZ asks for jiffies
//     rounding. The board boots with a Tree applied (trees.go: v5.5-rc by default,
//     25 frames, RIWT 0xa0, the TX timer re-armed per frame, HZ 100).
//   - No checksum offload in either direction: CIC = 0 on TX, IPC left clear on RX.
//     Linux on Amlogic would use both (the core reports TX COE and RX COE type 2).
//   - CSR6 uses store-and-forward both ways and "threshold" reads 1 (SF_DMA_MODE),
//     as Linux chooses when the core has TX COE.
//   - Descriptor writes Linux does as several read-modify-writes before OWN are
//     written once with their final value (the DMA cannot see the difference). RX
//     refill keeps the read-modify-write of RDES0 (stale status bits + OWN).
//   - TX frames always fit one descriptor, so the driver tracks FS/LS itself rather
//     than reading TDES1 back in TX clean.
//   - RX buffers are allocated once; RDES2 is not rewritten on refill.
//   - After refill the driver writes the RX poll demand when the RX DMA had
//     suspended (RU seen, or CSR5 RS = suspended); Linux's dwmac1000 relies on the
//     next frame to resume it.
//   - rx_missed_cntr / rx_overflow_cntr are read from 0x1020 by Stats (Linux does
//     so only for dwmac100).
//   - A fatal bus error is handled as Linux does: counted (fatal_bus_error_irq);
//     when it is the only thing reported, stmmac_tx_err stops the TX DMA, drops the
//     ring (counted in NetStats.TxErrFlushed, which Linux does not have), rebuilds
//     it and restarts TX. An RX DMA that stopped stays stopped until Close/Open.
//   - Bus errors in the interrupt path are kept in Err().
//   - SetMulticast: the multicast list as ndo_set_rx_mode leaves it, in the
//     64-bin hash with HMC|HPF (dwmac1000_set_filter); Open reprograms it.
//     Unicast perfect-filter entries beyond address 0 are not used.
//   - Pause frames, EEE, PTP, VLAN offload and jumbo frames are not used.
package stmmac
