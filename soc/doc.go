// Package soc is the Meson8b / Meson8m2 / GXBB silicon the Ethernet path needs (HHI, PRG_ETH0).
// Hardware side: register blocks on the bus and the clocks they make.
//
// It is the silicon of the Amlogic Meson8b (Odroid-C1), Meson8m2 (MXIII
// Plus) and GXBB (Odroid-C2) as far as the Ethernet path needs it: the address map,
// the HHI clock controller (fixed PLL, fclk_div2, MPLL2) and the PRG_ETH0/PRG_ETH1
// glue block that turns MPLL2 or fclk_div2 into the RGMII TX clock and its delay.
//
// This is the hardware side of the bus. It knows registers and the clocks and delays
// those register bits produce, never what Linux meant by them: the rates are exact
// analog values computed from the bits (float64 Hz), not the rounded integers the
// kernel's clock framework caches. The guest-side clock framework (linux/clk) and the
// glue driver keep their own register constants and reach these devices only
// through the MMIO bus. The DWMAC itself is mapped by the stmmac package at
// DWMACBase; this package only maps HHI and the glue and adds RAM.
//
// Every method that reads or writes device state is hardware code: it runs with the
// machine lock held (inside a bus access or a scheduled event) or before the machine
// runs.
package soc
