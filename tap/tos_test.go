package tap

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tosCases are -S and --dscp runs against Debian's iperf3 3.12: the TOS byte
// both ends put on their data frames is checked in the wire's capture.
var tosCases = []struct {
	name string
	args []string
	tos  int
}{
	{"tcp -S 0x10 -M 1000", []string{"-S", "0x10", "-M", "1000", "-t", "1", "-J"}, 0x10},
	{"udp -R --dscp af41", []string{"-u", "-b", "50M", "-R", "--dscp", "af41", "-t", "1", "-J"}, 0x88},
}

// wireTOS reads a capture with tshark and counts, by TOS byte, the frames
// with more than 100 bytes of payload on the data connections (not the
// first TCP connection, the control one) and on UDP; mss is the largest
// TCP payload seen on them.
func wireTOS(t *testing.T, pcap string) (byTOS map[int]int, ctrlTOS map[int]int, mss int) {
	t.Helper()
	out, err := exec.Command("tshark", "-r", pcap, "-Y", "ip", "-T", "fields", "-E", "separator=,",
		"-e", "ip.dsfield", "-e", "tcp.stream", "-e", "tcp.len", "-e", "udp.length").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	byTOS, ctrlTOS = map[int]int{}, map[int]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 4 {
			continue
		}
		tos, _ := strconv.ParseInt(strings.TrimPrefix(f[0], "0x"), 16, 32)
		tcpLen, _ := strconv.Atoi(f[2])
		udpLen, _ := strconv.Atoi(f[3])
		switch {
		case f[1] == "0":
			ctrlTOS[int(tos)]++
		case tcpLen > 100 || udpLen > 108:
			byTOS[int(tos)]++
			mss = max(mss, tcpLen)
		}
	}
	return byTOS, ctrlTOS, mss
}

func checkWireTOS(t *testing.T, pcap string, tos int, args []string) {
	t.Helper()
	data, ctrl, most := wireTOS(t, pcap)
	t.Logf("data frames by TOS %v, control %v, largest TCP payload %d", data, ctrl, most)
	if len(data) != 1 || data[tos] < 100 {
		t.Errorf("data frames by TOS %v, want all at %#x", data, tos)
	}
	if len(ctrl) != 1 || ctrl[0] == 0 {
		t.Errorf("control frames by TOS %v, want all at 0", ctrl)
	}
	if contains(args, "-M") && (most > 1000-12 || most < 900) {
		t.Errorf("largest data segment %d bytes with -M 1000", most)
	}
}

// TestInteropTOS: the board's -S, --dscp and -M against Debian's iperf3 in
// both roles: both ends' data frames carry the TOS byte, the control
// connection's do not, and each side's JSON test_start says it.
func TestInteropTOS(t *testing.T) {
	need(t, "iperf3", "ss", "tshark")
	for _, tc := range tosCases {
		t.Run("host client/"+tc.name, func(t *testing.T) {
			ns, ctx := interopNS(t)
			pcap := filepath.Join(t.TempDir(), "wire.pcapng")
			var cout, cerr bytes.Buffer
			var cliErr error
			done := make(chan struct{})
			r := runBoard(ctx, ns, fixedBoard, pcap, []string{"-s", "-1", "-J"}, func() {
				defer close(done)
				cli := ns.exec(ctx, 20*time.Second, "iperf3", append([]string{"-c", boardIP}, tc.args...)...)
				cli.Stdout, cli.Stderr = &cout, &cerr
				cliErr = cli.Run()
			})
			<-done
			boardOK(t, r)
			if cliErr != nil {
				t.Fatalf("Debian iperf3 client: %v\n%s\n%s", cliErr, cerr.String(), cout.String())
			}
			checkTestStartTOS(t, tc.tos, parseDoc(t, "client", cout.Bytes()), parseDoc(t, "board server", r.stdout.Bytes()))
			checkWireTOS(t, pcap, tc.tos, tc.args)
		})
		t.Run("board client/"+tc.name, func(t *testing.T) {
			ns, ctx := interopNS(t)
			pcap := filepath.Join(t.TempDir(), "wire.pcapng")
			srv := ns.exec(ctx, 20*time.Second, "iperf3", "-s", "-1", "-J", "-B", hostIP)
			var sout, serr bytes.Buffer
			srv.Stdout, srv.Stderr = &sout, &serr
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			ns.waitListening(ctx, 5201)
			r := runBoard(ctx, ns, fixedBoard, pcap, append([]string{"-c", hostIP}, tc.args...), nil)
			werr := srv.Wait()
			boardOK(t, r)
			if werr != nil {
				t.Fatalf("Debian iperf3 server: %v\n%s\n%s", werr, serr.String(), sout.String())
			}
			checkTestStartTOS(t, tc.tos, parseDoc(t, "board client", r.stdout.Bytes()), parseDoc(t, "Debian server", sout.Bytes()))
			checkWireTOS(t, pcap, tc.tos, tc.args)
		})
	}
}

func checkTestStartTOS(t *testing.T, tos int, docs ...jsonDoc) {
	t.Helper()
	for i, d := range docs {
		if got := d.num("start", "test_start", "tos"); got != float64(tos) {
			t.Errorf("document %d: test_start tos %v, want %d", i, got, tos)
		}
	}
}
