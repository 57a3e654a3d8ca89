package sim

import (
	"bufio"
	"bytes"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The hardware/guest boundary (docs/layers.md): hardware models never import
// guest code, and the guest reaches hardware only through the emulated bus, as
// Linux reaches silicon, so no guest package imports a hardware one either.
// emu (bus, IRQ lines, time) and ether (frame constants and helpers) are the
// medium both sides share. Checked on the import graph, transitively. Every
// package under linux/ is the guest; nothing else is.
var (
	hardwarePackages = []string{"soc", "soc/board", "stmmac", "phy", "mdio", "rgmiiwire", "farend", "platform", "reg"}
	guestPackages    = []string{"linux/kernel", "linux/lib/dql", "linux/clk", "linux/clk/meson", "linux/clk/clktest", "linux/stmmac", "linux/stmmac/dwmacmeson8b", "linux/phy/realtek", "linux/boot", "linux/cpufreq"}
)

// moduleDeps lists, for every package of the module, what it depends on
// transitively (one go list call for the whole graph).
func moduleDeps(t *testing.T) map[string][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list imports with")
	}
	out, err := exec.Command(goBin, "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "mesonemu/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			deps[f[0]] = append(f[1:], f[0])
		}
	}
	return deps
}

func TestHardwareAndGuestNeverImportEachOther(t *testing.T) {
	all := moduleDeps(t)
	side := map[string]string{}
	for _, p := range hardwarePackages {
		side[modPath(p)] = "hardware"
	}
	for _, p := range guestPackages {
		side[modPath(p)] = "guest"
	}
	for pkg, mine := range side {
		for _, dep := range all[pkg] {
			if other, ok := side[dep]; ok && other != mine {
				t.Errorf("%s package %s depends on %s package %s", mine, pkg, other, dep)
			}
		}
	}
}

// The layers, bottom up: the shared medium, hardware and guest (side by side,
// checked above), the network stacks and the socket interface they offer, the
// applications on sockets, then what assembles and runs machines and the
// command. A package never depends on one in a layer above its own, so the
// stack never knows its applications (iperf3 once lived in netstack).
var layers = [][]string{
	{"emu", "emu/pace", "ether", "coop", "pcap", "counter", "devicetree", "linkclass", "shard"},
	append(append([]string{}, hardwarePackages...), guestPackages...),
	{"socket", "netstack", "netstack/link", "netstack/linuxmodel", "netstack/tcpseg", "netstack/internal/fifo", "netstack/internal/frametest"},
	{"iperf3"},
	{"sim", "capture", "perfrun", "linktest", "tap", "compare", "scan", "plot", "plot/internal/docimg", "cmd/mesonemu", "tools/lossyrelay", "tools/gvisorpatch"},
	// The public entry point for Go programs (the module's root, "."): it
	// wraps what runs machines, so nothing of the module imports it.
	{"."},
}

// modPath is a layer entry's import path.
func modPath(p string) string {
	if p == "." {
		return "mesonemu"
	}
	return "mesonemu/" + p
}

func TestLayersOnlyImportDownwards(t *testing.T) {
	all := moduleDeps(t)
	level := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			level[modPath(p)] = i
		}
	}
	for pkg, mine := range level {
		if _, ok := all[pkg]; !ok {
			t.Errorf("%s is not a package of the module", pkg)
		}
		for _, dep := range all[pkg] {
			if l, ok := level[dep]; ok && l > mine {
				t.Errorf("%s (layer %d) depends on %s (layer %d)", pkg, mine, dep, l)
			}
		}
	}
}

// unplaced lists the module's packages that no layer names, and the packages
// on the wrong side of the linux/ line: the guest is exactly what lives under
// linux/, so a reader can tell a package's side from its path.
func unplaced(all map[string][]string) []string {
	level := map[string]bool{}
	for _, l := range layers {
		for _, p := range l {
			level[modPath(p)] = true
		}
	}
	guest := map[string]bool{}
	for _, p := range guestPackages {
		guest[modPath(p)] = true
	}
	var bad []string
	for pkg := range all {
		underLinux := strings.HasPrefix(pkg, "mesonemu/linux/")
		switch {
		case !level[pkg]:
			bad = append(bad, pkg+": in no layer")
		case underLinux != guest[pkg]:
			bad = append(bad, pkg+": guest packages live under linux/, and only they")
		}
	}
	sort.Strings(bad)
	return bad
}

func TestEveryPackageHasALayer(t *testing.T) {
	for _, b := range unplaced(moduleDeps(t)) {
		t.Error(b)
	}
}

// The check above must notice a package nobody placed, and a guest package
// outside linux/ or a hardware one inside it.
func TestUnplacedFindsNewPackages(t *testing.T) {
	tests := []struct {
		pkg  string
		want string
	}{
		{"mesonemu/newthing", "mesonemu/newthing: in no layer"},
		{"mesonemu/linux/newdriver", "mesonemu/linux/newdriver: in no layer"},
	}
	for _, tt := range tests {
		all := map[string][]string{"mesonemu/emu": nil, tt.pkg: nil}
		if got := unplaced(all); len(got) != 1 || got[0] != tt.want {
			t.Errorf("with %s: unplaced = %q, want [%q]", tt.pkg, got, tt.want)
		}
	}
	saved := guestPackages
	defer func() { guestPackages = saved }()
	guestPackages = append([]string{"soc"}, saved...)
	if got := unplaced(map[string][]string{"mesonemu/soc": nil}); len(got) != 1 {
		t.Errorf("a guest package outside linux/: unplaced = %q, want one complaint", got)
	}
}
