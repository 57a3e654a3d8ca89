// Package tap puts a Linux TAP device at either end of the emulated cable.
// Outside the bus: the host's kernel takes the far end's (or the board's stack's) place.
//
// It puts a Linux TAP device at the far end of the emulated cable, so
// the host's own kernel (and the real iperf3, ping, tshark) talks to the board:
//
//	board gVisor -> stmmac driver -> DMA -> MAC -> TX wire -> PHY -> far-end NIC -> Bridge -> TAP -> host kernel
//	host kernel -> TAP -> Bridge -> far-end NIC -> PHY -> RX wire -> MAC -> DMA -> driver -> board gVisor
//
// The far-end NIC model keeps its FCS check, so a frame the wire corrupted never
// reaches the host: the host's TCP sees the loss exactly as a PC behind a real
// cable would. The host's timers are real, so the machine runs in real time
// (scale 1) whenever a TAP is attached.
//
// Entry points: Open / OpenIn (a TAP device, optionally inside a network
// namespace), NewBridge (far-end NIC <-> TAP with per-cause counters), Run (the
// whole board-side job the command line calls) and NewDirectNIC (the same TAP
// as a plain FrameNIC, for measuring the emulation's cost).
//
// Choices this package makes that the design leaves open (assumptions):
//
//   - The TAP is opened with github.com/songgao/water. Only an existing device
//     (persistent: `ip tuntap add`) is opened, with water's Persist on, so it
//     keeps its flag and stays; a name that does not exist is refused with
//     ErrNoDevice and the line that creates it, since a typing error must not
//     leave a stray interface behind. Open also closes the fd water leaks when the attach
//     fails and sets close-on-exec (docs/decisions.md). The fd is non-blocking
//     on Go's poller, so Close wakes a blocked Read.
//   - Frames from the host longer than 1514+4 bytes (a VLAN-tagged full frame)
//     or shorter than an Ethernet header (14 bytes) are counted and dropped.
//     The TAP has no IFF_VNET_HDR, so the kernel segments TSO/GSO packets
//     before they reach it; oversize frames should not occur.
//   - When the far-end NIC's transmit queue (1000 frames, Linux's txqueuelen)
//     is full, the reader retries every 100 us for at most 20 ms (the whole
//     queue drains in 12 ms at 1 Gbit/s) and then drops and counts the frame.
//     While it waits it does not read, so further frames wait in the kernel's
//     TAP queue and the kernel drops and counts them itself (ip -s link).
//   - In real time the engine's loop reads and writes the TAPs itself: each
//     TAP's fd joins the pacer's epoll set (emu.Machine.WatchFD), the loop
//     reads up to 64 frames a wake-up and looks again every 25 us while busy,
//     and the event that hands a frame to the host writes it (docs/decisions.md
//     has the measurement). Without a pacer, a reader goroutine and a writer
//     goroutine do it; the writer queue between the far-end NIC's consumer (a
//     hardware event under the machine lock) and the TAP write then holds 1000
//     frames, and a frame arriving when it is full is counted and dropped.
//   - A failed TAP write (EIO while the host side is down) is counted and the
//     frame dropped, as a NIC without carrier would.
//   - The board's stack runs without gVisor's RACK-TLP (Options.RACK turns it
//     back on): its tail loss probe has no floor, so on a loaded host it
//     retransmits ACK-delayed segments that were not lost (docs/decisions.md).
//   - The board keeps its CPU cost model (linuxmodel.CPU with the board file's
//     per-packet and per-byte costs), as in the in-process runs.
//   - After iperf3 ends, the stack is closed and the bridge waits 20 ms (1000
//     frame times at 1 Gbit/s) so the board's last frames reach the host.
//   - Pcap timestamps are virtual time plus the wall-clock offset at the start
//     of the paced run, so they line up with a capture taken on the host.
//   - Counters.ClockLag is the most any event ran late against the wall
//     clock: near zero while the host keeps up with the board; tens of ms
//     when a full-rate board's stack outruns a busy host's cores.
//     Counters.Pacing (and WireReport.Pacing) add the pacer's wake-up error
//     and every event's lag (count, mean, p99, max); a warning line goes to
//     Stderr when the lag's p99 passes the model's smallest interval.
package tap
