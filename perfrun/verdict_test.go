package perfrun

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"mesonemu/sim"
)

// TestVerdictNumbersAreTheCounters: every number the summary states is the
// counter it names, and the bad-FCS count is what the receiving MAC dropped
// (its rx_crc_errors), not every frame the wire changed.
func TestVerdictNumbersAreTheCounters(t *testing.T) {
	four := uint32(4)
	cases := []struct {
		name        string
		o           Options
		senderTCP   string
		crcWhere    string
		framesWhere string // "" : the board's data frames (Report)
		real        bool
		lossy       bool // the sender's frames break: the counts are not 0
	}{
		{"pre-fix board->PC", Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: &four, Seed: 1}, Duration: 2 * time.Second}, "board tcp", "pc nic", "", true, true},
		{"pre-fix PC->board", Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: &four, Seed: 1}, Duration: time.Second, Reverse: true}, "pc tcp", "board eth0 (stmmac)", "pc nic", false, false},
	}
	verdictRe := regexp.MustCompile(`verdict:  (\d+) Mbit/s received, (\d+) retransmits`)
	droppedRe := regexp.MustCompile(`dropped (\d+) (?:of the board's (\d+) data frames |frames )for a bad FCS(?: \(its rx_crc_errors\) of the PC's (\d+))?`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			c.o.Output = &out
			_, rep, err := Run(context.Background(), c.o)
			if err != nil {
				t.Fatal(err)
			}
			text := out.String()
			m := verdictRe.FindStringSubmatch(text)
			d := droppedRe.FindStringSubmatch(text)
			if m == nil || d == nil {
				t.Fatalf("no verdict in the output:\n%s", text)
			}
			num := func(s string) uint64 { n, _ := strconv.ParseUint(s, 10, 64); return n }
			if got, want := num(m[1]), uint64(rep.ThroughputBps/1e6+0.5); got != want {
				t.Errorf("verdict says %d Mbit/s, iperf3's receiver %d", got, want)
			}
			if got, want := num(m[2]), rep.Counter(c.senderTCP, "retransmits"); got != want || c.lossy && want == 0 {
				t.Errorf("verdict says %d retransmits, counter %s retransmits is %d (want equal, > 0 if lossy)", got, c.senderTCP, want)
			}
			crc := rep.Counter(c.crcWhere, "rx_crc_errors")
			if got := num(d[1]); got != crc || c.lossy && crc == 0 {
				t.Errorf("verdict says %d dropped for a bad FCS, %s rx_crc_errors is %d (want equal, > 0 if lossy)", got, c.crcWhere, crc)
			}
			frames := rep.DataFramesSent
			seen := d[2]
			if c.framesWhere != "" {
				frames, seen = rep.Counter(c.framesWhere, "tx_packets"), d[3]
			}
			if num(seen) != frames || frames == 0 {
				t.Errorf("verdict says %s frames sent, the counter is %d", seen, frames)
			}
			if !c.o.Reverse && (rep.DataFramesLost != crc || rep.DataFramesChanged < rep.DataFramesLost) {
				t.Errorf("board_data_frames_dropped_bad_fcs %d, changed on the wire %d, rx_crc_errors %d", rep.DataFramesLost, rep.DataFramesChanged, crc)
			}
			if got := bytes.Contains(out.Bytes(), []byte("real:     Odroid-C1 before the fix (pre-fix driver, 4 ns): 153 Mbit/s, 514 retransmits")); got != c.real {
				t.Errorf("the commit's numbers shown: %v, want %v", got, c.real)
			}
			if bytes.Contains(out.Bytes(), []byte("Link counters")) {
				t.Error("counters printed without Options.Counters")
			}
		})
	}
}

// TestCommitRunOnlyForTheCommitsConfiguration: the real board's numbers stand
// beside a run only when the run is configured as the commit's was.
func TestCommitRunOnlyForTheCommitsConfiguration(t *testing.T) {
	desc := func(driver string, ns uint32) sim.Description {
		return sim.Description{Board: "odroid-c1", Driver: driver, TxDelayNs: ns, PhyMode: "rgmii",
			Stmmac: sim.StmmacTuning{Tree: "v5.5-rc"}}
	}
	plain := Options{Parallel: 1, CC: "cubic"}
	cases := []struct {
		name string
		d    sim.Description
		o    Options
		abl  string
		want float64 // the real Mbit/s shown; 0: none
	}{
		{"after the fix", desc("fixed", 2), plain, "none", 778},
		{"before the fix", desc("pre-fix", 4), plain, "none", 153},
		{"pre-fix at 2 ns", desc("pre-fix", 2), plain, "none", 0},
		{"fixed at 4 ns", desc("fixed", 4), plain, "none", 0},
		{"reverse", desc("fixed", 2), Options{Parallel: 1, CC: "cubic", Reverse: true}, "none", 0},
		{"reno", desc("fixed", 2), Options{Parallel: 1, CC: "reno"}, "none", 0},
		{"two streams", desc("fixed", 2), Options{Parallel: 2, CC: "cubic"}, "none", 0},
		{"ablation", desc("fixed", 2), plain, "tsq", 0},
		{"100 Mbit/s", desc("fixed", 2), Options{Parallel: 1, CC: "cubic", Sim: sim.Options{Speed: 100}}, "none", 0},
		{"mechanism B", desc("fixed", 2), Options{Parallel: 1, CC: "cubic", Sim: sim.Options{Mechanism: "B"}}, "none", 0},
	}
	for _, c := range cases {
		r := &Report{Description: c.d, Ablation: c.abl}
		got, ok := commitRun(r, c.o)
		if ok != (c.want != 0) || ok && got.Mbps != c.want {
			t.Errorf("%s: commit run %v (%v), want %v Mbit/s", c.name, got, ok, c.want)
		}
	}
}
