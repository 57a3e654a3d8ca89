package linktest

import (
	"bytes"
	"context"
	"testing"

	"mesonemu/emu"
	"mesonemu/ether"
	"mesonemu/platform"
	"mesonemu/sim"
)

// TestTapSeesEachFrameBeforeAndAfterTheWire: one tap sees every frame of both
// directions once, in time order, with the bytes the wire was given and the
// bytes it delivered; they differ exactly when the wire reports damage, and the
// frame before the wire always carries a good FCS.
func TestTapSeesEachFrameBeforeAndAfterTheWire(t *testing.T) {
	const frames = 20_000
	var seen, damaged [2]uint64
	var last emu.Time
	var bad []string
	tap := func(fr *platform.Frame) {
		seen[fr.Dir]++
		if fr.At < last {
			bad = append(bad, "frame observed out of time order")
		}
		last = fr.At
		same := bytes.Equal(fr.Before, fr.After)
		if fr.Wire.FrameDamaged {
			damaged[fr.Dir]++
		}
		switch {
		case !ether.CheckFCS(fr.Before):
			bad = append(bad, fr.Dir.String()+": bad FCS before the wire")
		case fr.Wire.FrameDamaged == same:
			bad = append(bad, fr.Dir.String()+": before/after bytes disagree with the wire's result")
		case fr.Wire.FrameDamaged == ether.CheckFCS(fr.After):
			bad = append(bad, fr.Dir.String()+": FCS after the wire disagrees with the wire's result")
		}
	}
	r, err := Run(context.Background(), sim.Options{Driver: "pre-fix", TxDelayNs: u32(4), Seed: 1},
		Options{Frames: frames, Size: 1514, Payload: "random", Direction: "both", Taps: []platform.Tap{tap}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("TX %d frames, %d damaged; RX %d frames, %d damaged", seen[platform.TX], damaged[platform.TX], seen[platform.RX], damaged[platform.RX])
	if len(bad) > 0 {
		t.Fatalf("%d bad records, first: %s", len(bad), bad[0])
	}
	if seen[platform.TX] != frames || seen[platform.RX] != frames {
		t.Errorf("tap saw %d TX and %d RX frames, want %d each", seen[platform.TX], seen[platform.RX], frames)
	}
	// Every damaged TX frame fails the far end's FCS check; nothing else does.
	if damaged[platform.TX] == 0 || damaged[platform.TX] != r.TX.CRCErrors {
		t.Errorf("tap saw %d damaged TX frames, the far end counted %d bad FCS", damaged[platform.TX], r.TX.CRCErrors)
	}
	if damaged[platform.RX] != 0 || r.RX.CRCErrors != 0 {
		t.Errorf("RX: %d damaged frames, %d bad FCS; want none at the default RX timing", damaged[platform.RX], r.RX.CRCErrors)
	}
}
