// Package mdio is the MDIO bus (IEEE 802.3 Clause 22) between the MAC and the PHYs.
// Hardware side: the wires between two chips, seen by the guest only through the MAC.
//
// It is the hardware MDIO bus (IEEE 802.3 Clause 22) between a MAC's
// MDIO master and the PHYs on the board.
package mdio

// Device is a Clause-22 MDIO slave (a PHY). Its methods run with the machine lock
// held; reg is 0..31 and any value must be accepted.
type Device interface {
	ReadMII(reg uint8) uint16
	WriteMII(reg uint8, v uint16)
}

// Bus holds up to 32 devices by MDIO address.
type Bus struct {
	devs [32]Device
}

// Attach puts dev at addr (0..31; other addresses are ignored).
func (b *Bus) Attach(addr uint8, dev Device) {
	if addr < 32 {
		b.devs[addr] = dev
	}
}

// Read performs a Clause-22 read. An address with no device reads 0xffff, as the
// bus's pull-up makes it on real boards.
func (b *Bus) Read(addr, reg uint8) uint16 {
	if addr >= 32 || reg >= 32 || b.devs[addr] == nil {
		return 0xffff
	}
	return b.devs[addr].ReadMII(reg)
}

// Write performs a Clause-22 write; writes to an empty address go nowhere.
func (b *Bus) Write(addr, reg uint8, v uint16) {
	if addr >= 32 || reg >= 32 || b.devs[addr] == nil {
		return
	}
	b.devs[addr].WriteMII(reg, v)
}
