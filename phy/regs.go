package phy

import "mesonemu/reg"

// The register tables of the RTL8211F. reg.Block keeps 32-bit registers at
// word-aligned offsets, so a Clause-22 register number n is declared at offset
// n*4 (see off). Only the low 16 bits of each register are used.
//
// Registers 0x00-0x0f and the page select register 0x1f are page-independent
// (rtl8211f.md §2 allows this; Linux always restores the page before generic
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

// Pages of the extended registers (rtl8211f.md §3, §4).
const (
	pageMIICtrl = 0xd08 // RGMII delays
	pageIntr    = 0xa42 // INER
	pageStatus  = 0xa43 // PHYCR1, PHYSR, INSR
)

// Bits the model acts on.
const (
	bmcrReset     = 1 << 15
	bmcrLoopback  = 1 << 14
	bmcrSpeed100  = 1 << 13
	bmcrANEnable  = 1 << 12
	bmcrPowerDown = 1 << 11
	bmcrIsolate   = 1 << 10
	bmcrANRestart = 1 << 9
	bmcrFullDplx  = 1 << 8
	bmcrSpeed1000 = 1 << 6

	bmsrANComplete = 1 << 5
	bmsrLinkStatus = 1 << 2

	advSelector802_3 = 0x01
	adv10Half        = 1 << 5
	adv10Full        = 1 << 6
	adv100Half       = 1 << 7
	adv100Full       = 1 << 8
	advPause         = 1 << 10
	advAsymPause     = 1 << 11
	advNextPage      = 1 << 15
	lpaAck           = 1 << 14

	anerLPANAble = 1 << 0
	anerLPNPAble = 1 << 3

	gbcr1000Half = 1 << 8
	gbcr1000Full = 1 << 9

	gbsrLP1000Half   = 1 << 10
	gbsrLP1000Full   = 1 << 11
	gbsrRemoteRxOK   = 1 << 12
	gbsrLocalRxOK    = 1 << 13
	gbsrPartnerMask  = gbsrLP1000Half | gbsrLP1000Full | gbsrRemoteRxOK | gbsrLocalRxOK
	txDelayBit       = 1 << 8
	rxDelayBit       = 1 << 3
	intrLinkChange   = 1 << 4
	physrLink        = 1 << 2
	physrFullDuplex  = 1 << 3
	physrSpeedShift  = 4
	physrSpeedResolv = 1 << 11
)

// off is the table offset of Clause-22 register n.
func off(n uint8) uint32 { return uint32(n) * 4 }

// baseBlock holds the page-independent registers (rtl8211f.md §1, §6).
var baseBlock = reg.Block{Name: "rtl8211f", Registers: []reg.Register{
	{Name: "BMCR", Offset: off(regBMCR), Reset: 0x1140,
		Doc: "basic mode control; power-on: AN enabled, 1000 Mbit/s full duplex",
		Fields: []reg.Field{
			{Name: "SPEED1000", Hi: 6, Lo: 6, Access: reg.RW, Doc: "speed select MSB (forced mode)"},
			{Name: "COLTEST", Hi: 7, Lo: 7, Access: reg.RW, Doc: "collision test (stored, not modelled)"},
			{Name: "FULLDPLX", Hi: 8, Lo: 8, Access: reg.RW, Doc: "full duplex (forced mode)"},
			{Name: "ANRESTART", Hi: 9, Lo: 9, Access: reg.SC, Doc: "restart AN; clears when negotiation ends"},
			{Name: "ISOLATE", Hi: 10, Lo: 10, Access: reg.RW, Doc: "isolate the RGMII side from the PHY"},
			{Name: "PDOWN", Hi: 11, Lo: 11, Access: reg.RW, Doc: "power down: link drops"},
			{Name: "ANENABLE", Hi: 12, Lo: 12, Access: reg.RW, Doc: "autonegotiation enable"},
			{Name: "SPEED100", Hi: 13, Lo: 13, Access: reg.RW, Doc: "speed select LSB (forced mode)"},
			{Name: "LOOPBACK", Hi: 14, Lo: 14, Access: reg.RW, Doc: "PCS loopback (stored, not modelled)"},
			{Name: "RESET", Hi: 15, Lo: 15, Access: reg.SC, Doc: "soft reset; self-clearing"},
		}},
	{Name: "BMSR", Offset: off(regBMSR), Reset: 0x7949,
		Doc: "basic mode status; link status is latched low",
		Fields: []reg.Field{
			{Name: "EXTCAP", Hi: 0, Lo: 0, Access: reg.RO, Doc: "extended register capability"},
			{Name: "JABBER", Hi: 1, Lo: 1, Access: reg.RO},
			{Name: "LSTATUS", Hi: 2, Lo: 2, Access: reg.RO, Doc: "link status, latched low until read"},
			{Name: "ANEGCAPABLE", Hi: 3, Lo: 3, Access: reg.RO},
			{Name: "RFAULT", Hi: 4, Lo: 4, Access: reg.RO},
			{Name: "ANEGCOMPLETE", Hi: 5, Lo: 5, Access: reg.RO},
			{Name: "MFPRESUPPR", Hi: 6, Lo: 6, Access: reg.RO, Doc: "preamble suppression accepted"},
			{Name: "ESTATEN", Hi: 8, Lo: 8, Access: reg.RO, Doc: "extended status in register 15"},
			{Name: "10HALF", Hi: 11, Lo: 11, Access: reg.RO},
			{Name: "10FULL", Hi: 12, Lo: 12, Access: reg.RO},
			{Name: "100HALF", Hi: 13, Lo: 13, Access: reg.RO},
			{Name: "100FULL", Hi: 14, Lo: 14, Access: reg.RO},
			{Name: "100BASE4", Hi: 15, Lo: 15, Access: reg.RO},
		}},
	{Name: "PHYSID1", Offset: off(regPHYID1), Reset: 0x001c,
		Fields: []reg.Field{{Name: "OUI_MSB", Hi: 15, Lo: 0, Access: reg.RO, Doc: "Realtek OUI bits 3:18"}}},
	{Name: "PHYSID2", Offset: off(regPHYID2), Reset: 0xc916,
		Fields: []reg.Field{
			{Name: "REV", Hi: 3, Lo: 0, Access: reg.RO},
			{Name: "MODEL", Hi: 9, Lo: 4, Access: reg.RO},
			{Name: "OUI_LSB", Hi: 15, Lo: 10, Access: reg.RO},
		}},
	{Name: "ANAR", Offset: off(regANAR), Reset: 0x01e1,
		Doc: "AN advertisement; power-on: 10/100 half and full, no pause (assumption)",
		Fields: []reg.Field{
			{Name: "SELECTOR", Hi: 4, Lo: 0, Access: reg.RO, Doc: "IEEE 802.3 selector 0x01 (kept read-only)"},
			{Name: "10HALF", Hi: 5, Lo: 5, Access: reg.RW},
			{Name: "10FULL", Hi: 6, Lo: 6, Access: reg.RW},
			{Name: "100HALF", Hi: 7, Lo: 7, Access: reg.RW},
			{Name: "100FULL", Hi: 8, Lo: 8, Access: reg.RW},
			{Name: "100BASE4", Hi: 9, Lo: 9, Access: reg.RO, Doc: "not supported"},
			{Name: "PAUSE", Hi: 10, Lo: 10, Access: reg.RW},
			{Name: "ASYMPAUSE", Hi: 11, Lo: 11, Access: reg.RW},
			{Name: "RFAULT", Hi: 13, Lo: 13, Access: reg.RW},
			{Name: "NPAGE", Hi: 15, Lo: 15, Access: reg.RW},
		}},
	{Name: "ANLPAR", Offset: off(regANLPAR), Reset: 0,
		Doc: "link partner ability, filled when AN completes",
		Fields: []reg.Field{
			{Name: "SELECTOR", Hi: 4, Lo: 0, Access: reg.RO},
			{Name: "10HALF", Hi: 5, Lo: 5, Access: reg.RO},
			{Name: "10FULL", Hi: 6, Lo: 6, Access: reg.RO},
			{Name: "100HALF", Hi: 7, Lo: 7, Access: reg.RO},
			{Name: "100FULL", Hi: 8, Lo: 8, Access: reg.RO},
			{Name: "100BASE4", Hi: 9, Lo: 9, Access: reg.RO},
			{Name: "PAUSE", Hi: 10, Lo: 10, Access: reg.RO},
			{Name: "ASYMPAUSE", Hi: 11, Lo: 11, Access: reg.RO},
			{Name: "RFAULT", Hi: 13, Lo: 13, Access: reg.RO},
			{Name: "LPACK", Hi: 14, Lo: 14, Access: reg.RO},
			{Name: "NPAGE", Hi: 15, Lo: 15, Access: reg.RO},
		}},
	{Name: "ANER", Offset: off(regANER), Reset: 0x0004,
		Doc: "AN expansion",
		Fields: []reg.Field{
			{Name: "LPANABLE", Hi: 0, Lo: 0, Access: reg.RO, Doc: "partner is AN able"},
			{Name: "PAGERX", Hi: 1, Lo: 1, Access: reg.RO, Doc: "page received (not modelled, reads 0)"},
			{Name: "NPABLE", Hi: 2, Lo: 2, Access: reg.RO, Doc: "local next page able"},
			{Name: "LPNPABLE", Hi: 3, Lo: 3, Access: reg.RO, Doc: "partner next page able"},
		}},
	{Name: "GBCR", Offset: off(regGBCR), Reset: 0x0300,
		Doc: "1000BASE-T control (MII_CTRL1000)",
		Fields: []reg.Field{
			{Name: "1000HALF", Hi: 8, Lo: 8, Access: reg.RW, Doc: "advertise 1000BASE-T half duplex"},
			{Name: "1000FULL", Hi: 9, Lo: 9, Access: reg.RW, Doc: "advertise 1000BASE-T full duplex"},
			{Name: "PORTTYPE", Hi: 10, Lo: 10, Access: reg.RW, Doc: "multi-port device preference"},
			{Name: "MSVALUE", Hi: 11, Lo: 11, Access: reg.RW, Doc: "manual master/slave value"},
			{Name: "MSENABLE", Hi: 12, Lo: 12, Access: reg.RW, Doc: "manual master/slave enable"},
			{Name: "TESTMODE", Hi: 15, Lo: 13, Access: reg.RW},
		}},
	{Name: "GBSR", Offset: off(regGBSR), Reset: 0,
		Doc: "1000BASE-T status (MII_STAT1000)",
		Fields: []reg.Field{
			{Name: "IDLEERR", Hi: 7, Lo: 0, Access: reg.RO},
			{Name: "LP1000HALF", Hi: 10, Lo: 10, Access: reg.RO},
			{Name: "LP1000FULL", Hi: 11, Lo: 11, Access: reg.RO},
			{Name: "REMRXOK", Hi: 12, Lo: 12, Access: reg.RO, Doc: "remote receiver OK"},
			{Name: "LOCRXOK", Hi: 13, Lo: 13, Access: reg.RO, Doc: "local receiver OK"},
			{Name: "MSRES", Hi: 14, Lo: 14, Access: reg.RO, Doc: "master/slave resolution: 1 master (model: slave)"},
			{Name: "MSFAIL", Hi: 15, Lo: 15, Access: reg.RO, Doc: "master/slave fault (never set)"},
		}},
	{Name: "ESTATUS", Offset: off(regESTATUS), Reset: 0x3000,
		Fields: []reg.Field{
			{Name: "1000THALF", Hi: 12, Lo: 12, Access: reg.RO},
			{Name: "1000TFULL", Hi: 13, Lo: 13, Access: reg.RO},
			{Name: "1000XHALF", Hi: 14, Lo: 14, Access: reg.RO},
			{Name: "1000XFULL", Hi: 15, Lo: 15, Access: reg.RO},
		}},
	{Name: "PAGSR", Offset: off(regPAGSR), Reset: 0,
		Doc:    "page select for registers 0x10-0x1e",
		Fields: []reg.Field{{Name: "PAGE", Hi: 11, Lo: 0, Access: reg.RW, Doc: "12-bit page number (width assumed)"}}},
}}

// pageMIICtrlBlock is page 0xd08: the RGMII internal delays (rtl8211f.md §3).
// The power-on values of both bits come from pin straps, applied after every
// reset (see applyStraps); the table's reset value is the strap-off value.
var pageMIICtrlBlock = reg.Block{Name: "rtl8211f.page0xd08", Registers: []reg.Register{
	{Name: "TXDLY_CR", Offset: off(regTXDLY), Reset: 0,
		Doc: "page 0xd08 reg 0x11; other bits unknown and kept read-only",
		Fields: []reg.Field{{Name: "TX_DELAY", Hi: 8, Lo: 8, Access: reg.RW,
			Doc: "2 ns internal TXC delay (MAC->PHY); power-on from strap RXD1"}}},
	{Name: "RXDLY_CR", Offset: off(regRXDLY), Reset: 0,
		Doc: "page 0xd08 reg 0x15; other bits unknown and kept read-only",
		Fields: []reg.Field{{Name: "RX_DELAY", Hi: 3, Lo: 3, Access: reg.RW,
			Doc: "2 ns internal RXC delay (PHY->MAC); power-on from strap RXD0"}}},
}}

// pageIntrBlock is page 0xa42: the interrupt enable register (rtl8211f.md §4).
var pageIntrBlock = reg.Block{Name: "rtl8211f.page0xa42", Registers: []reg.Register{
	{Name: "INER", Offset: off(regINER), Reset: 0,
		Doc:    "interrupt enable; only the link-change bit is known (the one Linux sets)",
		Fields: []reg.Field{{Name: "LINK_STATUS", Hi: 4, Lo: 4, Access: reg.RW, Doc: "link status change"}}},
}}

// pageStatusBlock is page 0xa43: PHYCR1, the PHY-specific status (as U-Boot's
// realtek driver reads it: speed 5:4, duplex 3, link 2, resolved 11) and the
// clear-on-read interrupt status (rtl8211f.md §4; layout assumed to mirror INER).
var pageStatusBlock = reg.Block{Name: "rtl8211f.page0xa43", Registers: []reg.Register{
	{Name: "PHYCR1", Offset: off(regPHYCR1), Reset: 0,
		Doc: "PHY control 1; ALDPS bits stored, not modelled; power-on value assumed 0",
		Fields: []reg.Field{
			{Name: "ALDPS_PLL_OFF", Hi: 1, Lo: 1, Access: reg.RW},
			{Name: "ALDPS_ENABLE", Hi: 2, Lo: 2, Access: reg.RW},
			{Name: "ALDPS_XTAL_OFF", Hi: 12, Lo: 12, Access: reg.RW},
		}},
	{Name: "PHYSR", Offset: off(regPHYSR), Reset: 0,
		Doc: "PHY-specific status, real time",
		Fields: []reg.Field{
			{Name: "LINK", Hi: 2, Lo: 2, Access: reg.RO},
			{Name: "DUPLEX", Hi: 3, Lo: 3, Access: reg.RO, Doc: "1 full"},
			{Name: "SPEED", Hi: 5, Lo: 4, Access: reg.RO, Doc: "0 10, 1 100, 2 1000 Mbit/s"},
			{Name: "SPDDONE", Hi: 11, Lo: 11, Access: reg.RO, Doc: "speed and duplex resolved"},
		}},
	{Name: "INSR", Offset: off(regINSR), Reset: 0,
		Doc:    "interrupt status; cleared by reading",
		Fields: []reg.Field{{Name: "LINK_STATUS", Hi: 4, Lo: 4, Access: reg.RO, Doc: "link status changed"}}},
}}

// pageBlocks lists the extended pages the model implements.
var pageBlocks = map[uint16]*reg.Block{
	pageMIICtrl: &pageMIICtrlBlock,
	pageIntr:    &pageIntrBlock,
	pageStatus:  &pageStatusBlock,
}

// Blocks returns every register table of the model, base block first, then the
// pages in ascending order, for `mesonemu regs` and table validation.
func Blocks() []*reg.Block {
	return []*reg.Block{&baseBlock, &pageIntrBlock, &pageStatusBlock, &pageMIICtrlBlock}
}
