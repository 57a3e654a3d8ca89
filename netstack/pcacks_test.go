package netstack

import (
	"bytes"
	"testing"

	"gvisor.dev/gvisor/pkg/tcpip/header"

	"mesonemu/emu"
)

// withSACK puts one SACK block into an ACK's option space (NOP, NOP, kind 5,
// length 10, one left/right edge pair), as a receiver that saw a hole sends.
func withSACK(f []byte) []byte {
	opts := f[header.EthernetMinimumSize+header.IPv4MinimumSize+header.TCPMinimumSize:]
	copy(opts, []byte{1, 1, 5, 10, 0, 0, 0x10, 0, 0, 0, 0x20, 0})
	return f
}

// TestPCAckPolicy walks one flow through Linux's receiver ACK policy: an ACK
// for one MSS waits, the ACK for the second MSS replaces it, a lone ACK goes
// out when the 40 ms timer expires, and duplicate ACKs, SACK-bearing ACKs,
// data and other frames are never held.
func TestPCAckPolicy(t *testing.T) {
	m := emu.NewMachine(1)
	var sent [][]byte
	acks := pcAcks{send: func(f []byte) { sent = append(sent, append([]byte(nil), f...)) }}
	const base = 1000
	steps := []struct {
		name     string
		frame    []byte
		wait     emu.Time // virtual time that passes after the frame
		wantHeld bool
		wantSent int // frames the timer has sent so far
		want     PCAckStats
	}{
		{"first ACK of the flow", ackFrame(base), 0, false, 0, PCAckStats{}},
		{"one MSS more: waits", ackFrame(base + 1448), 0, true, 0, PCAckStats{HeldAtEnd: 1}},
		{"two MSS more: goes, replaces the held one", ackFrame(base + 2896), 0, false, 0, PCAckStats{Superseded: 1}},
		{"one MSS more, then nothing for 40 ms", ackFrame(base + 4344), 40 * emu.Millisecond, true, 1, PCAckStats{Superseded: 1, Delayed: 1}},
		{"a duplicate ACK goes at once", ackFrame(base + 4344), 0, false, 1, PCAckStats{Superseded: 1, Delayed: 1}},
		{"an ACK with SACK blocks goes at once", withSACK(ackFrame(base + 5792)), 0, false, 1, PCAckStats{Superseded: 1, Delayed: 1}},
		{"data from the PC goes at once", tcpFrame(pcAddr, boardAddr, 5201, 40000, 1, base+5792, 100), 0, false, 1, PCAckStats{Superseded: 1, Delayed: 1}},
		{"less than one MSS more: waits", ackFrame(base + 5793), 0, true, 1, PCAckStats{Superseded: 1, Delayed: 1, HeldAtEnd: 1}},
		{"not TCP/IPv4 goes at once", make([]byte, 60), 0, false, 1, PCAckStats{Superseded: 1, Delayed: 1, HeldAtEnd: 1}},
	}
	for _, st := range steps {
		m.Lock()
		held := acks.hold(m, st.frame)
		m.Unlock()
		m.Advance(st.wait)
		m.Lock()
		got := acks.stats()
		m.Unlock()
		if held != st.wantHeld || len(sent) != st.wantSent || got != st.want {
			t.Fatalf("%s: held %v, timer sent %d, stats %+v; want %v, %d, %+v",
				st.name, held, len(sent), got, st.wantHeld, st.wantSent, st.want)
		}
	}
	if !bytes.Equal(sent[0], ackFrame(base+4344)) {
		t.Errorf("the timer sent a frame other than the held ACK")
	}
}

// TestPCAckFlowsApart: an ACK on one flow does not supersede another flow's.
func TestPCAckFlowsApart(t *testing.T) {
	m := emu.NewMachine(1)
	acks := pcAcks{send: func([]byte) {}}
	other := func(ack uint32) []byte { return tcpFrame(pcAddr, boardAddr, 5201, 40001, 1, ack, 0) }
	m.Lock()
	defer m.Unlock()
	for _, f := range [][]byte{ackFrame(1000), other(1000), ackFrame(2448)} {
		acks.hold(m, f)
	}
	if held := acks.hold(m, other(2448)); !held {
		t.Errorf("the second flow's one-MSS ACK was not held")
	}
	if got := acks.stats(); got.Superseded != 0 || got.HeldAtEnd != 2 {
		t.Errorf("stats %+v; want nothing superseded and one ACK held per flow", got)
	}
}
