package meson

import (
	"fmt"
	"strings"
)

// SoC is the chip whose clock controller the guest drives.
type SoC int

// Chips.
const (
	Meson8b SoC = iota
	Meson8m2
	GXBB
)

// HHI register block bases (the silicon helper uses the same).
const (
	HHIBaseMeson8b = 0xc1104000 // CBUS + 0x4000, Meson8b and Meson8m2
	HHIBaseGXBB    = 0xc883c000
)

// HHI register offsets (drivers/clk/meson/meson8b.h), the same on GXBB here.
const (
	HHIMPLLCntl  = 0x280 // fixed PLL: m [8:0], n [13:9], od [17:16]
	HHIMPLLCntl2 = 0x284 // fixed PLL frac [11:0]
	HHIMPLLCntl5 = 0x290 // mpll_prediv bit 12
	HHIMPLLCntl6 = 0x294 // fclk_div2 gate bit 27
	HHIMPLLCntl9 = 0x2a0 // MPLL2: sdm [13:0], en 14, sdm_en 15, n2 [24:16]
)

// XtalHz is the crystal every Meson board carries.
const XtalHz = 24000000

// HHIBase is the chip's HHI block address.
func (s SoC) HHIBase() (uint32, error) {
	switch s {
	case Meson8b, Meson8m2:
		return HHIBaseMeson8b, nil
	case GXBB:
		return HHIBaseGXBB, nil
	}
	return 0, fmt.Errorf("meson: unknown SoC %d", int(s))
}

func (s SoC) String() string {
	switch s {
	case Meson8b:
		return "meson8b"
	case Meson8m2:
		return "meson8m2"
	case GXBB:
		return "gxbb"
	}
	return fmt.Sprintf("SoC(%d)", int(s))
}

// ParseSoC accepts "meson8b", "meson8m2" and "gxbb".
func ParseSoC(s string) (SoC, error) {
	for _, c := range []SoC{Meson8b, Meson8m2, GXBB} {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("meson: unknown SoC %q (want meson8b, meson8m2 or gxbb)", s)
}
