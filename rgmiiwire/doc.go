// Package rgmiiwire is the RGMII timing and corruption model of one direction of the link.
// Hardware side: the copper between MAC and PHY; it never reads registers.
//
// It is the RGMII timing and corruption model of one direction of
// the MAC-PHY link (hardware side; reference: docs/reference/rgmii-timing.md
// §1, §2, §2.1, §5-§7).
//
// The board assembly turns register state (clock rates, PRG_ETH0 TXDLY, PHY delay
// bits, link speed) and board parameters (skews, setup/hold, jitter) into a
// Timing; this package never reads registers. From a Timing it derives the
// analytic Budget (phase, margins, z values, per-sample miss probabilities,
// predicted frame loss) and a Wire that corrupts frames as they cross:
//
//   - a sample that misses copies its neighbour's actual bit on that line (the
//     previous sample on the setup side, the next on the hold side), so a miss
//     between equal bits is invisible and corruption depends on the data;
//   - misses are found by geometric skips, one skip sequence per data line, so a
//     frame costs O(1 + misses) and never one random draw per bit;
//   - a sampling phase in the wrong half of the clock cycle re-associates nibbles
//     deterministically (every byte built from the high nibble of one byte and the
//     low nibble of the next).
//
// Assumptions not fixed by the reference are marked "Assumption:" where they are
// made.
package rgmiiwire
