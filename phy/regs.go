package phy

import "mesonemu/reg"

// The register tables of the RTL8211F. reg.Block keeps 32-bit registers at
// word-aligned offsets, so a Clause-22 register number n is declared at offset
// n*4 (see off). Only the low 16 bits of each register are used.
//
// Registers 0x00-0x0f and the page select register 0x1f are page-independent
// (docs/reference/rtl8211f.md §2 allows this; Linux always restores the page before generic
// accesses). Registers 0x10-0x1e exist only on the selected page, one table per
// page; on a page that declares nothing at a number the register reads 0.

// Clause-22 register numbers.
const (
	regBMCR    = 0x00
	regBMSR    = 0x01
	regPHYID1  = 0x02
	regPHYID2  = 0x03
	regANAR    = 0x04
	regANLPAR  = 0x05
	regANER    = 0x06
	regGBCR    = 0x09
	regGBSR    = 0x0a
	regESTATUS = 0x0f
	regPAGSR   = 0x1f

	// Extended registers, meaningful on their page only.
	regTXDLY  = 0x11 // page 0xd08
	regRXDLY  = 0x15 // page 0xd08
	regINER   = 0x12 // page 0xa42
	regPHYCR1 = 0x18 // page 0xa43
	regPHYSR  = 0x1a // page 0xa43
	regINSR   = 0x1d // page 0xa43
)

// Pages of the extended registers (docs/reference/rtl8211f.md §3, §4).
const (
	pageMIICtrl = 0xd08 // RGMII delays
	pageIntr    = 0xa42 // INER
	pageStatus  = 0xa43 // PHYCR1, PHYSR, INSR
)

func fld(name string, hi, lo uint8, acc reg.Access, doc string) reg.Field {
	return reg.Field{Name: name, Hi: hi, Lo: lo, Access: acc, Doc: doc}
}

// The fields the model acts on, declared once here: the register tables below list
// these values and the model reads and writes bits through them (Mask, Get, Set).
// Fields only stored or decoded are declared inline in their table.

// BMCR.
var (
	bmcrSpeed1000 = fld("SPEED1000", 6, 6, reg.RW, "speed select MSB (forced mode)")
	bmcrFullDplx  = fld("FULLDPLX", 8, 8, reg.RW, "full duplex (forced mode)")
	bmcrANRestart = fld("ANRESTART", 9, 9, reg.SC, "restart AN; clears when negotiation ends")
	bmcrIsolate   = fld("ISOLATE", 10, 10, reg.RW, "isolate the RGMII side from the PHY")
	bmcrPowerDown = fld("PDOWN", 11, 11, reg.RW, "power down: link drops")
	bmcrANEnable  = fld("ANENABLE", 12, 12, reg.RW, "autonegotiation enable")
	bmcrSpeed100  = fld("SPEED100", 13, 13, reg.RW, "speed select LSB (forced mode)")
	bmcrReset     = fld("RESET", 15, 15, reg.SC, "soft reset; self-clearing")
)

// BMSR.
var (
	bmsrLinkStatus = fld("LSTATUS", 2, 2, reg.RO, "link status, latched low until read")
	bmsrANComplete = fld("ANEGCOMPLETE", 5, 5, reg.RO, "")
)

// The base page of autonegotiation, as ANAR (local, these RW accesses) and ANLPAR
// (the partner's, read-only) lay it out.
var (
	advSelector  = fld("SELECTOR", 4, 0, reg.RO, "IEEE 802.3 selector 0x01 (kept read-only)")
	adv10Half    = fld("10HALF", 5, 5, reg.RW, "")
	adv10Full    = fld("10FULL", 6, 6, reg.RW, "")
	adv100Half   = fld("100HALF", 7, 7, reg.RW, "")
	adv100Full   = fld("100FULL", 8, 8, reg.RW, "")
	adv100Base4  = fld("100BASE4", 9, 9, reg.RO, "not supported")
	advPause     = fld("PAUSE", 10, 10, reg.RW, "")
	advAsymPause = fld("ASYMPAUSE", 11, 11, reg.RW, "")
	advRFault    = fld("RFAULT", 13, 13, reg.RW, "")
	lpaAck       = fld("LPACK", 14, 14, reg.RO, "")
	advNextPage  = fld("NPAGE", 15, 15, reg.RW, "")

	advFields = []reg.Field{advSelector, adv10Half, adv10Full, adv100Half, adv100Full, adv100Base4,
		advPause, advAsymPause, advRFault, advNextPage}
)

const selector802_3 = 0x01 // advSelector's value for IEEE 802.3

// ANER.
var (
	anerLPANAble = fld("LPANABLE", 0, 0, reg.RO, "partner is AN able")
	anerLPNPAble = fld("LPNPABLE", 3, 3, reg.RO, "partner next page able")
)

// GBCR and GBSR (1000BASE-T control and status).
var (
	gbcr1000Half   = fld("1000HALF", 8, 8, reg.RW, "advertise 1000BASE-T half duplex")
	gbcr1000Full   = fld("1000FULL", 9, 9, reg.RW, "advertise 1000BASE-T full duplex")
	gbsrLP1000Half = fld("LP1000HALF", 10, 10, reg.RO, "")
	gbsrLP1000Full = fld("LP1000FULL", 11, 11, reg.RO, "")
	gbsrRemoteRxOK = fld("REMRXOK", 12, 12, reg.RO, "remote receiver OK")
	gbsrLocalRxOK  = fld("LOCRXOK", 13, 13, reg.RO, "local receiver OK")
)

// The extended registers' bits.
var (
	txDelayBit = fld("TX_DELAY", 8, 8, reg.RW, "2 ns internal TXC delay (MAC->PHY); power-on from strap RXD1")
	rxDelayBit = fld("RX_DELAY", 3, 3, reg.RW, "2 ns internal RXC delay (PHY->MAC); power-on from strap RXD0")
	// intrLinkChange is INER's enable; INSR has the same bit, cleared by reading.
	intrLinkChange = fld("LINK_STATUS", 4, 4, reg.RW, "link status change")

	physrLink        = fld("LINK", 2, 2, reg.RO, "")
	physrFullDuplex  = fld("DUPLEX", 3, 3, reg.RO, "1 full")
	physrSpeed       = fld("SPEED", 5, 4, reg.RO, "0 10, 1 100, 2 1000 Mbit/s")
	physrSpeedResolv = fld("SPDDONE", 11, 11, reg.RO, "speed and duplex resolved")
)

// as is f with another access kind and doc, for a layout two registers share.
func as(f reg.Field, acc reg.Access, doc string) reg.Field {
	f.Access, f.Doc = acc, doc
	return f
}

// off is the table offset of Clause-22 register n.
func off(n uint8) uint32 { return uint32(n) * 4 }

// blocks are the model's register tables, bound to this instance's hooks: the base
// block, then the pages in extPages order.
func (p *RTL8211F) blocks() []reg.Block {
	return append([]reg.Block{{Name: "rtl8211f", Registers: p.baseRegisters()}}, p.pageBlocks()...)
}

// baseRegisters are the page-independent registers (docs/reference/rtl8211f.md §1, §6).
func (p *RTL8211F) baseRegisters() []reg.Register {
	regs := []reg.Register{
		{Name: "BMCR", Offset: off(regBMCR), Reset: 0x1140,
			Doc: "basic mode control; power-on: AN enabled, 1000 Mbit/s full duplex",
			Fields: []reg.Field{
				bmcrSpeed1000,
				fld("COLTEST", 7, 7, reg.RW, "collision test (stored, not modelled)"),
				bmcrFullDplx, bmcrANRestart, bmcrIsolate, bmcrPowerDown, bmcrANEnable, bmcrSpeed100,
				fld("LOOPBACK", 14, 14, reg.RW, "PCS loopback (stored, not modelled)"),
				bmcrReset,
			}, AfterWrite: p.bmcrWritten},
		{Name: "BMSR", Offset: off(regBMSR), Reset: 0x7949,
			Doc: "basic mode status; link status is latched low",
			Fields: []reg.Field{
				fld("EXTCAP", 0, 0, reg.RO, "extended register capability"),
				fld("JABBER", 1, 1, reg.RO, ""),
				bmsrLinkStatus,
				fld("ANEGCAPABLE", 3, 3, reg.RO, ""),
				fld("RFAULT", 4, 4, reg.RO, ""),
				bmsrANComplete,
				fld("MFPRESUPPR", 6, 6, reg.RO, "preamble suppression accepted"),
				fld("ESTATEN", 8, 8, reg.RO, "extended status in register 15"),
				fld("10HALF", 11, 11, reg.RO, ""),
				fld("10FULL", 12, 12, reg.RO, ""),
				fld("100HALF", 13, 13, reg.RO, ""),
				fld("100FULL", 14, 14, reg.RO, ""),
				fld("100BASE4", 15, 15, reg.RO, ""),
			},
			// Reading shows the link bit low if it dropped since the last read,
			// and releases that latch.
			Value:     p.bmsrValue,
			AfterRead: func(uint32) { p.latchedLow = false }},
		{Name: "PHYSID1", Offset: off(regPHYID1), Reset: 0x001c,
			Fields: []reg.Field{fld("OUI_MSB", 15, 0, reg.RO, "Realtek OUI bits 3:18")}},
		{Name: "PHYSID2", Offset: off(regPHYID2), Reset: 0xc916,
			Fields: []reg.Field{
				fld("REV", 3, 0, reg.RO, ""),
				fld("MODEL", 9, 4, reg.RO, ""),
				fld("OUI_LSB", 15, 10, reg.RO, ""),
			}},
	}
	regs = append(regs, autonegRegisters()...)
	return append(regs, []reg.Register{
		{Name: "ESTATUS", Offset: off(regESTATUS), Reset: 0x3000,
			Fields: []reg.Field{
				fld("1000THALF", 12, 12, reg.RO, ""),
				fld("1000TFULL", 13, 13, reg.RO, ""),
				fld("1000XHALF", 14, 14, reg.RO, ""),
				fld("1000XFULL", 15, 15, reg.RO, ""),
			}},
		{Name: "PAGSR", Offset: off(regPAGSR), Reset: 0,
			Doc:    "page select for registers 0x10-0x1e",
			Fields: []reg.Field{fld("PAGE", 11, 0, reg.RW, "12-bit page number (width assumed)")}},
	}...)
}

// autonegRegisters are ANAR, ANLPAR (ANAR's layout, read-only, with the
// acknowledge bit), ANER and the 1000BASE-T control and status.
func autonegRegisters() []reg.Register {
	lpa := make([]reg.Field, 0, len(advFields)+1)
	for _, f := range advFields {
		if f == advNextPage {
			lpa = append(lpa, lpaAck)
		}
		lpa = append(lpa, as(f, reg.RO, ""))
	}
	return []reg.Register{
		{Name: "ANAR", Offset: off(regANAR), Reset: 0x01e1,
			Doc:    "AN advertisement; power-on: 10/100 half and full, no pause (assumption)",
			Fields: advFields},
		{Name: "ANLPAR", Offset: off(regANLPAR), Reset: 0,
			Doc:    "link partner ability, filled when AN completes",
			Fields: lpa},
		{Name: "ANER", Offset: off(regANER), Reset: 0x0004,
			Doc: "AN expansion",
			Fields: []reg.Field{
				anerLPANAble,
				fld("PAGERX", 1, 1, reg.RO, "page received (not modelled, reads 0)"),
				fld("NPABLE", 2, 2, reg.RO, "local next page able"),
				anerLPNPAble,
			}},
		{Name: "GBCR", Offset: off(regGBCR), Reset: 0x0300,
			Doc: "1000BASE-T control (MII_CTRL1000)",
			Fields: []reg.Field{
				gbcr1000Half, gbcr1000Full,
				fld("PORTTYPE", 10, 10, reg.RW, "multi-port device preference"),
				fld("MSVALUE", 11, 11, reg.RW, "manual master/slave value"),
				fld("MSENABLE", 12, 12, reg.RW, "manual master/slave enable"),
				fld("TESTMODE", 15, 13, reg.RW, ""),
			}},
		{Name: "GBSR", Offset: off(regGBSR), Reset: 0,
			Doc: "1000BASE-T status (MII_STAT1000)",
			Fields: []reg.Field{
				fld("IDLEERR", 7, 0, reg.RO, ""),
				gbsrLP1000Half, gbsrLP1000Full, gbsrRemoteRxOK, gbsrLocalRxOK,
				fld("MSRES", 14, 14, reg.RO, "master/slave resolution: 1 master (model: slave)"),
				fld("MSFAIL", 15, 15, reg.RO, "master/slave fault (never set)"),
			}},
	}
}

// pageBlocks are the extended pages the model implements, in extPages order.
func (p *RTL8211F) pageBlocks() []reg.Block {
	return []reg.Block{{
		// Page 0xa42: the interrupt enable register (docs/reference/rtl8211f.md §4).
		Name: "rtl8211f.page0xa42", Registers: []reg.Register{
			{Name: "INER", Offset: off(regINER), Reset: 0,
				Doc:        "interrupt enable; only the link-change bit is known (the one Linux sets)",
				Fields:     []reg.Field{intrLinkChange},
				AfterWrite: func(_, _ uint32) { p.updateIRQ() }},
		}}, {
		// Page 0xa43: PHYCR1, the PHY-specific status (as U-Boot's realtek driver
		// reads it: speed 5:4, duplex 3, link 2, resolved 11) and the clear-on-read
		// interrupt status (docs/reference/rtl8211f.md §4; layout assumed to mirror INER).
		Name: "rtl8211f.page0xa43", Registers: []reg.Register{
			{Name: "PHYCR1", Offset: off(regPHYCR1), Reset: 0,
				Doc: "PHY control 1; ALDPS bits stored, not modelled; power-on value assumed 0",
				Fields: []reg.Field{
					fld("ALDPS_PLL_OFF", 1, 1, reg.RW, ""),
					fld("ALDPS_ENABLE", 2, 2, reg.RW, ""),
					fld("ALDPS_XTAL_OFF", 12, 12, reg.RW, ""),
				}},
			{Name: "PHYSR", Offset: off(regPHYSR), Reset: 0,
				Doc:    "PHY-specific status, real time",
				Fields: []reg.Field{physrLink, physrFullDuplex, physrSpeed, physrSpeedResolv}},
			{Name: "INSR", Offset: off(regINSR), Reset: 0,
				Doc:       "interrupt status; cleared by reading",
				Fields:    []reg.Field{as(intrLinkChange, reg.RC, "link status changed")},
				AfterRead: func(uint32) { p.updateIRQ() }},
		}}, {
		// Page 0xd08: the RGMII internal delays (docs/reference/rtl8211f.md §3). The power-on
		// values of both bits come from pin straps, applied after every reset (see
		// applyStraps); the table's reset value is the strap-off value.
		Name: "rtl8211f.page0xd08", Registers: []reg.Register{
			{Name: "TXDLY_CR", Offset: off(regTXDLY), Reset: 0,
				Doc:    "page 0xd08 reg 0x11; other bits unknown and kept read-only",
				Fields: []reg.Field{txDelayBit}},
			{Name: "RXDLY_CR", Offset: off(regRXDLY), Reset: 0,
				Doc:    "page 0xd08 reg 0x15; other bits unknown and kept read-only",
				Fields: []reg.Field{rxDelayBit}},
		}},
	}
}

// extPages are the extended pages the model implements, in blocks() order.
var extPages = [...]uint16{pageIntr, pageStatus, pageMIICtrl}

// Blocks returns every register table of the model, base block first, then the
// pages in ascending order, for `mesonemu regs` and table validation.
func (p *RTL8211F) Blocks() []*reg.Block {
	out := make([]*reg.Block, len(p.tables))
	for i := range p.tables {
		out[i] = &p.tables[i]
	}
	return out
}
