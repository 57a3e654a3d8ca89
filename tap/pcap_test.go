package tap

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPcapBadFCSMatchesTshark: a pre-fix run with a capture of the wire;
// tshark, checking every frame's FCS itself, finds exactly as many bad ones as
// the emulator's receivers dropped for a bad FCS.
func TestPcapBadFCSMatchesTshark(t *testing.T) {
	need(t, "iperf3", "ss", "tshark")
	ns, ctx := tapNetns(t, 20*time.Second)
	srv := ns.exec(ctx, 15*time.Second, "iperf3", "-s", "-1", "-B", hostIP)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ns.waitListening(ctx, 5201)
	file := filepath.Join(t.TempDir(), "wire.pcapng")
	r := runBoard(ctx, ns, preFixBoard, file, []string{"-c", hostIP, "-t", "2"}, nil)
	if err := srv.Wait(); err != nil {
		t.Fatalf("Debian iperf3 server: %v", err)
	}
	r.check(t)
	w := r.c.Wire

	count := func(filter string) uint64 {
		t.Helper()
		// stdout only: tshark reports its own troubles on stderr.
		cmd := exec.CommandContext(ctx, "tshark", "-r", file, "-o", "eth.check_fcs:TRUE", "-Y", filter, "-T", "fields", "-e", "frame.number")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark -Y %q: %v\n%s", filter, err, stderr.String())
		}
		return uint64(strings.Count(string(out), "\n"))
	}
	all := count("frame")
	bad := count(`eth.fcs.status == "Bad"`)
	t.Logf("pcap: %d frames, tshark finds %d with a bad FCS; emulator: far end rx_crc_errors %d, align %d, board rx_crc_errors %d, sfd lost %d",
		all, bad, w.FarEndCRCErrors, w.FarEndAlignError, w.BoardCRCErrors, w.BoardSFDLost)
	if all != w.PcapFrames {
		t.Errorf("tshark reads %d frames, the capture wrote %d", all, w.PcapFrames)
	}
	// Every frame that crossed the wire is in the file: the TX direction's
	// frames reached the far end, the RX direction's frames the MAC (or lost
	// their SFD on the way).
	if want := r.c.FromBoard + w.FarEndCRCErrors + w.FarEndAlignError + r.c.SentToBoard; all != want {
		t.Errorf("pcap holds %d frames; the far end saw %d good + %d CRC + %d align and sent %d: %d",
			all, r.c.FromBoard, w.FarEndCRCErrors, w.FarEndAlignError, r.c.SentToBoard, want)
	}
	if w.FarEndCRCErrors == 0 {
		t.Fatal("pre-fix run without a single bad-FCS frame: nothing to compare")
	}
	if bad != w.PcapBadFCS {
		t.Errorf("tshark finds %d bad FCS, the capture flagged %d", bad, w.PcapBadFCS)
	}
	// A frame whose SFD was hit is counted as an alignment error by its
	// receiver, whatever its FCS; in the file it is bad only if bytes after
	// the SFD changed too.
	sfd := w.FarEndAlignError + w.BoardSFDLost
	if crc := w.CRCErrors(); bad < crc || bad > crc+sfd {
		t.Errorf("tshark finds %d bad-FCS frames; the receivers dropped %d for CRC (+ up to %d with a lost SFD)", bad, crc, sfd)
	}
	if sfd == 0 && bad != w.CRCErrors() {
		t.Errorf("tshark %d != emulator CRC errors %d", bad, w.CRCErrors())
	}
}
