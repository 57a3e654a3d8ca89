package farend_test

import (
	"math/rand/v2"
	"testing"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/farend"
	"mesonemu/rgmiiwire"
)

func odroidTX(macPs float64) rgmiiwire.Timing {
	return rgmiiwire.Timing{Direction: "TX", SpeedMbps: 1000, ClockPeriodPs: 8000, MACDelayPs: macPs,
		BoardSkewPs: 591, SetupPs: 300, HoldPs: 300, JitterSigmaPs: 60}
}

// Frames cross the wire into the far end; every frame is accounted for by cause,
// and the far end's drops are exactly the frames the wire damaged.
func TestWireIntoFarEndConservesFrames(t *testing.T) {
	tests := []struct {
		name      string
		macPs     float64
		frames    int
		wantAlign bool // every frame lost to framing (wrong half)
	}{
		{"pre-fix 8 ns", 8000, 50000, false},
		{"post-fix 2 ns", 2000, 5000, false},
		{"pre-fix 4 ns (wrong half)", 4000, 500, true},
	}
	for _, tc := range tests {
		m := emu.NewMachine(42)
		wire, err := rgmiiwire.New(odroidTX(tc.macPs), m.Rand("rgmii-tx"))
		if err != nil {
			t.Fatal(err)
		}
		nic, err := farend.New(m, farend.Config{})
		if err != nil {
			t.Fatal(err)
		}
		accepted := 0
		nic.SetConsumer(func([]byte) { accepted++ })
		payload := rand.New(rand.NewPCG(1, 2))
		var causes [8]int
		buf := make([]byte, 1514, 1518)
		for range tc.frames {
			for i := range buf {
				buf[i] = byte(payload.Uint32())
			}
			frame := ether.AppendFCS(buf[:1514])
			res := wire.Transmit(frame)
			cause := nic.Receive(frame, res.AlignmentError())
			causes[cause]++
			if res.Damaged() != (cause != farend.Accepted) {
				t.Fatalf("%s: wire %+v but far end %v", tc.name, res, cause)
			}
		}
		s := nic.StatsLocked()
		if s.RxFrames() != uint64(tc.frames) || uint64(accepted) != s.RxPackets {
			t.Errorf("%s: %d frames in, %d accounted, %d accepted", tc.name, tc.frames, s.RxFrames(), accepted)
		}
		lost := uint64(tc.frames) - s.RxPackets
		if lost != wire.Stats().Damaged || s.RxCRCErrors+s.RxAlignErrors != lost {
			t.Errorf("%s: lost %d, wire damaged %d, crc %d align %d", tc.name, lost, wire.Stats().Damaged, s.RxCRCErrors, s.RxAlignErrors)
		}
		if tc.wantAlign && s.RxAlignErrors != uint64(tc.frames) {
			t.Errorf("%s: %d align errors, want all %d", tc.name, s.RxAlignErrors, tc.frames)
		}
		if tc.macPs == 2000 && lost != 0 {
			t.Errorf("%s: %d frames lost with clean timing", tc.name, lost)
		}
		if tc.macPs == 8000 && (lost < 100 || lost > 280) { // 50,000 × 3.76e-3 = 188 ± 13.7
			t.Errorf("%s: %d lost, want about 188", tc.name, lost)
		}
		t.Logf("%s: %+v", tc.name, causes)
	}
}
