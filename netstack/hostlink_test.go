package netstack

import (
	"net/netip"
	"strings"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
	"mesonemu/netstack/linuxmodel"
)

// TestNewHostComposesWhatTheCardCanCarry: a Linux model is only composed on a
// card that offers what it needs; otherwise NewHost says which and why.
func TestNewHostComposesWhatTheCardCanCarry(t *testing.T) {
	for _, c := range []struct {
		name    string
		cfg     HostConfig
		noNIC   bool
		wantErr string
	}{
		{"plain path", HostConfig{}, false, ""},
		{"no card", HostConfig{}, true, "host h: no NIC"},
		{"TSQ on a card without TX completion", HostConfig{SmallQueues: linuxmodel.TSQOn}, false, "host h: TCP Small Queues: the card (*netstack.IdealPort) does not report TX completion"},
		{"delayed ACKs on a card that cannot send from a timer", HostConfig{DelayedAcks: true}, false, "host h: delayed ACKs: the card (*netstack.IdealPort) cannot send from a timer"},
	} {
		m := emu.NewMachine(1)
		cfg := c.cfg
		cfg.Name, cfg.Machine, cfg.Addr = "h", m, netip.MustParsePrefix("198.18.0.2/24")
		cfg.MAC = tcpip.LinkAddress("\x02\x00\x00\x00\x00\x02")
		if !c.noNIC {
			cfg.NIC = NewIdealWire(m, 1000, 0, 4).A
		}
		h, err := NewHost(cfg)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
		}
		if h != nil {
			h.Close()
		}
	}
}
