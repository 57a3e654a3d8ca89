package board

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mesonemu/devicetree"
)

func readDTB(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFromDeviceTreeOdroidC1(t *testing.T) {
	for _, tt := range []struct {
		file string
		ns   uint32
	}{{"odroidc1-4ns.dtb", 4}, {"odroidc1-2ns.dtb", 2}} {
		b, notes, err := FromDeviceTree(readDTB(t, tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if b.Name != "odroid-c1" || b.DT.PhyMode != "rgmii" || b.DT.TXDelayNS == nil || *b.DT.TXDelayNS != tt.ns ||
			b.DT.RXDelayNS != nil || b.DT.PHYAddr != 0 || len(notes) != 0 {
			t.Errorf("%s: board %s, DT %+v, notes %q; want odroid-c1, rgmii, %d ns, PHY at 0", tt.file, b.Name, b.DT, notes, tt.ns)
		}
		if !strings.Contains(b.DT.Source, "/soc/ethernet@c9410000") {
			t.Errorf("%s: DT source %q does not name the node", tt.file, b.DT.Source)
		}
		// Everything but the DT is the board's own.
		ref, _ := Lookup("odroid-c1")
		if b.TX.BoardSkewPs != ref.TX.BoardSkewPs || b.PHYID != ref.PHYID || b.DT.PHYResetDeassertUs != ref.DT.PHYResetDeassertUs {
			t.Errorf("%s: board parameters changed by the DT", tt.file)
		}
	}
}

func TestFromDeviceTreeRefusesBadPhyMode(t *testing.T) {
	_, _, err := FromDeviceTree(readDTB(t, "odroidc1-badmode.dtb"))
	if !errors.Is(err, ErrDeviceTree) || !strings.Contains(err.Error(), "/soc/ethernet@c9410000: phy-mode") ||
		!strings.Contains(err.Error(), "rgmii-sideways") {
		t.Errorf("err = %v, want a refusal naming the node and phy-mode", err)
	}
}

// The committed DTBs are what dtc makes of the committed sources.
func TestTestdataDTBsMatchSources(t *testing.T) {
	dtc := lookDTC(t)
	srcs, _ := filepath.Glob("testdata/*.dts")
	if len(srcs) == 0 {
		t.Fatal("no .dts in testdata")
	}
	for _, src := range srcs {
		got := compile(t, dtc, mustRead(t, src))
		if want := mustRead(t, strings.TrimSuffix(src, ".dts")+".dtb"); !bytes.Equal(got, want) {
			t.Errorf("%s: dtc output differs from the committed .dtb (rebuild: dtc -q -I dts -O dtb -o X.dtb X.dts)", src)
		}
	}
}

// Variations on the Odroid-C1 source, each refused with its node and property
// named, or read as Linux reads it.
func TestFromDeviceTreeVariations(t *testing.T) {
	dtc := lookDTC(t)
	base := string(mustRead(t, "testdata/odroidc1-4ns.dts"))
	tests := []struct {
		name, from, to string
		want           string // error text; empty: accepted
	}{
		{"no tx-delay (the glue's default)", "amlogic,tx-delay-ns = <4>;", "", ""},
		{"odd delay, as the glue masks it", "amlogic,tx-delay-ns = <4>;", "amlogic,tx-delay-ns = <3>;", ""},
		{"delay past the field", "amlogic,tx-delay-ns = <4>;", "amlogic,tx-delay-ns = <8>;", "ethernet@c9410000: amlogic,tx-delay-ns: <8>"},
		{"two-cell delay", "amlogic,tx-delay-ns = <4>;", "amlogic,tx-delay-ns = <4 4>;", "amlogic,tx-delay-ns: property"},
		{"rx delay", "amlogic,tx-delay-ns = <4>;", "amlogic,rx-delay-ns = <2>;", ""},
		{"rx delay past the binding", "amlogic,tx-delay-ns = <4>;", "amlogic,rx-delay-ns = <4>;", "amlogic,rx-delay-ns: <4>"},
		{"rmii", `phy-mode = "rgmii";`, `phy-mode = "rmii";`, `phy-mode: "rmii"`},
		{"no phy-mode", `phy-mode = "rgmii";`, "", "phy-mode: absent"},
		{"MAC disabled", `interrupt-names = "macirq";
			status = "okay";`, `status = "disabled";`, `compatible: no enabled node is "amlogic,meson8b-dwmac"`},
		{"unknown board", `"hardkernel,odroid-c1", "amlogic,meson8b"`, `"acme,box", "amlogic,meson8b"`, "/: compatible"},
		{"PHY address out of range", "reg = <0>;\n\t\t\t\t\teee", "reg = <40>;\n\t\t\t\t\teee", "ethernet-phy@0: reg: <40>"},
		{"another PHY id", "eee-broken-1000t;", `compatible = "ethernet-phy-id0022.1620"; eee-broken-1000t;`, "ethernet-phy-id0022.1620"},
		{"no phy-handle", "phy-handle = <&eth_phy>;", "", ""},
		{"internal delay ignored", "eee-broken-1000t;", "eee-broken-1000t; tx-internal-delay-ps = <2000>;", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(base, tt.from) {
				t.Fatalf("source has no %q", tt.from)
			}
			b, notes, err := FromDeviceTree(compile(t, dtc, []byte(strings.Replace(base, tt.from, tt.to, 1))))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err = %v (board %+v), want one saying %q", err, b.DT, tt.want)
			case tt.want != "" && !errors.Is(err, ErrDeviceTree) && !errors.Is(err, devicetree.ErrMalformed):
				t.Errorf("err = %v wraps neither ErrDeviceTree nor ErrMalformed", err)
			}
			if wantNote := strings.Contains(tt.to, "internal-delay") || strings.Contains(tt.to, "rx-delay"); tt.want == "" && wantNote != (len(notes) == 1) {
				t.Errorf("notes %q: want one note exactly when an unread property is present", notes)
			}
		})
	}
}

func lookDTC(t *testing.T) string {
	dtc, err := exec.LookPath("dtc")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dtc (Debian device-tree-compiler) missing under CI=true")
		}
		t.Skip("no dtc (Debian device-tree-compiler) to build test device trees")
	}
	return dtc
}

func compile(t *testing.T, dtc string, src []byte) []byte {
	t.Helper()
	cmd := exec.Command(dtc, "-q", "-I", "dts", "-O", "dtb", "-o", "-", "-")
	cmd.Stdin = bytes.NewReader(src)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dtc: %v: %s", err, stderr.String())
	}
	return out
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
