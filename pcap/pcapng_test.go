package pcap

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mesonemu/ether"
)

func frame(n int, seed byte) []byte {
	f := make([]byte, n)
	copy(f, []byte{0x02, 0x50, 0x43, 0, 0, 1, 0x02, 0xad, 0, 0, 0, 2, 0x88, 0xb5})
	for i := 14; i < n; i++ {
		f[i] = byte(i) ^ seed
	}
	return ether.AppendFCS(f)
}

// readBlocks walks the file's blocks and returns their types, checking lengths.
func readBlocks(t *testing.T, b []byte) []uint32 {
	t.Helper()
	var types []uint32
	for len(b) > 0 {
		if len(b) < 12 {
			t.Fatalf("truncated block: %d bytes left", len(b))
		}
		typ, total := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		if total%4 != 0 || int(total) > len(b) || binary.LittleEndian.Uint32(b[total-4:]) != total {
			t.Fatalf("block %#x: bad total length %d", typ, total)
		}
		types = append(types, typ)
		b = b[total:]
	}
	return types
}

func TestWriterProducesWellFormedBlocks(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "test", "mesonemu test")
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{60, 61, 1514, MaxFrame + 100} {
		if err := w.WriteFrame(int64(i)*12304, frame(n, byte(i)), FlagOutbound); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got := readBlocks(t, buf.Bytes())
	want := []uint32{blockSHB, blockIDB, blockEPB, blockEPB, blockEPB, blockEPB}
	if len(got) != len(want) {
		t.Fatalf("blocks %x, want %x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("block %d is %#x, want %#x", i, got[i], want[i])
		}
	}
}

// TestTsharkCountsBadFCS checks with the real tshark that the file reads and that
// its count of bad-FCS frames matches ours.
func TestTsharkCountsBadFCS(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tshark is required in CI (apt-get install tshark)")
		}
		t.Skip("tshark not installed (apt-get install tshark)")
	}
	path := filepath.Join(t.TempDir(), "wire.pcapng")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(f, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := 0; i < 50; i++ {
		fr := frame(1514, byte(i))
		flags := FlagOutbound
		if i%7 == 3 {
			fr[100] ^= 0x10
			flags |= FlagCRCError
			bad++
		}
		if err := w.WriteFrame(int64(i)*12304, fr, flags); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := exec.Command(tshark, "-r", path, "-o", "eth.check_fcs:TRUE", "-Y", "eth.fcs.status == \"Bad\"", "-T", "fields", "-e", "frame.number").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != bad {
		t.Fatalf("tshark counts %d bad-FCS frames, we wrote %d:\n%s", len(lines), bad, out)
	}
}
