package netstack

import (
	"bytes"
	"io"
	"sync"
	"testing"
	"time"

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
			var nic *dropOnceNIC
			m, a, b := pair(t, 1, func(n FrameNIC) FrameNIC { nic = &dropOnceNIC{FrameNIC: n, marker: marker}; return nic })
			ln, err := b.Listen(5201)
			if err != nil {
				t.Fatal(err)
			}
			var data []byte
			ended := false
			peer := m.Go("peer", func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				data, _ = io.ReadAll(c)
				ended = true
			})
			prog := m.Go("program", func() {
				c, err := a.Dial(t.Context(), "198.18.0.1:5201")
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := c.Write(marker); err != nil {
					t.Error(err)
					return
				}
				_ = c.Close()
				// The scenario starts once the message has been lost.
				for nic.lostCount() == 0 {
					m.Sleep(emu.Millisecond)
				}
				if tc.linger {
					if n := a.Linger(t.Context(), 3*time.Second); n != 0 {
						t.Errorf("Linger: %d connections still unsettled after 3 s", n)
					}
				}
				a.Close()
			})
			// Ten RTOs' worth of waiting (gVisor's minimum RTO is 200 ms).
			end := 5 * emu.Second
			_ = m.Run(nil, func() bool { return prog.Done() && (peer.Done() || m.Now() >= end) })
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
