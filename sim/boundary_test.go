package sim

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// The hardware/guest boundary (DESIGN.md): hardware models never import guest
// code, and the guest reaches hardware only through the emulated bus, as
// Linux reaches silicon, so no guest package imports a hardware one either.
// emu (bus, IRQ lines, time) and ether (frame constants and helpers) are the
// medium both sides share. Checked on the import graph, transitively.
var (
	hardwarePackages = []string{"soc", "soc/board", "stmmac", "phy", "mdio", "rgmiiwire", "farend", "platform", "reg"}
	guestPackages    = []string{"kernel", "soc/clk", "soc/clk/meson", "soc/dwmacmeson8b", "stmmac/stmmaceth", "phy/realtek", "boot"}
)

func TestHardwareAndGuestNeverImportEachOther(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list imports with")
	}
	side := map[string]string{}
	for _, p := range hardwarePackages {
		side["mesonemu/"+p] = "hardware"
	}
	for _, p := range guestPackages {
		side["mesonemu/"+p] = "guest"
	}
	for pkg, mine := range side {
		out, err := exec.Command(goBin, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			dep := strings.TrimSpace(sc.Text())
			if other, ok := side[dep]; ok && other != mine {
				t.Errorf("%s package %s depends on %s package %s", mine, pkg, other, dep)
			}
		}
	}
}
