package soc

import "fmt"

// Meson8b / Meson8m2 address map (meson.dtsi, meson8b.dtsi, drivers/clk/meson/meson8b.h).
const (
	// DWMACBase is the DWMAC 3.70a (MAC + DMA) register block. The stmmac package maps
	// it; this package does not.
	DWMACBase uint32 = 0xc9410000
	// DWMACSize is the DWMAC block's size in the device tree.
	DWMACSize uint32 = 0x10000

	// HHIBase is the HHI syscon (CBUS + 0x4000) holding the fixed PLL and MPLL registers.
	HHIBase uint32 = 0xc1104000
	// HHISize is how much of HHI is mapped: enough for the MPLL registers up to 0x2a0.
	HHISize uint32 = 0x400

	// PRGEth0 is the glue register PRG_ETH0 (PREG_ETHERNET_ADDR0, CBUS word 0x2050).
	// The glue block maps PRG_ETH0 at +0 and PRG_ETH1 at +4.
	PRGEth0 uint32 = 0xc1108140
	// PRGEthSize covers PRG_ETH0 and PRG_ETH1 (meson8m2.dtsi from 2020 uses reg size 8).
	PRGEthSize uint32 = 8

	// MACIRQName is the DWMAC interrupt's name in the device tree.
	MACIRQName = "macirq"
	// MACIRQSPI is its GIC shared peripheral interrupt number (GIC_SPI 8, level high).
	MACIRQSPI = 8

	// RAMBase is where guest RAM starts.
	RAMBase uint32 = 0x00000000
	// DefaultRAMSize is the emulated RAM size. The real Odroid-C1 has 1 GiB; the
	// guest drivers only need room for descriptor rings and packet buffers, so 32 MiB
	// keeps machines cheap. NewSoCWithRAM accepts up to MaxRAMSize.
	DefaultRAMSize uint32 = 32 << 20
	// MaxRAMSize is the largest RAM NewSoCWithRAM accepts (the real board's 1 GiB).
	MaxRAMSize uint32 = 1 << 30
	// MinRAMSize is the smallest RAM NewSoCWithRAM accepts.
	MinRAMSize uint32 = 64 << 10
)

// GXBB (Odroid-C2) differences. ASSUMPTION: the GXBB HHI block uses the same register
// offsets (0x280..0x2a0) and the same fixed PLL / MPLL field layout as Meson8b
// (drivers/clk/meson/gxbb.h places HHI_MPLL_CNTL..CNTL9 at the same offsets; the
// fixed PLL encoding is not checked against silicon). The DWMAC sits at the same
// address (meson-gx.dtsi) and, also assumed, on the same GIC SPI 8.
const (
	// GXBBHHIBase is the GXBB HHI block.
	GXBBHHIBase uint32 = 0xc883c000
	// GXBBPRGEth0 is the GXBB glue register PRG_ETH0 (meson-gxbb-odroidc2.dts).
	GXBBPRGEth0 uint32 = 0xc8834540
)

// HHI register offsets from the HHI base (drivers/clk/meson/meson8b.h).
const (
	HHIMPLLCntl  uint32 = 0x280 // fixed PLL: m, n, od
	HHIMPLLCntl2 uint32 = 0x284 // fixed PLL fractional part
	HHIMPLLCntl5 uint32 = 0x290 // mpll_prediv
	HHIMPLLCntl6 uint32 = 0x294 // fclk_div2 gate
	HHIMPLLCntl9 uint32 = 0x2a0 // MPLL2
)

// Glue register offsets from the glue base.
const (
	PRGEth0Off uint32 = 0x0
	PRGEth1Off uint32 = 0x4
)

// XtalHz is the crystal feeding the fixed PLL.
const XtalHz = 24e6

// Kind is one chip of the family.
type Kind int

// The chips mesonemu models.
const (
	Meson8b Kind = iota
	Meson8m2
	GXBB
)

var kindNames = [...]string{Meson8b: "meson8b", Meson8m2: "meson8m2", GXBB: "gxbb"}

// String is the chip's lower-case name as in the compatible strings.
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Valid reports whether k is one of the modelled chips.
func (k Kind) Valid() bool { return k >= Meson8b && k <= GXBB }

// ParseKind turns "meson8b", "meson8m2" or "gxbb" into a Kind.
func ParseKind(name string) (Kind, error) {
	for k, n := range kindNames {
		if n == name {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown SoC %q (valid: meson8b, meson8m2, gxbb)", name)
}

// AddrMap is where one chip's Ethernet-related blocks live.
type AddrMap struct {
	DWMACBase, DWMACSize   uint32
	HHIBase, HHISize       uint32
	PRGEthBase, PRGEthSize uint32
	RAMBase                uint32
	MACIRQName             string
	MACIRQSPI              int
}

// Addrs returns the chip's address map (Meson8m2 is laid out as Meson8b).
func (k Kind) Addrs() AddrMap {
	a := AddrMap{
		DWMACBase: DWMACBase, DWMACSize: DWMACSize,
		HHIBase: HHIBase, HHISize: HHISize,
		PRGEthBase: PRGEth0, PRGEthSize: PRGEthSize,
		RAMBase:    RAMBase,
		MACIRQName: MACIRQName, MACIRQSPI: MACIRQSPI,
	}
	if k == GXBB {
		a.HHIBase = GXBBHHIBase
		a.PRGEthBase = GXBBPRGEth0
	}
	return a
}
