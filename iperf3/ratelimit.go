package iperf3

import "time"

// BitrateLimit is the server's --server-bitrate-limit RATE[/SECS]: a test
// whose requested total (-b × streams, twice with --bidir) is over Rate is
// refused at the parameter exchange, and one whose average over the last
// Window of interval reports (both directions, all streams) goes over it is
// ended, as 3.12's iperf_check_total_rate does. Rate 0: no limit.
type BitrateLimit struct {
	Rate   uint64        // bit/s
	Window time.Duration // default 5 s
}

// defaultLimitWindow is 3.12's default averaging interval.
const defaultLimitWindow = 5 * time.Second

// rateWindow keeps the last interval byte counts the limit averages over.
type rateWindow struct {
	limit   BitrateLimit
	counts  []uint64
	seconds []float64
}

// requested reports whether a test's own parameters already ask for more.
func (l BitrateLimit) requested(p testParams) bool {
	if l.Rate == 0 || p.Bandwidth == 0 {
		return false
	}
	streams := uint64(max(p.Parallel, 1))
	if p.Bidir {
		streams *= 2
	}
	return p.Bandwidth*streams > l.Rate
}

// add takes one interval's bytes over secs seconds and reports whether the
// average over the window, once the window is full, is over the limit.
func (w *rateWindow) add(bytes uint64, secs float64, interval time.Duration) bool {
	if w.limit.Rate == 0 || interval <= 0 || secs <= 0 {
		return false
	}
	window := w.limit.Window
	if window <= 0 {
		window = defaultLimitWindow
	}
	n := max(int(window/interval), 1)
	w.counts = append(w.counts, bytes)
	w.seconds = append(w.seconds, secs)
	if len(w.counts) > n {
		w.counts, w.seconds = w.counts[1:], w.seconds[1:]
	}
	if len(w.counts) < n {
		return false
	}
	var b uint64
	var s float64
	for i := range w.counts {
		b, s = b+w.counts[i], s+w.seconds[i]
	}
	return float64(b)*8/s > float64(w.limit.Rate)
}
