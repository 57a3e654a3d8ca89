// Package clk is Linux's common clock framework (drivers/clk, v5.4/v5.5) ported to Go.
// Guest side: it sets clocks only by writing registers over the emulated bus.
//
// It is the guest side of the clocks: a Go port of Linux's common clock
// framework (drivers/clk/clk.c, v5.4/v5.5) and its basic clock types (fixed rate,
// fixed factor, divider, mux, gate).
//
// It is guest code. It reaches hardware only through a Regmap over emu.GuestBus,
// so every register access a clock makes shows up in the bus trace, and it keeps
// its own register and bit constants, as Linux does.
//
// The port keeps what decides which rates Linux picks on 32-bit ARM:
//   - rates are `unsigned long`, 32 bits wide: uint32 here, with the same wrap-around
//     in products such as rate*i, the divider's ULONG_MAX/rate bound, and the
//     signed-long reinterpretation in the ROUND_CLOSEST comparisons;
//   - a .round_rate op returns a `long`: a result at or above 2^31 reads as a negative
//     error code, so rounding a clock that runs above 2.147 GHz fails (see
//     determineRound);
//   - clk_set_rate rounds first, returns early when the rounded rate equals the
//     cached rate, then runs clk_calc_new_rates with the ORIGINAL request and
//     clk_change_rate top-down, where set_parent and set_rate receive the parent's
//     recomputed, actual rate;
//   - orphans: a clock whose parent is not registered yet, or whose mux reads an
//     out-of-range index, hangs on the orphan list with rate 0 until a later
//     registration or a rate change gives it a parent.
//
// Left out, on purpose: rate-change notifiers (nothing in this machine subscribes;
// PRE/POST/ABORT_RATE_CHANGE are therefore never sent and can never veto), per-consumer
// struct clk handles (min/max rate ranges, exclusive rate protection), runtime PM,
// phase and duty-cycle ops (every clock reports phase 0 and a 50 % duty cycle, the
// framework defaults), set_rate_and_parent, CLK_OPS_PARENT_ENABLE,
// CLK_RECALC_NEW_RATES and clk_disable_unused. Clocks come from Go code, not from a
// device tree: parents are found by name, as with clk_init_data.parent_names.
//
// Where Linux would divide by zero, shift by a negative amount, loop forever or
// recurse without end on a malformed clock description, this port returns an
// error or takes the documented safe branch instead; each place says so.
package clk
