package tap

import "testing"

// /proc/net/dev as Linux 6.x prints it: the two header lines, then one line
// per interface with 8 receive and 8 transmit fields.
const netDevSample = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
  tapb: 1064044219 702835    0    7    0     0          0         0 4013907   51126    0   11    0     0       0          0
tapp:12 3 0 1 0 0 0 0 45 6 0 2 0 0 0 0
`

func TestParseNetDev(t *testing.T) {
	for _, tc := range []struct {
		name, iface string
		data        string
		want        HostTAPStats
		ok          bool
	}{
		{"spaced", "tapb", netDevSample, HostTAPStats{RxPackets: 702835, RxDropped: 7, TxPackets: 51126, TxDropped: 11}, true},
		{"no space after colon", "tapp", netDevSample, HostTAPStats{RxPackets: 3, RxDropped: 1, TxPackets: 6, TxDropped: 2}, true},
		{"absent", "eth9", netDevSample, HostTAPStats{}, false},
		{"prefix of a name is not the name", "tap", netDevSample, HostTAPStats{}, false},
		{"short line", "x", "x: 1 2 3\n", HostTAPStats{}, false},
		{"not a number", "x", "x: 1 2 3 4 5 6 7 8 9 a 11 12 13 14 15 16\n", HostTAPStats{}, false},
		{"empty", "x", "", HostTAPStats{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseNetDev([]byte(tc.data), tc.iface)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseNetDev(%s) = %+v, %v; want %+v, ok %v", tc.iface, got, err, tc.want, tc.ok)
			}
		})
	}
	before := HostTAPStats{RxPackets: 1, RxDropped: 2, TxPackets: 3, TxDropped: 4}
	after := HostTAPStats{RxPackets: 11, RxDropped: 22, TxPackets: 33, TxDropped: 44}
	if d := after.Sub(before); d != (HostTAPStats{10, 20, 30, 40}) {
		t.Errorf("Sub = %+v", d)
	}
	if d := before.Sub(after); d != before {
		t.Errorf("Sub of a reset counter = %+v, want the counts since the reset %+v", d, before)
	}
}
