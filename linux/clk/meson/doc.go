// Package meson is Linux's Amlogic clock-controller driver (drivers/clk/meson) ported to Go.
// Guest side: it programs the HHI clock registers over the emulated bus.
//
// It is the guest's Amlogic clock-controller driver for the part of the
// tree the Ethernet TX clock hangs from: a port of drivers/clk/meson (clk-regmap.c,
// clk-pll.c, clk-mpll.c) and of the Meson8b / GXBB clock providers' registration of
// xtal, fixed_pll_dco, fixed_pll, fclk_div2_div, fclk_div2, mpll_prediv, mpll2_div
// and mpll2 (v5.4/v5.5).
//
// Rates come from what the HHI registers hold when the guest boots; nothing here
// knows 2550 MHz or 2 GHz. Register access goes through clk.Regmap, with Linux
// regmap_update_bits semantics (a write only when a value changes).
//
// ASSUMPTION: GXBB is modelled with the Meson8b chain and register layout (same
// HHI offsets, mpll_prediv as a 1-bit read-only divider, fixed_pll as od), as the
// emulator's silicon helper does. Real gxbb.c differs in details that do not touch
// the Ethernet clock.
package meson
