package board

import (
	"errors"
	"fmt"

	"mesonemu/devicetree"
	"mesonemu/soc"
)

// ErrDeviceTree is wrapped by every refusal of a tree that is a valid DTB but
// describes an Ethernet path the model cannot honour.
var ErrDeviceTree = errors.New("device tree not supported")

// boardCompatibles maps a root node's compatible to the board it names (the
// boards' .dts files in Linux: meson8b-odroidc1.dts, meson8m2-mxiii-plus.dts,
// meson-gxbb-odroidc2.dts).
var boardCompatibles = map[string]string{
	"hardkernel,odroid-c1": "odroid-c1",
	"tronsmart,mxiii-plus": "mxiii-plus",
	"hardkernel,odroid-c2": "odroid-c2",
}

// dwmacCompatibles is the glue's of_match table (dwmac-meson8b.c), per SoC.
var dwmacCompatibles = map[soc.Kind]string{
	soc.Meson8b:  "amlogic,meson8b-dwmac",
	soc.Meson8m2: "amlogic,meson8m2-dwmac",
	soc.GXBB:     "amlogic,meson-gxbb-dwmac",
}

// SupportedPhyModes are the phy-mode values the model's RGMII wire carries.
var SupportedPhyModes = []string{"rgmii", "rgmii-id", "rgmii-rxid", "rgmii-txid"}

// FromDeviceTree builds a board from a compiled device tree the way Linux reads
// one: the root's compatible names the board, the enabled node the glue driver
// matches is the MAC, and its phy-mode, amlogic,tx-delay-ns, amlogic,rx-delay-ns
// and phy-handle (the PHY node on its MDIO bus) replace the board's DT. Nodes
// off the Ethernet path are ignored, as Linux ignores hardware it has no driver
// for. Notes lists properties on the path that the v5.4/v5.5 drivers do not
// read, which are ignored too.
func FromDeviceTree(blob []byte) (b Board, notes []string, err error) {
	t, err := devicetree.Parse(blob)
	if err != nil {
		return Board{}, nil, err
	}
	if b, err = boardOf(t.Root); err != nil {
		return Board{}, nil, err
	}
	mac, err := macNode(t, b)
	if err != nil {
		return Board{}, nil, err
	}
	dt := DT{PHYResetAssertUs: b.DT.PHYResetAssertUs, PHYResetDeassertUs: b.DT.PHYResetDeassertUs,
		Source: "device tree blob, " + mac.Path()}
	if dt.PhyMode, err = phyMode(mac); err != nil {
		return Board{}, nil, err
	}
	if dt.TXDelayNS, err = delayNS(mac, "amlogic,tx-delay-ns", MaxTXDelayNS, "0, 2, 4, 6"); err != nil {
		return Board{}, nil, err
	}
	if dt.RXDelayNS, err = delayNS(mac, "amlogic,rx-delay-ns", 2, "0, 2"); err != nil {
		return Board{}, nil, err
	}
	if dt.RXDelayNS != nil {
		notes = append(notes, mac.Path()+": amlogic,rx-delay-ns recorded but not applied (a later binding; Linux v5.4/v5.5 does not read it)")
	}
	phy, err := phyNode(t, mac, b.PHYID)
	if err != nil {
		return Board{}, nil, err
	}
	if dt.PHYAddr, err = phyAddr(phy); err != nil {
		return Board{}, nil, err
	}
	for _, n := range []*devicetree.Node{mac, phy} {
		for _, name := range []string{"rx-internal-delay-ps", "tx-internal-delay-ps"} {
			if _, ok := n.Prop(name); ok {
				notes = append(notes, fmt.Sprintf("%s: %s ignored (Linux v5.4/v5.5 does not read it)", n.Path(), name))
			}
		}
	}
	b.DT = dt
	return b, notes, nil
}

func refuse(n *devicetree.Node, prop, format string, a ...any) error {
	return fmt.Errorf("device tree %s: %s: %s: %w", n.Path(), prop, fmt.Sprintf(format, a...), ErrDeviceTree)
}

func boardOf(root *devicetree.Node) (Board, error) {
	p, ok := root.Prop("compatible")
	if !ok {
		return Board{}, refuse(root, "compatible", "absent, so the board is unknown")
	}
	list, err := p.Strings()
	if err != nil {
		return Board{}, refuse(root, "compatible", "%v", err)
	}
	for _, c := range list {
		if name, ok := boardCompatibles[c]; ok {
			return Lookup(name)
		}
	}
	return Board{}, refuse(root, "compatible", "%q names no board mesonemu has (hardkernel,odroid-c1, tronsmart,mxiii-plus, hardkernel,odroid-c2)", list)
}

// macNode is the one enabled node the board's glue driver binds to.
func macNode(t *devicetree.Tree, b Board) (*devicetree.Node, error) {
	want := dwmacCompatibles[b.SoC]
	var found []*devicetree.Node
	t.Walk(func(n *devicetree.Node) {
		if n.Compatible(want) && n.Enabled() {
			found = append(found, n)
		}
	})
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, refuse(t.Root, "compatible", "no enabled node is %q, the %s's Ethernet MAC", want, b.SoC)
	default:
		return nil, refuse(found[1], "compatible", "a second enabled %q: the model has one MAC", want)
	}
}

func phyMode(mac *devicetree.Node) (string, error) {
	p, ok := mac.Prop("phy-mode")
	if !ok {
		if p, ok = mac.Prop("phy-connection-type"); !ok {
			return "", refuse(mac, "phy-mode", "absent (stmmac's probe fails without it)")
		}
	}
	m, err := p.Text()
	if err != nil {
		return "", refuse(mac, p.Name, "%v", err)
	}
	for _, s := range SupportedPhyModes {
		if m == s {
			return m, nil
		}
	}
	return "", refuse(mac, p.Name, "%q: the model carries %v", m, SupportedPhyModes)
}

// MaxTXDelayNS is the largest amlogic,tx-delay-ns the model honours: the v5.5
// glue masks tx_delay_ns >> 1 into two bits, so 0..7 map faithfully and 8 would
// wrap to 0 ns (the guest's glue refuses it too).
const MaxTXDelayNS = 7

// delayNS reads an optional one-cell delay. Values between the binding's are
// taken as Linux takes them; past max the model cannot express them.
func delayNS(n *devicetree.Node, name string, max uint32, binding string) (*uint32, error) {
	p, ok := n.Prop(name)
	if !ok {
		return nil, nil
	}
	v, err := p.U32()
	if err != nil {
		return nil, refuse(n, name, "%v", err)
	}
	if v > max {
		return nil, refuse(n, name, "<%d>: the model takes 0..%d ns (the binding allows %s)", v, max, binding)
	}
	return &v, nil
}

// phyNode follows phy-handle, or takes the only PHY on the MAC's mdio bus.
func phyNode(t *devicetree.Tree, mac *devicetree.Node, id uint32) (*devicetree.Node, error) {
	var n *devicetree.Node
	if p, ok := mac.Prop("phy-handle"); ok {
		ph, err := p.U32()
		if err != nil {
			return nil, refuse(mac, "phy-handle", "%v", err)
		}
		if n, ok = t.ByPhandle(ph); !ok {
			return nil, refuse(mac, "phy-handle", "<%#x> points at no node", ph)
		}
	} else if n = onlyPHY(mac); n == nil {
		return nil, refuse(mac, "phy-handle", "absent, and the mdio bus has not exactly one PHY node")
	}
	if n.Parent == nil || n.Parent.Parent != mac || !n.Parent.Compatible("snps,dwmac-mdio") {
		return nil, refuse(n, "reg", "the PHY is not on this MAC's mdio bus (compatible \"snps,dwmac-mdio\"), the only bus the model wires")
	}
	want := fmt.Sprintf("ethernet-phy-id%04x.%04x", id>>16, id&0xffff)
	if p, ok := n.Prop("compatible"); ok {
		list, err := p.Strings()
		if err != nil {
			return nil, refuse(n, "compatible", "%v", err)
		}
		for _, c := range list {
			if len(c) == len(want) && c[:len("ethernet-phy-id")] == "ethernet-phy-id" && c != want {
				return nil, refuse(n, "compatible", "%q, but the board's PHY is %s", c, want)
			}
		}
	}
	return n, nil
}

func onlyPHY(mac *devicetree.Node) *devicetree.Node {
	var found *devicetree.Node
	for _, bus := range mac.Children {
		if !bus.Compatible("snps,dwmac-mdio") {
			continue
		}
		for _, c := range bus.Children {
			if _, ok := c.Prop("reg"); ok && c.Enabled() {
				if found != nil {
					return nil
				}
				found = c
			}
		}
	}
	return found
}

func phyAddr(phy *devicetree.Node) (uint8, error) {
	p, ok := phy.Prop("reg")
	if !ok {
		return 0, refuse(phy, "reg", "absent: the PHY's MDIO address is unknown")
	}
	v, err := p.U32()
	if err != nil {
		return 0, refuse(phy, "reg", "%v", err)
	}
	if v > 31 {
		return 0, refuse(phy, "reg", "<%d>: an MDIO address is 0..31", v)
	}
	return uint8(v), nil
}
