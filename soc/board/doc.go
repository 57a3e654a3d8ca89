// Package board describes the boards mesonemu can emulate, each value with its provenance.
// Hardware side: chip, straps, wire parameters, and the device tree the guest reads.
//
// It describes the boards mesonemu can emulate: which chip, the device
// tree properties the guest's glue and PHY drivers read, the PHY's strap pins, the
// MAC address, and the electrical parameters of each RGMII direction that the wire
// model needs, every one with its provenance.
//
// It is a hardware description: it imports only package soc and says nothing about
// which Linux version runs on the board.
package board
