// Package linkclass classifies a link from its frame counters: clean, lossy or
// dead. It imports nothing of the module, so the main job (perfrun), the raw
// frame test (linktest) and the public API share one classification while
// hardware models never see guest code through it.
package linkclass

import "fmt"

// Link classes of a verdict (--expect).
const (
	Clean = "clean" // no frame lost on the wire in either direction
	Lossy = "lossy" // some lost
	Dead  = "dead"  // frames were sent one way and none arrived
)

// Valid reports whether class is one of the three.
func Valid(class string) bool { return class == Clean || class == Lossy || class == Dead }

// DirectionLoss is one direction of the cable: frames that went onto the wire
// and those the receiving end never took.
type DirectionLoss struct {
	Sent uint64 `json:"frames_sent"`
	Lost uint64 `json:"frames_lost"`
}

// Classify is the class of a link and why, from what each direction sent
// and lost: board to PC (tx) and PC to board (rx).
func Classify(tx, rx DirectionLoss) (class, why string) {
	switch {
	case tx.Sent == 0 && rx.Sent == 0:
		return Dead, "no frame went onto the wire"
	case tx.Sent > 0 && tx.Lost >= tx.Sent:
		return Dead, fmt.Sprintf("every frame the board sent was lost on the wire (%d of %d)", tx.Lost, tx.Sent)
	case rx.Sent > 0 && rx.Lost >= rx.Sent:
		return Dead, fmt.Sprintf("every frame the PC sent was lost on the wire (%d of %d)", rx.Lost, rx.Sent)
	case tx.Lost+rx.Lost > 0:
		return Lossy, fmt.Sprintf("frames lost on the wire: %d of the board's %d, %d of the PC's %d",
			tx.Lost, tx.Sent, rx.Lost, rx.Sent)
	}
	return Clean, "no frame lost on the wire in either direction"
}

// Verdict is a link's class with the counts it was read from.
type Verdict struct {
	Class     string        `json:"class"`
	Why       string        `json:"why"`
	BoardToPC DirectionLoss `json:"board_to_pc"`
	PCToBoard DirectionLoss `json:"pc_to_board"`
}

// Judge is the verdict on a link that sent and lost these frames.
func Judge(tx, rx DirectionLoss) Verdict {
	v := Verdict{BoardToPC: tx, PCToBoard: rx}
	v.Class, v.Why = Classify(tx, rx)
	return v
}
