package netstack

import (
	"net/netip"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/checksum"
	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/emu"
	"mesonemu/netstack/internal/frametest"
)

// floodNIC is a card whose cable delivers the same frame every microsecond.
type floodNIC struct {
	m     *emu.Machine
	recv  func([]byte)
	frame []byte
}

func (n *floodNIC) Transmit([]byte) error       { return nil }
func (n *floodNIC) SetTxReady(func())           {}
func (n *floodNIC) SetReceiver(fn func([]byte)) { n.recv = fn }
func (n *floodNIC) flood() {
	if n.recv != nil {
		n.recv(n.frame)
	}
	n.m.GuestAfter(emu.Microsecond, n.flood)
}

// TestCloseWhileReceiving closes a host from a task while frames that make the
// stack answer (SYNs to a closed port: each draws a reset) keep arriving.
// Close must return, and the frames after it must be refused without a stall.
func TestCloseWhileReceiving(t *testing.T) {
	syn := frametest.TCP(frametest.PC, frametest.Board, 40000, 9, 1, 0, 0)
	tcp := header.TCP(syn[header.EthernetMinimumSize+header.IPv4MinimumSize:])
	tcp.SetFlags(uint8(header.TCPFlagSyn))
	tcp.SetChecksum(0)
	xsum := header.PseudoHeaderChecksum(header.TCPProtocolNumber, tcpip.AddrFrom4(frametest.PC), tcpip.AddrFrom4(frametest.Board), uint16(len(tcp)))
	tcp.SetChecksum(^checksum.Checksum(tcp, xsum))
	copy(syn[0:6], "\x02\x00\x00\x00\x00\x02")
	copy(syn[6:12], "\x02\x00\x00\x00\x00\x01")
	for i := range 5 {
		m := emu.NewMachine(uint64(i))
		nic := &floodNIC{m: m, frame: syn}
		h, err := NewHost(HostConfig{Name: "board", Machine: m, Addr: netip.MustParsePrefix("198.18.0.2/24"),
			MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x02"), NIC: nic, Seeded: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		nic.flood()
		closer := m.Go("closer", func() {
			m.Sleep(2 * emu.Millisecond)
			h.Close()
		})
		end := 4 * emu.Millisecond
		if err := m.Run(nil, func() bool { return closer.Done() && m.Now() >= end }); err != nil {
			t.Fatal(err)
		}
		st := h.EP.Stats()
		if st.RxDelivered < 1000 || st.RxDelivered > 2100 {
			t.Errorf("round %d: %d frames delivered in the 2 ms before Close, want about 2000", i, st.RxDelivered)
		}
		m.Stop()
	}
}
