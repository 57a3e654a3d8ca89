package linuxmodel

import (
	"sync"

	"mesonemu/emu"
	"mesonemu/netstack/internal/fifo"
)

// Wake is the turnaround of a core that a receive interrupt finds idle:
// frames the card hands over while the core has no work booked reach the
// stack that much later; frames that find it working go straight on (behind
// any still waiting, so the order holds). Each interrupt on an idle core pays
// the turnaround from its own arrival, so it is a latency of the idle path,
// not work that queues: a CPU-bound core never sees it. A nil *Wake, or a
// zero turnaround, passes every frame at once.
type Wake struct {
	m          *emu.Machine
	cpu        *CPU
	turnaround emu.Time
	copyFrames bool // the card does not give its frames: keep a copy

	mu      sync.Mutex
	up      func([]byte)
	pending fifo.Queue[wakeFrame]
	ev      *emu.Event
	wakes   uint64 // distinct delivery times an idle core caused
}

type wakeFrame struct {
	at    emu.Time
	frame []byte
}

// NewWake puts a turnaround of d in front of cpu's receive path; gives says
// the card hands its frames over (they need no copy).
func NewWake(m *emu.Machine, cpu *CPU, d emu.Time, gives bool) *Wake {
	w := &Wake{m: m, cpu: cpu, turnaround: max(0, d), copyFrames: !gives}
	w.ev = m.NewGuestEvent(w.deliver)
	return w
}

// Receiver wraps up, the stack's receive function, in the turnaround.
func (w *Wake) Receiver(up func([]byte)) func([]byte) {
	if w == nil || w.turnaround == 0 {
		return up
	}
	w.mu.Lock()
	w.up = up
	w.mu.Unlock()
	return w.receive
}

func (w *Wake) receive(frame []byte) {
	now := w.m.Now()
	idle := w.cpu.Idle(now)
	w.mu.Lock()
	if !idle && w.pending.Len() == 0 {
		up := w.up
		w.mu.Unlock()
		up(frame)
		return
	}
	at := now
	if idle {
		at = now + w.turnaround
	}
	if n := w.pending.Len(); n > 0 {
		at = max(at, w.pending.Live()[n-1].at)
	} else {
		w.m.Lock()
		w.m.Schedule(w.ev, at)
		w.m.Unlock()
	}
	if n := w.pending.Len(); n == 0 || w.pending.Live()[n-1].at != at {
		w.wakes++
	}
	if w.copyFrames {
		frame = append([]byte(nil), frame...)
	}
	w.pending.Push(wakeFrame{at: at, frame: frame})
	w.mu.Unlock()
}

// deliver hands every frame whose time has come to the stack, in order, and
// waits for the next.
func (w *Wake) deliver() {
	now := w.m.Now()
	for {
		w.mu.Lock()
		if w.pending.Len() == 0 {
			w.mu.Unlock()
			return
		}
		head := w.pending.Live()[0]
		if head.at > now {
			w.m.Lock()
			w.m.Schedule(w.ev, head.at)
			w.m.Unlock()
			w.mu.Unlock()
			return
		}
		w.pending.PopFront(1)
		up := w.up
		w.mu.Unlock()
		up(head.frame)
	}
}

// Wakes is how many distinct times a frame found the core idle and waited
// out the turnaround.
func (w *Wake) Wakes() uint64 {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wakes
}

// Turnaround is the wake's turnaround (0 for a nil Wake).
func (w *Wake) Turnaround() emu.Time {
	if w == nil {
		return 0
	}
	return w.turnaround
}
