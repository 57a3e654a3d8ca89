package pcap

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongOptionsStayParseable: the comment and interface name come from the
// user (board name, command line). An option's length is 16 bits, so a 70000-byte
// comment used to wrap its length field and leave a file no reader can walk.
// Long values are cut to fit, at a UTF-8 boundary (pcapng strings are UTF-8).
// (Found by FuzzWriter.)
func TestLongOptionsStayParseable(t *testing.T) {
	tests := []struct {
		name, comment string
		wantName      int // bytes read back
		wantComment   int
	}{
		{"eth", strings.Repeat("c", 70000), 3, 65535},
		{strings.Repeat("n", 65536), "ok", 65535, 2},
		// 21845 three-byte runes = 65535 bytes fit; one more does not, and cutting
		// at 65535 bytes would split it: 65535 bytes of whole runes remain.
		{"eth", strings.Repeat("€", 21846), 3, 65535},
		{"eth", "a" + strings.Repeat("€", 21846), 3, 65533},
		{"eth", strings.Repeat("x", 65535), 3, 65535},
		// Not UTF-8 at the cut (only continuation bytes): cut at the limit.
		{"eth", strings.Repeat("\x87", 70000), 3, 65535},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		w, err := NewWriter(&out, tt.name, tt.comment)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFrame(1, []byte{1, 2, 3}, FlagInbound); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		file, err := parsePcapng(out.Bytes())
		if err != nil {
			t.Fatalf("name %d / comment %d bytes: %v", len(tt.name), len(tt.comment), err)
		}
		if len(file.ifName) != tt.wantName || len(file.comment) != tt.wantComment ||
			utf8.ValidString(tt.comment) && !utf8.Valid(file.comment) || !strings.HasPrefix(tt.comment, string(file.comment)) ||
			!strings.HasPrefix(tt.name, string(file.ifName)) || len(file.packets) != 1 {
			t.Errorf("name %d / comment %d bytes read back as %d / %d bytes, %d packets",
				len(tt.name), len(tt.comment), len(file.ifName), len(file.comment), len(file.packets))
		}
	}
}
