package perfrun

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"mesonemu/emu"
	"mesonemu/iperf3"
	"mesonemu/platform"
	"mesonemu/sim"
)

// wireLog counts the frames that crossed the cable by EtherType, and the
// IPv6 frames by direction and length (FCS included).
type wireLog struct {
	byType map[uint16]int
	lens   [2]map[int]int // TX (board -> PC), RX
	ns     [2]int         // neighbour solicitations to a solicited-node group, by direction
	tclass map[byte]int   // IPv6 data frames (100 B or more) by traffic class
}

func newWireLog() *wireLog {
	return &wireLog{byType: map[uint16]int{}, lens: [2]map[int]int{{}, {}}, tclass: map[byte]int{}}
}

func (w *wireLog) tap(fr *platform.Frame) {
	f := fr.Before
	et := binary.BigEndian.Uint16(f[12:14])
	w.byType[et]++
	if et != 0x86dd {
		return
	}
	i := 0
	if fr.Dir != platform.TX {
		i = 1
	}
	w.lens[i][len(f)]++
	if len(f) >= dataFrameMin {
		w.tclass[f[14]<<4|f[15]>>4]++
	}
	// ICMPv6 type 135 to 33:33:ff:xx:xx:xx.
	if f[0] == 0x33 && f[1] == 0x33 && f[2] == 0xff && f[14+6] == 58 && f[14+40] == 135 {
		w.ns[i]++
	}
}

// runBoard runs `mesonemu iperf3 args` in-process (the pre-fix driver at
// 4 ns, or the fixed one at 2 ns) with the frames logged, and returns its
// output and the log.
func runBoard(t *testing.T, driver, args string) (stdout, stderr string, code int, w *wireLog) {
	t.Helper()
	w = newWireLog()
	var out, errOut bytes.Buffer
	o := Options{Sim: sim.Options{Driver: driver, TxDelayNs: u32(4), Seed: 1}, Taps: []platform.Tap{w.tap}}
	if driver == "fixed" {
		o.Sim.TxDelayNs = u32(2)
	}
	run, err := RunIperf3Counted(context.Background(), o, strings.Fields(args), &out, &errOut)
	if err != nil {
		t.Fatalf("%s: %v\n%s", args, err, errOut.String())
	}
	return out.String(), errOut.String(), run.Code, w
}

// runJSON is runBoard for a -J run that must succeed, with its result.
func runJSON(t *testing.T, driver, args string) (*iperf3.Result, *wireLog) {
	t.Helper()
	out, _, code, w := runBoard(t, driver, args)
	if code != 0 {
		t.Fatalf("%s: exit %d", args, code)
	}
	return parseJSON(t, args, out), w
}

func parseJSON(t *testing.T, args, out string) *iperf3.Result {
	t.Helper()
	var res iperf3.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.End.SumReceived == nil || len(res.Start.Connected) == 0 {
		t.Fatalf("%s: -J output (%v):\n%s", args, err, out)
	}
	return &res
}

// TestIPv6TCPAcrossTheBoard: iperf3 -6 from the board to the PC crosses the
// stmmac driver, DMA, MAC filter, wire and far end as IPv6: every frame on
// the cable is IPv6 (NDP resolved the PC with one solicitation; the PC
// learnt the board's address from it), the full data frames
// are 1490 bytes with FCS where IPv4's are 1490 too (gVisor's segments carry
// 1400 data bytes over IPv6, 1420 over IPv4: the header's 20 extra bytes),
// and with the fixed driver (no loss) the throughput is IPv4's within the
// 1.4 % those bytes cost.
func TestIPv6TCPAcrossTheBoard(t *testing.T) {
	res, w := runJSON(t, "fixed", "-c 2001:2::1 -6 -t 1 -J")
	c := res.Start.Connected[0]
	if c.LocalHost != "2001:2::2" || c.RemoteHost != "2001:2::1" || res.Start.ConnectingTo.Host != "2001:2::1" {
		t.Fatalf("connected %+v, connecting to %+v", c, res.Start.ConnectingTo)
	}
	if n := w.byType[0x0800] + w.byType[0x0806]; n != 0 || w.ns != [2]int{1, 0} {
		t.Fatalf("frames by EtherType %v, neighbour solicitations %v: want IPv6 only, one solicitation from the board", w.byType, w.ns)
	}
	full := w.lens[0][1490]
	res4, w4 := runJSON(t, "fixed", "-c 198.18.0.1 -t 1 -J")
	v6, v4 := res.End.SumReceived.BitsPerSecond, res4.End.SumReceived.BitsPerSecond
	t.Logf("IPv6 %.1f Mbit/s (%d bytes, %d full data frames of 1490 B), IPv4 %.1f Mbit/s (%d IPv4 frames); IPv6 frames by length board->pc %v",
		v6/1e6, res.End.SumReceived.Bytes, full, v4/1e6, w4.byType[0x0800], w.lens[0])
	// The full frames' data bytes are nearly all the bytes received: the
	// rest came in each 128 KiB write's shorter last segment.
	if got, recv := uint64(full)*1400, res.End.SumReceived.Bytes; got > recv || got < recv*98/100 {
		t.Fatalf("%d full frames carry %d bytes; the receiver got %d", full, got, recv)
	}
	if r := v6 / v4; r < 0.97 || r > 1 {
		t.Fatalf("IPv6 %.1f Mbit/s is %.3f of IPv4's %.1f: want 0.97..1 (20 header bytes a frame cost 1.4 %%)", v6/1e6, r, v4/1e6)
	}
	if w4.byType[0x86dd] != 0 {
		t.Fatalf("an IPv4 run put %d IPv6 frames on the wire", w4.byType[0x86dd])
	}
}

// TestIPv6UDPLossIsTheWires: UDP over IPv6 through the pre-fix board: the
// 1428-byte datagrams (the control connection's MSS, as 3.12 takes it) ride
// 1494-byte frames, and what the receiver loses is what the wire model
// predicts for them.
func TestIPv6UDPLossIsTheWires(t *testing.T) {
	res, w := runJSON(t, "pre-fix", "-c 2001:2::1 -u -b 300M -t 1 -J")
	rec := res.End.SumReceived
	t.Logf("sent %d, lost %d/%d, IPv6 frames by length %v", res.End.SumSent.Packets, rec.LostPackets, rec.Packets, w.lens[0])
	if res.Start.TestStart.BlkSize != 1428 {
		t.Fatalf("block size %d, want 1428", res.Start.TestStart.BlkSize)
	}
	if n := w.lens[0][14+40+8+1428+4]; n < 25000 || uint64(n) < uint64(rec.Packets) {
		t.Fatalf("%d frames of 1494 B for %d datagrams", n, rec.Packets)
	}
	if rec.LostPackets == 0 || rec.LostPackets*100 > rec.Packets {
		t.Fatalf("lost %d of %d: want the pre-fix wire's few tenths of a percent", rec.LostPackets, rec.Packets)
	}
}

// TestIPv6RunRepeats: an IPv6 run is a function of the seed, byte for byte.
func TestIPv6RunRepeats(t *testing.T) {
	const args = "-c 2001:2::1 -t 1"
	first, _, _, _ := runBoard(t, "pre-fix", args)
	second, _, _, _ := runBoard(t, "pre-fix", args)
	if first != second || !strings.Contains(first, "local 2001:2::2 port ") {
		t.Fatalf("two runs of %s:\n%s\n----\n%s", args, first, second)
	}
}

// TestAddressFamilyErrors: -4 with an IPv6 address and -6 with an IPv4 one
// fail as 3.12 does, exit status 1.
func TestAddressFamilyErrors(t *testing.T) {
	for _, args := range []string{"-4 -c 2001:2::1", "-6 -c 198.18.0.1"} {
		out, errOut, code, _ := runBoard(t, "pre-fix", args)
		if want := "iperf3: error - unable to connect to server: Address family for hostname not supported\n"; code != 1 || errOut != want || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", args, code, out, errOut, want)
		}
	}
}

// TestBoardServesIPv6: the board's iperf3 -s -6 on an IPv6-only socket; the
// PC's client finds the board with a neighbour solicitation to the board's
// solicited-node group, which the stmmac MAC passes only because the driver
// put the group in its hash, and the test runs over IPv6.
func TestBoardServesIPv6(t *testing.T) {
	ctx := context.Background()
	w := newWireLog()
	b, err := Start(ctx, Options{Sim: sim.Options{Seed: 1}, IPv6: true, Taps: []platform.Tap{w.tap}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	env := iperf3.Env{Clock: b.Clock, Sched: b.Sched, Stdout: &out, Seed: 3,
		Listen: func(ctx context.Context, port int) (net.Listener, error) {
			return b.Board.ListenNet(iperf3.Network(ctx), uint16(port))
		}}
	code := -1
	board := b.Go("board iperf3 -s -6 -1", func() { code = iperf3.Main(ctx, []string{"-s", "-6", "-1"}, env) })
	var res *iperf3.Result
	var cerr error
	b.Go("pc iperf3 -c", func() {
		b.Sim.Machine().Sleep(10 * emu.Millisecond)
		res, cerr = iperf3.Run(ctx, iperf3.ClientOptions{Host: "2001:2::2", Seconds: 1, Dial: b.PC.Dial, Clock: b.Clock, Sched: b.Sched, Seed: 4})
	})
	if err := b.RunWhile(ctx, func() bool { return !board.Done() }); err != nil {
		t.Fatal(err)
	}
	t.Logf("neighbour solicitations %v; server output:\n%s", w.ns, out.String())
	if code != 0 || cerr != nil || res.End.SumReceived.Bytes == 0 {
		t.Fatalf("exit %d, client %v", code, cerr)
	}
	if w.ns != [2]int{0, 1} || w.byType[0x0800] != 0 {
		t.Fatalf("neighbour solicitations %v, frames by type %v: want one from the PC, no IPv4", w.ns, w.byType)
	}
	if s := out.String(); !strings.Contains(s, "Accepted connection from 2001:2::1, port ") || !strings.Contains(s, "] local 2001:2::2 port 5201 connected to 2001:2::1 port ") {
		t.Fatalf("server output:\n%s", s)
	}
}

// TestIPv6TrafficClass: -S sets the IPv6 traffic class of the data frames,
// as 3.12 sets IPV6_TCLASS on an IPv6 socket, for UDP and TCP.
func TestIPv6TrafficClass(t *testing.T) {
	for _, args := range []string{"-c 2001:2::1 -u -b 50M -t 1 -S 0x20 -J", "-c 2001:2::1 -b 50M -t 1 -S 0x20 -J"} {
		res, w := runJSON(t, "fixed", args)
		if res.Start.TestStart.TOS != 0x20 || w.tclass[0x20] < 1000 {
			t.Errorf("%s: tos %d, data frames by traffic class %v", args, res.Start.TestStart.TOS, w.tclass)
		}
	}
}
