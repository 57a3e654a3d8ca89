package tap

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// maxBurstLoss is the most of the host's UDP datagrams the fixed board's
// path may lose at 2 x 100 Mbit/s: the wire breaks none, so what is lost is
// the host's socket overflowing on bursts of frames an engine running late
// releases at once (0.08-0.28 % on Go's timers, 0 % with the pacer on a
// quiet host).
const maxBurstLoss = 0.05 // %

// TestHostUDPFromTheBoardIsNotBursty: the host's iperf3 -u -b 100M -P 2 -R
// -t 3 against the board's server, fixed driver, on a quiet host and beside
// two `yes` processes. The host loses under 0.05 % of the datagrams, or the
// test skips with the engine's measured lag when the host could not keep up.
func TestHostUDPFromTheBoardIsNotBursty(t *testing.T) {
	need(t, "iperf3", "yes")
	desc := describe(t, fixedBoard)
	for _, hogs := range []int{0, 2} {
		t.Run(map[int]string{0: "quiet", 2: "beside two yes"}[hogs], func(t *testing.T) {
			hog(t, hogs)
			ns, ctx := tapNetns(t, 25*time.Second)
			var cout, cerr bytes.Buffer
			var cliErr error
			done := make(chan struct{})
			r := runBoard(ctx, ns, fixedBoard, "", []string{"-s", "-1"}, func() {
				defer close(done)
				cli := ns.exec(ctx, 20*time.Second, "iperf3", "-c", boardIP, "-u", "-b", "100M", "-P", "2", "-R", "-t", "3", "-J")
				cli.Stdout, cli.Stderr = &cout, &cerr
				cliErr = cli.Run()
			})
			<-done
			if r.err != nil || r.code != 0 || cliErr != nil {
				t.Fatalf("board: exit %d, %v; host iperf3: %v\n%s\n%s", r.code, r.err, cliErr, cerr.String(), cout.String())
			}
			checkConservation(t, r.c)
			var u udpJSON
			if err := json.Unmarshal(cout.Bytes(), &u); err != nil {
				t.Fatalf("host iperf3 JSON: %v\n%s", err, cout.String())
			}
			sum := u.End.Sum
			t.Logf("%d of %d datagrams lost (%.3f %%); board frames %d, written to the host %d; pacing %+v",
				sum.LostPackets, sum.Packets, sum.LostPercent, r.c.FromBoard, r.c.WrittenToHost, r.c.Pacing)
			if sum.Packets < 40000 {
				laggedSkip(t, r.c.Pacing, desc, "the host received %d datagrams in 3 s at 2 x 100 Mbit/s; want at least 40000", sum.Packets)
			}
			if sum.LostPercent >= maxBurstLoss {
				laggedSkip(t, r.c.Pacing, desc, "the host lost %.3f %% of the board's datagrams (%d of %d); want under %.2f %%",
					sum.LostPercent, sum.LostPackets, sum.Packets, maxBurstLoss)
			}
		})
	}
}
