package linuxmodel

import (
	"bytes"
	"testing"

	"mesonemu/emu"
	"mesonemu/netstack/internal/frametest"
)

// lockedCard records what reaches the card, from the stack (Transmit) and
// from a timer (SendLocked, machine lock held).
type lockedCard struct {
	m            *emu.Machine
	sent, timers [][]byte
}

func (c *lockedCard) Transmit(f []byte) error {
	c.sent = append(c.sent, append([]byte(nil), f...))
	return nil
}
func (c *lockedCard) SendLocked(f []byte) error {
	c.timers = append(c.timers, append([]byte(nil), f...))
	return nil
}
func (c *lockedCard) SetTxReady(func())           {}
func (c *lockedCard) SetReceiver(fn func([]byte)) {}

func newAcks(t *testing.T, m *emu.Machine) (*DelayedAcks, *lockedCard) {
	t.Helper()
	card := &lockedCard{m: m}
	a, err := NewDelayedAcks(m, 1500, card)
	if err != nil {
		t.Fatal(err)
	}
	return a, card
}

// TestDelayedAckPolicy walks one flow through Linux's receiver ACK policy: an
// ACK for one MSS waits, the ACK for the second MSS replaces it, a lone ACK
// goes out when the 40 ms timer expires, and duplicate ACKs, SACK-bearing
// ACKs, data and other frames are never held.
func TestDelayedAckPolicy(t *testing.T) {
	m := emu.NewMachine(1)
	a, card := newAcks(t, m)
	ack := frametest.Ack
	const base = 1000
	steps := []struct {
		name       string
		frame      []byte
		wait       emu.Time // virtual time that passes after the frame
		wantPassed int      // frames that went to the card at once so far
		wantTimer  int      // frames the timer has sent so far
		want       AckStats
	}{
		{"first ACK of the flow", ack(base), 0, 1, 0, AckStats{}},
		{"one MSS more: waits", ack(base + 1448), 0, 1, 0, AckStats{HeldAtEnd: 1}},
		{"two MSS more: goes, replaces the held one", ack(base + 2896), 0, 2, 0, AckStats{Superseded: 1}},
		{"one MSS more, then nothing for 40 ms", ack(base + 4344), 40 * emu.Millisecond, 2, 1, AckStats{Superseded: 1, Delayed: 1}},
		{"a duplicate ACK goes at once", ack(base + 4344), 0, 3, 1, AckStats{Superseded: 1, Delayed: 1}},
		{"an ACK with SACK blocks goes at once", frametest.WithSACK(ack(base + 5792)), 0, 4, 1, AckStats{Superseded: 1, Delayed: 1}},
		{"data from the PC goes at once", frametest.TCP(frametest.PC, frametest.Board, 5201, 40000, 1, base+5792, 100), 0, 5, 1, AckStats{Superseded: 1, Delayed: 1}},
		{"less than one MSS more: waits", ack(base + 5793), 0, 5, 1, AckStats{Superseded: 1, Delayed: 1, HeldAtEnd: 1}},
		{"not TCP/IPv4 goes at once", make([]byte, 60), 0, 6, 1, AckStats{Superseded: 1, Delayed: 1, HeldAtEnd: 1}},
	}
	for _, st := range steps {
		if err := a.Transmit(st.frame); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		m.Advance(st.wait)
		got := a.Stats()
		if len(card.sent) != st.wantPassed || len(card.timers) != st.wantTimer || got != st.want {
			t.Fatalf("%s: %d passed, timer sent %d, stats %+v; want %d, %d, %+v",
				st.name, len(card.sent), len(card.timers), got, st.wantPassed, st.wantTimer, st.want)
		}
	}
	if !bytes.Equal(card.timers[0], ack(base+4344)) {
		t.Errorf("the timer sent a frame other than the held ACK")
	}
}

// TestDelayedAckFlowsApart: an ACK on one flow does not supersede another flow's.
func TestDelayedAckFlowsApart(t *testing.T) {
	m := emu.NewMachine(1)
	a, card := newAcks(t, m)
	other := func(ack uint32) []byte {
		return frametest.TCP(frametest.PC, frametest.Board, 5201, 40001, 1, ack, 0)
	}
	for _, f := range [][]byte{frametest.Ack(1000), other(1000), frametest.Ack(2448), other(2448)} {
		if err := a.Transmit(f); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.Stats(); got.Superseded != 0 || got.HeldAtEnd != 2 || len(card.sent) != 2 {
		t.Errorf("stats %+v, %d passed; want nothing superseded, one ACK held per flow, 2 passed", got, len(card.sent))
	}
}

// TestDelayedAcksNeedALockedSender: a card that cannot send from the timer's
// hardware event is refused with a reason.
func TestDelayedAcksNeedALockedSender(t *testing.T) {
	if _, err := NewDelayedAcks(emu.NewMachine(1), 1500, plainCard{}); err == nil {
		t.Fatal("a card without SendLocked was accepted")
	}
}

type plainCard struct{}

func (plainCard) Transmit([]byte) error    { return nil }
func (plainCard) SetTxReady(func())        {}
func (plainCard) SetReceiver(func([]byte)) {}
