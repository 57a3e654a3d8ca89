package linuxmodel

import (
	"testing"

	"mesonemu/emu"
	"mesonemu/netstack/link"
)

// timedCard records when each frame reached it; busy makes it refuse.
type timedCard struct {
	m     *emu.Machine
	at    []emu.Time
	busy  bool
	ready func()
	recv  func([]byte)
}

func (c *timedCard) Transmit([]byte) error {
	if c.busy {
		return link.ErrBusy
	}
	c.at = append(c.at, c.m.Now())
	return nil
}
func (c *timedCard) SetTxReady(fn func())        { c.ready = fn }
func (c *timedCard) SetReceiver(fn func([]byte)) { c.recv = fn }

// TestSoftnetTakesTurns: sent and received frames take turns on the one core,
// each for its cost; a busy card keeps the processed frame, which goes
// without a second charge when the card has room; the backlog drops what is
// over netdev_max_backlog and counts runts.
func TestSoftnetTakesTurns(t *testing.T) {
	m := emu.NewMachine(1)
	card := &timedCard{m: m}
	cpu := NewCPU(m, 1000, 1) // 1 us per packet plus 1 ns per byte
	s := NewSoftnet(m, cpu, card)
	q := link.NewQdisc(s)
	var up []emu.Time
	s.SetReceiver(func([]byte) { up = append(up, m.Now()) })

	frame := make([]byte, 100) // 1.1 us on the core
	_ = q.Transmit(frame)
	_ = q.Transmit(frame)
	// The received frame asks for the core now, behind the first sent frame;
	// the second sent frame asks only when the first has left the core.
	card.recv(frame)
	m.Advance(10 * emu.Microsecond)
	if want := []emu.Time{1100, 3300}; len(card.at) != 2 || card.at[0] != want[0] || card.at[1] != want[1] {
		t.Fatalf("card got frames at %v, want %v", card.at, want)
	}
	if len(up) != 1 || up[0] != 2200 {
		t.Fatalf("received frame went up at %v, want [2200]", up)
	}

	card.busy = true
	_ = q.Transmit(frame)
	m.Advance(10 * emu.Microsecond) // processed, refused, held
	card.busy = false
	card.ready()
	m.Advance(emu.Microsecond)
	if len(card.at) != 3 || card.at[2] != 20*emu.Microsecond {
		t.Fatalf("held frame reached the card at %v, want at the TxReady (20 us)", card.at)
	}
	if busy := cpu.Busy(); busy != 4*1100 {
		t.Fatalf("core busy %d ns, want %d: the held frame was charged again", busy, 4*1100)
	}

	for range DefaultBacklog + 1 {
		card.recv(frame)
	}
	card.recv(make([]byte, 13))
	st := s.Stats()
	if st.RxBacklogDrops != 1 || st.RxRunt != 1 || st.RxQueued != 1+DefaultBacklog {
		t.Fatalf("stats %+v: want 1 backlog drop, 1 runt, %d queued", st, 1+DefaultBacklog)
	}
	if n := s.Close(); n != 0 || st.TxSent != 3 {
		t.Fatalf("Close: %d held; %d sent; want 0 and 3", n, st.TxSent)
	}
}

// givingCard is a timedCard that gives its received frames.
type givingCard struct{ timedCard }

func (*givingCard) GivesFrames() bool { return true }

// sendingCard lets the delayed-ACK model sit on a card; it forwards the
// card's GivesFrames.
type sendingCard struct{ link.Endpoint }

func (c sendingCard) SendLocked(f []byte) error { return c.Transmit(f) }
func (c sendingCard) GivesFrames() bool         { return link.GivesFrames(c.Endpoint) }

// TestSoftnetCopiesOnlyLentFrames: a frame from a card that lends it is
// copied into the backlog (the card may reuse its buffer once the call
// returns); one from a card that gives it, also through the delayed-ACK
// model on the way, goes up as it came.
func TestSoftnetCopiesOnlyLentFrames(t *testing.T) {
	for _, c := range []struct {
		name     string
		give     bool
		delayed  bool
		wantSame bool
	}{
		{"lent", false, false, false},
		{"given", true, false, true},
		{"given, through the delayed ACKs", true, true, true},
		{"lent, through the delayed ACKs", false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := emu.NewMachine(1)
			tc := &timedCard{m: m}
			var card link.Endpoint = tc
			if c.give {
				gc := &givingCard{timedCard{m: m}}
				tc, card = &gc.timedCard, gc
			}
			if c.delayed {
				a, err := NewDelayedAcks(m, 1500, sendingCard{card})
				if err != nil {
					t.Fatal(err)
				}
				card = a
			}
			s := NewSoftnet(m, nil, card)
			var up [][]byte
			s.SetReceiver(func(f []byte) { up = append(up, f) })
			frame := make([]byte, 100)
			tc.recv(frame)
			frame[0] = 0xff // the card reuses its buffer
			m.Advance(emu.Microsecond)
			if len(up) != 1 {
				t.Fatalf("%d frames went up, want 1", len(up))
			}
			if same := &up[0][0] == &frame[0]; same != c.wantSame {
				t.Fatalf("frame went up as the card's own slice: %v, want %v", same, c.wantSame)
			}
			if want := byte(0); !c.wantSame && up[0][0] != want {
				t.Fatalf("copied frame's first byte %#x, want %#x", up[0][0], want)
			}
		})
	}
}
