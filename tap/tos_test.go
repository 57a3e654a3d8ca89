package tap

import (
	"context"
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
	// A second of full-rate TCP is ~100k frames: tshark's TCP analysis and
	// reassembly (not needed for these fields) and name resolution are off, so
	// it reads them in seconds; bounded all the same (it took over a minute
	// with them on, on a loaded machine).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tshark", "-n", "-r", pcap,
		"-o", "tcp.analyze_sequence_numbers:FALSE", "-o", "tcp.desegment_tcp_streams:FALSE",
		"-Y", "ip", "-T", "fields", "-E", "separator=,",
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
		for _, run := range []struct {
			role string
			run  func(*testing.T, *netns, context.Context, string, []string) (jsonDoc, jsonDoc)
		}{{"host client", hostClientBoardServer}, {"board client", boardClientHostServer}} {
			t.Run(run.role+"/"+tc.name, func(t *testing.T) {
				ns, ctx := tapNetns(t, 25*time.Second)
				pcap := filepath.Join(t.TempDir(), "wire.pcapng")
				client, server := run.run(t, ns, ctx, pcap, tc.args)
				checkTestStartTOS(t, tc.tos, client, server)
				checkWireTOS(t, pcap, tc.tos, tc.args)
			})
		}
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
