package tap

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"mesonemu/emu"
	"mesonemu/sim"
)

// smallestInterval is the shortest timer the modelled path runs on: the RX
// interrupt watchdog (RIWT) or the TX coalescing timer, whichever is shorter.
// An engine running later than that against the wall clock stretches the
// path the host sees beyond what the model describes.
func smallestInterval(d sim.Description) time.Duration {
	out := time.Duration(d.Stmmac.TxCoalTimerUs) * time.Microsecond
	if w := time.Duration(d.Stmmac.RIWTMicros * float64(time.Microsecond)); w > 0 && (out <= 0 || w < out) {
		out = w
	}
	return out
}

// lagWarning is the line printed when the host could not keep up: when the
// engine's p99 lag behind the wall clock exceeds the model's smallest
// interval. Empty when it kept up.
func lagWarning(p emu.PacingReport, d sim.Description) string {
	limit := smallestInterval(d)
	p99 := time.Duration(p.Behind.P99Ns)
	if limit <= 0 || p.Behind.Count == 0 || p99 <= limit {
		return ""
	}
	return fmt.Sprintf("mesonemu: warning: the host could not keep up: 1 %% of the board's events ran more than %v behind the wall clock "+
		"(max %v), beyond the model's smallest interval (%v); the host saw a slower path than the model's",
		p99.Round(time.Microsecond), time.Duration(p.Behind.MaxNs).Round(time.Microsecond), limit.Round(100*time.Nanosecond))
}

// writePacing prints how the engine kept to the wall clock, in one line.
func writePacing(w io.Writer, p emu.PacingReport) {
	us := func(ns int64) string { return time.Duration(ns).Round(time.Microsecond).String() }
	fmt.Fprintf(w, "pacing (%s): %d wake-ups late by mean %s, p99 %s, max %s; %d events behind the wall clock by mean %s, p99 %s, max %s\n",
		p.Pacer, p.Error.Count, us(p.Error.MeanNs), us(p.Error.P99Ns), us(p.Error.MaxNs),
		p.Behind.Count, us(p.Behind.MeanNs), us(p.Behind.P99Ns), us(p.Behind.MaxNs))
}

// lossBased are the congestion controls Linux ships that back off on loss;
// the wire's K = rate x RTT x sqrt(loss) means something only for them.
var lossBased = map[string]bool{"reno": true, "cubic": true, "bic": true, "htcp": true, "highspeed": true,
	"scalable": true, "hybla": true, "illinois": true, "westwood": true, "yeah": true, "lp": true}

// CongestionControl reads net.ipv4.tcp_congestion_control in network
// namespace netns ("" the current one): the TCP a program there runs unless
// it picks its own (iperf3 -C).
func CongestionControl(netns string) (string, error) {
	var data []byte
	err := InNetns(netns, func() error {
		var err error
		// A net sysctl answers for the namespace of the thread that opens it.
		data, err = os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read net.ipv4.tcp_congestion_control: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// congestionNote is the line wire prints when the board's Linux runs a TCP
// that does not back off on loss (empty when it does).
func congestionNote(cc, netns string) string {
	if cc == "" || lossBased[cc] {
		return ""
	}
	where := "the board's namespace"
	if netns != "" {
		where = "namespace " + netns
	}
	return fmt.Sprintf("mesonemu: the board's Linux (%s) runs TCP %s by default, which does not back off on loss: "+
		"its rate and retransmits say little about the wire (the commit's board ran cubic; use iperf3 -C cubic)", where, cc)
}
