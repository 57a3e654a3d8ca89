package netstack

import (
	"bytes"
	"context"
	"io"
	"net/netip"
	"sync"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"

	"mesonemu/emu"
)

// dropOnceNIC loses the first frame it is given that contains marker, as a
// corrupted frame is lost on the pre-fix board's wire; every other frame
// (the retransmission of that one too) goes through.
type dropOnceNIC struct {
	FrameNIC
	marker []byte
	mu     sync.Mutex
	lost   int
}

func (n *dropOnceNIC) Transmit(frame []byte) error {
	n.mu.Lock()
	drop := n.lost == 0 && bytes.Contains(frame, n.marker)
	if drop {
		n.lost++
	}
	n.mu.Unlock()
	if drop {
		return nil
	}
	return n.FrameNIC.Transmit(frame)
}

func (n *dropOnceNIC) lostCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lost
}

// TestLingerDeliversLastMessage: a program writes its last message, closes the
// connection and ends, and the wire loses that message. With Linger the stack
// retransmits it after the RTO before the host goes away, so the peer reads
// it and the connection's end. Closing the host at once (Linger left out)
// drops the connection without a word on the wire: the peer neither gets the
// message nor learns that the connection is gone, and waits. That was the
// pre-fix board's iperf3 client whose IPERF_DONE was lost, and the Debian
// iperf3 server that then waited until the test killed it.
func TestLingerDeliversLastMessage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		linger bool
		// wantMarker: the peer reads the message and the connection's end.
		wantMarker bool
	}{
		{"close after linger", true, true},
		{"close at once", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := []byte("IPERF_DONE-marker")
			m := emu.NewMachine(1)
			w := NewIdealWire(m, 1000, 50*emu.Microsecond, 256)
			nic := &dropOnceNIC{FrameNIC: w.A, marker: marker}
			clk := NewClock(m)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			go m.RunPaced(ctx, 1)
			a, err := NewHost(HostConfig{Name: "a", Addr: netip.MustParsePrefix("198.18.0.2/24"),
				MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x02"), Clock: clk, NIC: nic, Seeded: 1})
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewHost(HostConfig{Name: "b", Addr: netip.MustParsePrefix("198.18.0.1/24"),
				MAC: tcpip.LinkAddress("\x02\x00\x00\x00\x00\x01"), Clock: clk, NIC: w.B, Seeded: 2})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := b.Listen(5201)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			got := make(chan []byte, 1)
			go func() {
				c, err := ln.Accept()
				if err != nil {
					got <- nil
					return
				}
				data, _ := io.ReadAll(c)
				got <- data
			}()
			c, err := a.Dial(ctx, "198.18.0.1:5201")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Write(marker); err != nil {
				t.Fatal(err)
			}
			c.Close()
			// The scenario starts once the message has been lost: wait for the
			// stack to have handed it to the card (a slow host may not yet have).
			for deadline := time.Now().Add(5 * time.Second); nic.lostCount() == 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the stack did not send the message within 5 s")
				}
			}
			if tc.linger {
				if n := a.Linger(ctx, 3*time.Second); n != 0 {
					t.Errorf("Linger: %d connections still unsettled after 3 s", n)
				}
			}
			a.Close()
			// Ten RTOs' worth of waiting (gVisor's minimum RTO is 200 ms).
			var data []byte
			ended := false
			select {
			case data = <-got:
				ended = true
			case <-time.After(2 * time.Second):
			}
			b.Close() // ends a read still waiting
			if tc.wantMarker && (!ended || !bytes.Equal(data, marker)) {
				t.Errorf("peer read %q (connection ended: %v); want the message and the end", data, ended)
			}
			if !tc.wantMarker && ended {
				t.Errorf("peer's read ended with %q although the host vanished without retransmitting; "+
					"want it still waiting (if gVisor now resets connections on Close, this test must learn that)", data)
			}
		})
	}
}
