package dwmacmeson8b

// The driver's own view of the glue register (its #defines in v5.5).
const (
	prgEth0 = 0x0 // PRG_ETH0 offset in the glue block

	prgEth0RGMIIMode = 1 << 0

	prgEth0ClkM250SelShift = 4
	// prgEth0ClkM250SelMaskV55 is GENMASK(4, 4) passed as the mux's mask although
	// the mux shifts the register first: the mux really reads and clears bit 8.
	// Fixed in Dec 2020 ("fix mask definition of the m250_sel mux").
	prgEth0ClkM250SelMaskV55   = 0x10
	prgEth0ClkM250SelMaskFixed = 0x1

	prgEth0TxDlyShift = 5
	prgEth0TxDlyMask  = 0x3 << prgEth0TxDlyShift

	prgEth0ClkM250DivShift = 7
	prgEth0ClkM250DivWidth = 3

	prgEth0RGMIITxClkEn = 10

	prgEth0InvertedRMIIClk = 1 << 11
	prgEth0TxAndPhyRefClk  = 1 << 12
)

// PRG_ETH0 addresses (the second reg entry of the DT node).
const (
	PrgEth0AddrMeson8b = 0xc1108140 // Meson8b and Meson8m2
	PrgEth0AddrGXBB    = 0xc8834540
)

// rgmiiTxHz is what init_prg_eth always asks of the RGMII TX clock; the IP block
// derives 25 / 2.5 MHz for 100 / 10 Mbit/s itself.
const rgmiiTxHz = 125000000

// maxClkName is the size of the driver's clk_name buffer (char clk_name[32]):
// snprintf truncates longer names to 31 bytes.
const maxClkName = 31
