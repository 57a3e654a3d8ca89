package ether

import (
	"bytes"
	"testing"

	"mesonemu/emu"
)

func TestAppendFCSUsesIEEECRC32LittleEndian(t *testing.T) {
	// The CRC-32 check value of "123456789" is 0xcbf43926; Ethernet sends it
	// least significant byte first.
	got := AppendFCS([]byte("123456789"))
	want := append([]byte("123456789"), 0x26, 0x39, 0xf4, 0xcb)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendFCS = % x, want % x", got, want)
	}
}

func TestCheckFCS(t *testing.T) {
	good := AppendFCS(bytes.Repeat([]byte{0xa5}, 60))
	flipped := bytes.Clone(good)
	flipped[17] ^= 0x10
	badFCS := bytes.Clone(good)
	badFCS[len(badFCS)-1] ^= 0x80
	tests := []struct {
		name  string
		frame []byte
		want  bool
	}{
		{"good 64-byte frame", good, true},
		{"one payload bit flipped", flipped, false},
		{"one FCS bit flipped", badFCS, false},
		{"empty", nil, false},
		{"shorter than an FCS", []byte{1, 2, 3}, false},
		{"FCS of nothing", AppendFCS(nil), true},
	}
	for _, tc := range tests {
		if got := CheckFCS(tc.frame); got != tc.want {
			t.Errorf("%s: CheckFCS = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWireTime(t *testing.T) {
	tests := []struct {
		len, speed int
		want       emu.Time
	}{
		{1518, 1000, 12304}, // (8+1518+12)*8 bits at 1 ns/bit
		{64, 1000, 672},     // minimum frame: 84 byte times
		{1518, 100, 123040}, // 10 ns/bit
		{64, 10, 67200},     // 100 ns/bit
		{64, 0, 0},          // no link
		{-5, 1000, 160},     // negative length counts as empty: preamble + gap
		{64, 2500, 269},     // 672 bits at 2.5 Gbit/s = 268.8 ns, rounded up
		{1522, 1000, 12336}, // VLAN-tagged maximum
		{1518, 1, 12304000}, // 1 Mbit/s: 1 us per bit
		{100000, 1000, 800160},
	}
	for _, tc := range tests {
		if got := WireTime(tc.len, tc.speed); got != tc.want {
			t.Errorf("WireTime(%d, %d) = %d, want %d", tc.len, tc.speed, got, tc.want)
		}
	}
}

func TestParseMAC(t *testing.T) {
	tests := []struct {
		in      string
		want    MAC
		wantErr bool
	}{
		{"00:1e:06:61:7a:39", MAC{0x00, 0x1e, 0x06, 0x61, 0x7a, 0x39}, false},
		{"00-1E-06-61-7A-39", MAC{0x00, 0x1e, 0x06, 0x61, 0x7a, 0x39}, false},
		{"001e.0661.7a39", MAC{0x00, 0x1e, 0x06, 0x61, 0x7a, 0x39}, false},
		{"ff:ff:ff:ff:ff:ff", Broadcast, false},
		{"00:00:5e:00:53:01:02:03", MAC{}, true}, // EUI-64
		{"00:1e:06:61:7a", MAC{}, true},
		{"", MAC{}, true},
		{"zz:1e:06:61:7a:39", MAC{}, true},
	}
	for _, tc := range tests {
		got, err := ParseMAC(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseMAC(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
	m := MAC{0x02, 0, 0, 0, 0, 1}
	if m.String() != "02:00:00:00:00:01" || m.IsMulticast() || m.IsBroadcast() || m.IsZero() {
		t.Errorf("unicast %v: String/IsMulticast/IsBroadcast/IsZero wrong", m)
	}
	if !Broadcast.IsMulticast() || !Broadcast.IsBroadcast() || !(MAC{}).IsZero() {
		t.Errorf("broadcast/zero predicates wrong")
	}
}
