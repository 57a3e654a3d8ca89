package perfrun

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"math"
	"strings"
	"testing"

	"mesonemu/iperf3"
	"mesonemu/sim"
)

// udpRun runs the board's iperf3 -J with args against the in-process PC.
func udpRun(t *testing.T, driver string, args string) (*iperf3.Result, *Iperf3Run) {
	t.Helper()
	var out, errOut bytes.Buffer
	o := Options{Sim: sim.Options{Driver: driver, TxDelayNs: u32(4), Seed: 1}}
	if driver == "fixed" {
		o.Sim.TxDelayNs = u32(2)
	}
	run, err := RunIperf3Counted(context.Background(), o, append(strings.Fields(args), "-J"), &out, &errOut)
	if err != nil || run.Code != 0 {
		t.Fatalf("%s: %v (exit %v)\n%s", args, err, run, errOut.String())
	}
	var res iperf3.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%s: -J output: %v\n%s", args, err, out.String())
	}
	if res.End.SumReceived == nil || res.End.SumReceived.UDPSum == nil || len(res.End.Streams) == 0 {
		t.Fatalf("%s: no UDP summary:\n%s", args, out.String())
	}
	rec, sent := res.End.SumReceived, res.End.SumSent
	t.Logf("%s %s: sent %d datagrams at %.1f Mbit/s, receiver lost %d/%d (%.3f %%), jitter %.3f ms; wire %+v",
		driver, args, sent.Packets, sent.BitsPerSecond/1e6, rec.LostPackets, rec.Packets, rec.LostPercent, rec.JitterMs, run.BoardToPC)
	return &res, run
}

// checkWireLoss holds the receiver's lost count to the wire model's exact
// prediction for the frames that crossed (3 binomial sigma), and to the
// frames the wire damaged: a datagram is lost on the wire or not at all.
func checkWireLoss(t *testing.T, name string, res *iperf3.Result, w UDPWire, drops uint64) {
	t.Helper()
	lost := res.End.SumReceived.LostPackets
	mean, sigma := w.Expected()
	if math.Abs(float64(lost)-mean) > 3*sigma+1 {
		t.Errorf("%s: %d lost, predicted %.0f ± %.1f (%.4f %% of %d frames of %d B)", name, lost, mean, sigma, 100*w.Predicted, w.Frames, w.FrameLen)
	}
	// The datagrams still in flight when the receiver stops counting were
	// damaged too late to show up as a gap.
	if d := int64(w.Damaged) + int64(drops) - lost; d < 0 || d > 3 {
		t.Errorf("%s: receiver lost %d, the wire damaged %d and the hosts dropped %d", name, lost, w.Damaged, drops)
	}
}

func hostDrops(r *Iperf3Run) uint64 {
	return r.Board.ReceiveBufferErrors + r.Board.BacklogDrops + r.PC.ReceiveBufferErrors + r.PC.BacklogDrops
}

// TestUDPLossIsTheWiresLoss is the UDP mode's acceptance check at 2 s instead
// of 10: pre-fix at 4 ns, 1472-byte datagrams at 500 Mbit/s lose 0.25-0.55 %,
// as the wire predicts for 1514-byte frames; 200-byte ones lose less, in
// proportion to their frames' length; the fixed driver loses nothing.
func TestUDPLossIsTheWiresLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("three emulated UDP tests (~15 s of wall time); skipped with -short")
	}
	big, bigRun := udpRun(t, "pre-fix", "-c 198.18.0.1 -u -b 500M -l 1472 -t 2")
	rec := big.End.SumReceived
	if rec.LostPercent < 0.25 || rec.LostPercent > 0.55 {
		t.Errorf("pre-fix 1472 B: %.3f %% lost, want 0.25..0.55", rec.LostPercent)
	}
	if rec.JitterMs <= 0 || rec.JitterMs > 1 {
		t.Errorf("pre-fix 1472 B: jitter %.4f ms", rec.JitterMs)
	}
	if bps := big.End.SumSent.BitsPerSecond; math.Abs(bps-500e6) > 5e6 {
		t.Errorf("pre-fix 1472 B: sent %.1f Mbit/s, want 500 (-b 500M)", bps/1e6)
	}
	if bigRun.BoardToPC.FrameLen != 1514 {
		t.Errorf("frames of %d B, want 1514", bigRun.BoardToPC.FrameLen)
	}
	checkWireLoss(t, "pre-fix 1472 B", big, bigRun.BoardToPC, hostDrops(bigRun))

	small, smallRun := udpRun(t, "pre-fix", "-c 198.18.0.1 -u -b 500M -l 200 -t 1")
	checkWireLoss(t, "pre-fix 200 B", small, smallRun.BoardToPC, hostDrops(smallRun))
	// Per-frame loss falls with the frame's line samples: 2·(L+12) each.
	ratio := smallRun.BoardToPC.Predicted / bigRun.BoardToPC.Predicted
	if want := float64(242+12) / float64(1514+12); math.Abs(ratio-want) > 0.15*want {
		t.Errorf("predicted loss 242 B / 1514 B = %.3f, want about the length ratio %.3f", ratio, want)
	}

	fixed, fixedRun := udpRun(t, "fixed", "-c 198.18.0.1 -u -b 500M -l 1472 -t 1")
	if fixed.End.SumReceived.LostPackets != 0 || fixedRun.BoardToPC.Damaged != 0 || fixed.End.SumReceived.Packets < 40000 {
		t.Errorf("fixed: %d of %d lost, %d damaged; want 0", fixed.End.SumReceived.LostPackets, fixed.End.SumReceived.Packets, fixedRun.BoardToPC.Damaged)
	}
}

// TestUDPSenderLimitedByTheBoard asks for 900 Mbit/s of 200-byte datagrams:
// the board's CPU cannot make that many frames, so its blocking socket holds
// the sender back and iperf3 reports what the CPU let through, while the
// receiver's loss is still only the wire's.
func TestUDPSenderLimitedByTheBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("an emulated UDP test; skipped with -short")
	}
	res, run := udpRun(t, "pre-fix", "-c 198.18.0.1 -u -b 900M -l 200 -t 1")
	bps := res.End.SumSent.BitsPerSecond
	if bps > 400e6 || bps < 50e6 {
		t.Errorf("sent %.1f Mbit/s of 200 B datagrams, want the board CPU's limit well below 900", bps/1e6)
	}
	checkWireLoss(t, "900M 200 B", res, run.BoardToPC, hostDrops(run))
	if run.Board.SendErrors != 0 {
		t.Errorf("board refused %d datagrams", run.Board.SendErrors)
	}
}

// TestUDPReverseIsClean runs -R -P 2 pre-fix: the board's RX direction has
// its PHY delay and loses nothing, so both streams arrive whole.
func TestUDPReverseIsClean(t *testing.T) {
	if testing.Short() {
		t.Skip("an emulated UDP test; skipped with -short")
	}
	res, run := udpRun(t, "pre-fix", "-c 198.18.0.1 -u -b 200M -l 1472 -t 1 -R -P 2")
	rec := res.End.SumReceived
	if len(res.End.Streams) != 2 || rec.LostPackets != 0 || rec.Packets < 30000 || run.PCToBoard.Frames < uint64(rec.Packets) {
		t.Errorf("reverse: %d streams, %d of %d lost, %d frames PC -> board", len(res.End.Streams), rec.LostPackets, rec.Packets, run.PCToBoard.Frames)
	}
	if res.End.SumSent.Packets < rec.Packets {
		t.Errorf("server sent %d, client saw up to %d", res.End.SumSent.Packets, rec.Packets)
	}
}

// TestTCPBitrate: -b 200M in the fixed configuration gives 200 Mbit/s
// within 2 % (iperf3's cumulative-average throttle on the test clock).
func TestTCPBitrate(t *testing.T) {
	if testing.Short() {
		t.Skip("an emulated TCP test; skipped with -short")
	}
	var out bytes.Buffer
	o := Options{Sim: sim.Options{Driver: "fixed", TxDelayNs: u32(2), Seed: 1}}
	run, err := RunIperf3Counted(context.Background(), o, strings.Fields("-c 198.18.0.1 -b 200M -t 2 -J"), &out, io.Discard)
	if err != nil || run.Code != 0 {
		t.Fatalf("%v %v", err, run)
	}
	var res iperf3.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*iperf3.EndSum{res.End.SumSent, res.End.SumReceived} {
		if math.Abs(s.BitsPerSecond-200e6) > 0.02*200e6 {
			t.Errorf("%.2f Mbit/s, want 200 within 2 %%", s.BitsPerSecond/1e6)
		}
	}
	if res.Start.TestStart.TargetBitrate != 200e6 {
		t.Errorf("target_bitrate %d", res.Start.TestStart.TargetBitrate)
	}
}

// TestBidirPreFix runs UDP --bidir pre-fix: the board's TX direction shows
// the wire's loss, its RX direction (the PHY's RX delay) none.
func TestBidirPreFix(t *testing.T) {
	if testing.Short() {
		t.Skip("an emulated UDP test; skipped with -short")
	}
	res, run := udpRun(t, "pre-fix", "-c 198.18.0.1 --bidir -u -b 300M -l 1472 -t 1")
	tx, rx := res.End.SumReceived, res.End.SumReceivedBidirReverse
	if rx == nil || rx.UDPSum == nil {
		t.Fatalf("no reverse sums: %+v", res.End)
	}
	checkWireLoss(t, "bidir TX", res, run.BoardToPC, 0)
	if tx.LostPackets == 0 || rx.LostPackets != 0 || rx.Packets < 20000 || run.PCToBoard.Damaged != 0 {
		t.Errorf("bidir: TX lost %d of %d, RX lost %d of %d (PC -> board damaged %d)", tx.LostPackets, tx.Packets,
			rx.LostPackets, rx.Packets, run.PCToBoard.Damaged)
	}
}

// TestUDPBoardDropsCountedApart: the PC sends 200-byte datagrams at
// 900 Mbit/s to the pre-fix board, whose CPU takes ~180 Mbit/s of them. The
// RX wire is clean; what the receiver lost is what the board's own backlog
// and socket dropped, and mesonemu counts it there.
func TestUDPBoardDropsCountedApart(t *testing.T) {
	if testing.Short() {
		t.Skip("an emulated UDP test; skipped with -short")
	}
	res, run := udpRun(t, "pre-fix", "-c 198.18.0.1 -u -b 900M -l 200 -t 1 -R")
	rec := res.End.SumReceived
	drops := run.Board.BacklogDrops + run.Board.ReceiveBufferErrors
	if run.PCToBoard.Damaged != 0 || drops == 0 || rec.LostPackets == 0 {
		t.Fatalf("wire damaged %d, board dropped %d, receiver lost %d", run.PCToBoard.Damaged, drops, rec.LostPackets)
	}
	// The board also drops datagrams sent after the receiver's last count
	// (the server sends on until TEST_END reaches it), and may still hold up
	// to a backlog's worth (1000) that it neither dropped nor counted.
	late := res.End.SumSent.Packets - rec.Packets
	if d := int64(drops) - rec.LostPackets; d < -1000 || d > late+1000 {
		t.Errorf("receiver lost %d, the board dropped %d, %d sent after the last counted", rec.LostPackets, drops, late)
	}
}

// TestClientPortInProcess: --cport binds the board's data streams to
// cport, cport+1, ... over TCP and UDP, as 3.12 does; the control
// connection keeps an ephemeral port.
func TestClientPortInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("emulated tests; skipped with -short")
	}
	for _, args := range []string{"-c 198.18.0.1 -t 1 -P 2 --cport 40000 -J", "-c 198.18.0.1 -u -b 10M -t 1 -P 2 --cport 40000 -J"} {
		var out bytes.Buffer
		o := Options{Sim: sim.Options{Driver: "fixed", TxDelayNs: u32(2), Seed: 1}}
		run, err := RunIperf3Counted(context.Background(), o, strings.Fields(args), &out, io.Discard)
		if err != nil || run.Code != 0 {
			t.Fatalf("%s: %v %v", args, err, run)
		}
		var res iperf3.Result
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Start.Connected) != 2 {
			t.Fatalf("%s: %v\n%s", args, err, out.String())
		}
		for i, c := range res.Start.Connected {
			if c.LocalPort != 40000+i {
				t.Errorf("%s: stream %d from port %d, want %d", args, i, c.LocalPort, 40000+i)
			}
		}
	}
}

// TestDontFragment: --dont-fragment is Linux's IP_PMTUDISC_DO on the
// board's IPv4 UDP socket. A datagram that fits the 1500-byte MTU with its
// 28 bytes of headers goes out; one byte more is refused with 3.12's
// "unable to write to stream socket: Message too long" (exit 1), where
// without the option the stack sends it in two fragments.
func TestDontFragment(t *testing.T) {
	if testing.Short() {
		t.Skip("emulated UDP tests; skipped with -short")
	}
	for _, tc := range []struct {
		args       string
		code       int
		stderr     string
		frameBytes int // the data frames' length (no FCS), 0: none sent
	}{
		{"-l 1472 --dont-fragment", 0, "\n", 1514},
		{"-l 1473 --dont-fragment", 1, "iperf3: error - unable to write to stream socket: Message too long\n", 0},
		{"-l 1473", 0, "\n", 1514}, // the first of each datagram's two fragments
	} {
		var out, errOut bytes.Buffer
		o := Options{Sim: sim.Options{Driver: "fixed", TxDelayNs: u32(2), Seed: 1}}
		args := strings.Fields("-c 198.18.0.1 -u -b 10M -t 1 " + tc.args)
		run, err := RunIperf3Counted(context.Background(), o, args, &out, &errOut)
		if err != nil || run.Code != tc.code || !strings.HasPrefix(errOut.String(), tc.stderr) {
			t.Errorf("%s: %v, exit %d, stderr %q; want exit %d, %q first", tc.args, err, run.Code, errOut.String(), tc.code, tc.stderr)
			continue
		}
		if got := run.BoardToPC.FrameLen; got != tc.frameBytes || (tc.frameBytes > 0 && run.BoardToPC.Frames < 800) {
			t.Errorf("%s: %d data frames of %d B, want frames of %d", tc.args, run.BoardToPC.Frames, got, tc.frameBytes)
		}
	}
}
