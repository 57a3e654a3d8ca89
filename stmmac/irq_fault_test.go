package stmmac

import "testing"

// TestMACInterruptMaskFollowsAtOnce: GMAC_INT_MASK gates the RGMII status into GLI
// and the line combinationally. Linux's core_init writes the mask (0x207) after the
// PHY may already have reported a link change; a mask write that left GLI and the
// line as they were would keep the line high with nothing for the driver to
// acknowledge (found by FuzzDMAEngines).
func TestMACInterruptMaskFollowsAtOnce(t *testing.T) {
	r := newRig(t, Config{})
	r.m.Lock()
	r.mac.SetLinkState(true, 1000, true)
	r.m.Unlock()
	steps := []struct {
		name     string
		mask     uint32
		wantGLI  bool
		wantLine bool
	}{
		{"unmasked: the link change asserts GLI", 0, true, true},
		{"Linux's default mask hides it", 0x207, false, false},
		{"unmasked again: still pending, asserts again", 0x206, true, true},
		{"RGMII bit alone masked", intRGMII.Mask(), false, false},
	}
	for _, s := range steps {
		r.w(offIntMask, s.mask)
		st := r.rd(offStatus)
		if st&stGLI.Mask() != 0 != s.wantGLI || r.irqLevel() != s.wantLine {
			t.Errorf("%s: CSR5 %#08x, line %v; want GLI %v, line %v", s.name, st, r.irqLevel(), s.wantGLI, s.wantLine)
		}
	}
	// The status itself stays pending under the mask until the driver reads it.
	if r.rd(offIntStatus)&intRGMII.Mask() == 0 {
		t.Fatal("masking cleared the RGMII status")
	}
	r.w(offIntMask, 0)
	r.rd(offRGMIIStatus)
	if r.rd(offStatus)&stGLI.Mask() != 0 || r.irqLevel() {
		t.Error("acknowledged RGMII interrupt still asserts the line")
	}
}
