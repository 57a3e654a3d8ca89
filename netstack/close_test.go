package netstack

import (
	"net/netip"
	"sync"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/checksum"
	"gvisor.dev/gvisor/pkg/tcpip/header"
)

// floodNIC is a card whose cable delivers the same frame over and over.
type floodNIC struct {
	mu   sync.Mutex
	recv func([]byte)
}

func (n *floodNIC) Transmit([]byte) error { return nil }
func (n *floodNIC) SetReceiver(fn func([]byte)) {
	n.mu.Lock()
	n.recv = fn
	n.mu.Unlock()
}
func (n *floodNIC) deliver(f []byte) {
	n.mu.Lock()
	fn := n.recv
	n.mu.Unlock()
	if fn != nil {
		fn(f)
	}
}

// TestCloseWhileReceiving closes hosts while frames that make the stack answer
// (SYNs to a closed port: each draws a reset, which looks up a route under the
// stack's lock) keep arriving. Close must return: it once waited for the RX
// goroutine while holding the lock that goroutine needed.
func TestCloseWhileReceiving(t *testing.T) {
	syn := tcpFrame(pcAddr, boardAddr, 40000, 9, 1, 0, 0)
	tcp := header.TCP(syn[header.EthernetMinimumSize+header.IPv4MinimumSize:])
	tcp.SetFlags(uint8(header.TCPFlagSyn))
	tcp.SetChecksum(0)
	xsum := header.PseudoHeaderChecksum(header.TCPProtocolNumber, tcpip.AddrFrom4(pcAddr), tcpip.AddrFrom4(boardAddr), uint16(len(tcp)))
	tcp.SetChecksum(^checksum.Checksum(tcp, xsum))
	copy(syn[0:6], "\x02\x00\x00\x00\x00\x02")
	copy(syn[6:12], "\x02\x00\x00\x00\x00\x01")
	for i := range 20 {
		nic := &floodNIC{}
		h, err := NewHost(HostConfig{Name: "board", Addr: netip.MustParsePrefix("198.18.0.2/24"),
			MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x02"), NIC: nic, Seeded: int64(i)})
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		flooding := make(chan struct{})
		go func() {
			defer close(flooding)
			for {
				select {
				case <-stop:
					return
				default:
					nic.deliver(syn)
				}
			}
		}()
		time.Sleep(2 * time.Millisecond)
		closed := make(chan struct{})
		go func() {
			h.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: Host.Close did not return while frames were arriving", i)
		}
		close(stop)
		<-flooding
	}
}
