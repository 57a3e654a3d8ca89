package tap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// HostTAPStats are the host kernel's own counters of a TAP, from its side:
// TX is what the kernel (the Linux behind the TAP) sent towards mesonemu, RX
// what mesonemu wrote to it. TxDropped counts frames the kernel threw away
// because mesonemu's reader had not taken the ones before (the TUN queue,
// txqueuelen frames, was full); RxDropped frames it refused after the write.
type HostTAPStats struct {
	RxPackets, RxDropped, TxPackets, TxDropped uint64
}

// Sub is the change from before to s. A counter that went down was reset
// (the interface was made anew) and counts from zero.
func (s HostTAPStats) Sub(before HostTAPStats) HostTAPStats {
	d := func(now, then uint64) uint64 {
		if now < then {
			return now
		}
		return now - then
	}
	return HostTAPStats{RxPackets: d(s.RxPackets, before.RxPackets), RxDropped: d(s.RxDropped, before.RxDropped),
		TxPackets: d(s.TxPackets, before.TxPackets), TxDropped: d(s.TxDropped, before.TxDropped)}
}

// ReadHostTAPStats reads interface name's counters in network namespace netns
// ("" the current one). It reads /proc/thread-self/net/dev from a thread in
// that namespace: /sys/class/net shows the namespace sysfs was mounted in,
// not the thread's.
func ReadHostTAPStats(netns, name string) (HostTAPStats, error) {
	var data []byte
	err := InNetns(netns, func() error {
		var err error
		data, err = os.ReadFile("/proc/thread-self/net/dev")
		return err
	})
	if err != nil {
		return HostTAPStats{}, fmt.Errorf("tap %s: read the kernel's counters: %w", name, err)
	}
	return parseNetDev(data, name)
}

// parseNetDev finds name's line in /proc/net/dev: after "name:", 8 receive
// fields (bytes packets errs drop fifo frame compressed multicast), then 8
// transmit fields (bytes packets errs drop fifo colls carrier compressed).
func parseNetDev(data []byte, name string) (HostTAPStats, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		iface, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(iface) != name {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 16 {
			return HostTAPStats{}, fmt.Errorf("tap %s: /proc/net/dev line has %d fields, want 16", name, len(f))
		}
		var v [16]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return HostTAPStats{}, fmt.Errorf("tap %s: /proc/net/dev field %d: %w", name, i, err)
			}
			v[i] = n
		}
		return HostTAPStats{RxPackets: v[1], RxDropped: v[3], TxPackets: v[9], TxDropped: v[11]}, nil
	}
	return HostTAPStats{}, fmt.Errorf("tap %s: not in /proc/net/dev", name)
}
