// Package stmmac models the Synopsys DWMAC 3.70a MAC, MDIO master and DMA of the Meson8b.
// Hardware side: registers at 0xc9410000 and descriptors in guest RAM, answered as silicon does.
//
// It is the hardware model of the Synopsys DesignWare GMAC 3.70a
// (Linux's stmmac "dwmac1000") as the Amlogic Meson8b integrates it at 0xc9410000:
// the MAC registers with the MDIO (SMA) master, the MMC counters, and the DMA engine
// with its normal (16-byte) descriptor rings.
//
// The guest programs it through registers and descriptors in guest RAM; the model
// answers as silicon does. Frames leave through the transmitter hook at the moment
// their last bit has left the MAC (virtual time), and arrive through Receive at the
// moment their last bit has arrived. Nothing a guest writes can panic the model or
// make it loop without consuming virtual time.
//
// Sources: docs/reference/dwmac-3.70a.md, Linux v5.4 dwmac1000.h, dwmac_dma.h,
// dwmac_lib.c, norm_desc.c, descs.h, mmc.h and mmc_core.c (offsets, names, bits), and
// the Synopsys GMAC register descriptions reproduced in a vendor header of the same IP
// generation (Nuvoton MA35D1 gmac_reg.h: jabber/watchdog limits, RGMII status layout,
// CSR clock range dividers). Choices the references leave open are marked
// "Assumption:" where they are made; the list below collects them.
//
// Assumptions (not in the reference):
//   - Version register 0x1137 (GXL/GXM value; Meson8b UNCONFIRMED).
//   - HW feature word DefaultHWFeature = 0x000d0f37: MII, GMII, half duplex, hash
//     filter, multiple address registers, SMA, remote wake-up, magic packet, MMC,
//     TX COE, RX COE type 2, RX FIFO > 2 KiB; no EEE, no timestamps, no PCS, normal
//     descriptors (bit 24 = 0).
//   - DMA bus (AXI) timing: 32-bit data at 250 MHz (4 bytes per 4 ns beat) plus 4
//     cycles of latency per burst: a 16-byte descriptor fetch costs 32 ns, a buffer
//     read of n bytes costs 16 + 4*ceil(n/4) ns. Descriptor write-backs are posted and
//     cost no time. The RX DMA writes a frame at the instant it arrives.
//   - The TX DMA prepares the next frame while the current one is on the line (the
//     2 KiB TX FIFO is never the bottleneck because the bus is faster than the line);
//     the engine looks at the next descriptor when the current frame has left, so a
//     TU that silicon would raise at the end of the previous frame's DMA is raised at
//     the end of its transmission instead.
//   - Jabber (TX): more than 2048 bytes (10240 with JE) on the wire cut the frame off
//     unless JD; with JD the MAC sends up to 16384 bytes. Over the limit the frame is
//     flushed (not handed to the transmitter) with ES|JT in TDES0 and TJT in CSR5; the
//     line is held for the bytes sent before the cut-off.
//   - RX watchdog: frames longer than 2048 bytes (10240 with JE, 16383 with WD: the
//     14-bit FL field) are cut off: RWT in RDES0 when forwarded (FEF), else dropped.
//   - RIWT: the RX watchdog expires RIWT*256 CSR clock cycles after it is armed and
//     sets RI; a frame completing without DIC sets RI and stops it; RIWT = 0 disables
//     it (DIC frames then never raise RI). Which DIC frames arm it is UNCONFIRMED: the
//     databook says it "gets triggered with the programmed value after the Rx DMA
//     completes the transfer of a frame for which RI is not set", which reads as a
//     reload by every such frame (Config.RIWTRestart) or as a start by the first
//     one only (the default); docs/latency.md has the evidence for each.
//   - NIS/AIS are combinational: the OR of the enabled sources of each group.
//   - EB (CSR5 25:23) as the STM32 manual documents the same IP: bit 23 = TX DMA,
//     bit 24 = read access, bit 25 = descriptor access.
//   - A fatal bus error stops the channel (TPS/RPS) until the guest clears and sets
//     ST/SR again; poll demands do not restart a stopped channel.
//   - The TX and RX DMA ignore descriptor address bits 1:0 (32-bit bus); buffer
//     addresses may be byte aligned.
//   - A frame's first descriptor without FS is treated as if FS were set; DC, DP and
//     CIC come from the first descriptor; TI is raised when any descriptor of the
//     frame has IC. Every descriptor of the frame gets TDES0 = frame status (OWN 0)
//     when the frame has left; a frame spanning more than 64 descriptors closes the
//     older ones (OWN 0, no status) early, to keep the model bounded.
//   - A TX or RX descriptor with both buffer sizes zero is passed over (RX: left
//     owned). At most 64 RX descriptors are visited for one frame.
//   - RX frames are not buffered in the 4 KiB RX FIFO while the DMA is suspended or
//     stopped: they are dropped at once (missed-frame counter when suspended).
//     With RSF, a frame larger than the RX FIFO is dropped as an overflow.
//   - MMC: COUNTER_RESET applies after PRESET when both are written at once, as Linux
//     v5.4 writes them (RESET_ON_READ|COUNTER_RESET|PRESET|FULL_HALF_PRESET); MMC
//     interrupts (half/full) are not generated; the RX IPC counters are counted when
//     IPC is enabled.
//   - SWR self-clears 1 us after the write, FTF after TxFIFOBytes ns (the FIFO walked
//     at 4 bytes per 4 ns); a guest that spins on them must let virtual time pass.
//   - TX checksum insertion (CIC 1..3) for IPv4/IPv6 with TCP, UDP, ICMP; CIC 3 zeroes
//     the transport checksum field first (Linux preloads it), CIC 2 keeps it as the
//     software pseudo-header sum; IPv4 fragments and IPv6 extension headers bypass the
//     payload checksum. IP header / payload errors (TDES0 16 / 12) set ES, as the
//     enhanced-descriptor definition of ES (STM32 manuals, same IP) lists them.
//   - RX checksum offload (IPC) status bits 7/5/0 follow the normal-descriptor table
//     of STM32F107 RM0008 (same IP); with IPC, bit 7 (IP header error) is not in ES.
//   - ACS strips pad and FCS of 802.3 length frames only; CST strips the FCS of type
//     frames; FL reports what was stored.
//   - DMA_HOST_TX/RX_DESC hold the last descriptor the DMA read, DMA_CUR_TX/RX_BUF_ADDR
//     the last buffer address it used.
//   - Not modelled: half-duplex collisions and carrier errors, PAUSE frame generation
//     and reception (FCB self-clears at once), PMT wake-up, LPI, PTP, SA filtering,
//     the PCS registers (0xc0-0xd4 read 0), MAC address registers 16..31, VLAN
//     filtering, the wake-up filter FIFO (0x28 is a plain register).
package stmmac
