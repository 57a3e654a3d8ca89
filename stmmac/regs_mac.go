package stmmac

import (
	"fmt"

	"mesonemu/reg"
)

// MAC block offsets (dwmac1000.h names).
const (
	offMACConfig   = 0x00
	offFrameFilter = 0x04
	offHashHigh    = 0x08
	offHashLow     = 0x0c
	offMIIAddr     = 0x10
	offMIIData     = 0x14
	offFlowCtrl    = 0x18
	offVersion     = 0x20
	offPMT         = 0x2c
	offIntStatus   = 0x38
	offIntMask     = 0x3c
	offAddr0High   = 0x40 // address n high at 0x40 + 8n, low at 0x44 + 8n
	offRGMIIStatus = 0xd8

	macAddrRegs = 16 // address registers 0..15 (16..31 at 0x800 are not implemented)
)

// The fields the model acts on, declared once here: the register tables below list
// these values, and the model reads and writes bits through them (Mask, Get, Set), so
// a table and the behaviour cannot drift apart. Fields only stored or decoded are
// declared inline in their table.

// GMAC_CONTROL.
var (
	cfgRE  = fld("RE", 2, 2, reg.RW, "receiver enable")
	cfgTE  = fld("TE", 3, 3, reg.RW, "transmitter enable")
	cfgACS = fld("ACS", 7, 7, reg.RW, "strip pad/FCS of 802.3 length frames")
	cfgIPC = fld("IPC", 10, 10, reg.RW, "RX checksum offload")
	cfgDM  = fld("DM", 11, 11, reg.RW, "full duplex")
	cfgLM  = fld("LM", 12, 12, reg.RW, "GMII loopback")
	cfgFES = fld("FES", 14, 14, reg.RW, "100 Mbit/s when PS = 1 (else 10)")
	cfgPS  = fld("PS", 15, 15, reg.RW, "port select: 1 = MII 10/100, 0 = GMII 1000")
	cfgIFG = fld("IFG", 19, 17, reg.RW, "inter-frame gap: 96 - 8*IFG bit times")
	cfgJE  = fld("JE", 20, 20, reg.RW, "jumbo frames")
	cfgJD  = fld("JD", 22, 22, reg.RW, "jabber disable")
	cfgWD  = fld("WD", 23, 23, reg.RW, "RX watchdog disable")
	cfgCST = fld("CST", 25, 25, reg.RW, "strip FCS of Ether-type frames")
	cfg2K  = fld("2KPE", 27, 27, reg.RW, "2000-byte frames are not giants")
)

// GMAC_FRAME_FILTER.
var (
	ffPR   = fld("PR", 0, 0, reg.RW, "promiscuous")
	ffHUC  = fld("HUC", 1, 1, reg.RW, "hash unicast")
	ffHMC  = fld("HMC", 2, 2, reg.RW, "hash multicast")
	ffDAIF = fld("DAIF", 3, 3, reg.RW, "DA inverse filtering")
	ffPM   = fld("PM", 4, 4, reg.RW, "pass all multicast")
	ffDBF  = fld("DBF", 5, 5, reg.RW, "disable broadcast frames")
	ffPCF  = fld("PCF", 7, 6, reg.RW, "pass control frames")
	ffHPF  = fld("HPF", 10, 10, reg.RW, "hash or perfect filter")
	ffRA   = fld("RA", 31, 31, reg.RW, "receive all")
)

// GMAC_MII_ADDR.
var (
	miiGB = fld("GB", 0, 0, reg.SC, "MDIO busy: set to start, cleared when the frame is done")
	miiGW = fld("GW", 1, 1, reg.RW, "MDIO write")
	miiCR = fld("CR", 5, 2, reg.RW, "CSR clock range (MDC divider)")
	miiGR = fld("GR", 10, 6, reg.RW, "PHY register")
	miiPA = fld("PA", 15, 11, reg.RW, "PHY address")
)

// Self-clearing bits whose action is not modelled: they complete as they are written.
var (
	fcFCB         = fld("FCB_BPA", 0, 0, reg.SC, "send PAUSE / backpressure (not modelled: clears at once)")
	pmtRWKFILTRST = fld("RWKFILTRST", 31, 31, reg.SC, "wake-up filter pointer reset")
)

// GMAC_INT_STATUS: the sources that can assert the line when unmasked. GMAC_INT_MASK
// masks the same bits (sameBit).
var (
	intRGMII   = fld("RGSMIIIS", 0, 0, reg.RO, "RGMII link status changed (cleared by reading GMAC_S_R_GMII)")
	intPCSLink = fld("PCSLCHGIS", 1, 1, reg.RO, "PCS link change")
	intPCSAN   = fld("PCSANCIS", 2, 2, reg.RO, "PCS AN complete")
	intPMT     = fld("PMTIS", 3, 3, reg.RO, "PMT")
	intMMC     = fld("MMCIS", 4, 4, reg.RO, "MMC")
	intTS      = fld("TSIS", 9, 9, reg.RO, "timestamp")
	intLPI     = fld("LPIIS", 10, 10, reg.RO, "LPI")

	intSources = reg.Masks(intRGMII, intPMT, intMMC, intTS, intLPI)
)

// GMAC_ADDR_HIGHn (address 0's AE is read-only 1, see macRegisters).
var (
	addrHI  = fld("ADDRHI", 15, 0, reg.RW, "address bytes 5:4")
	addrMBC = fld("MBC", 29, 24, reg.RW, "mask byte control")
	addrSA  = fld("SA", 30, 30, reg.RW, "compare with SA")
	addrAE  = fld("AE", 31, 31, reg.RW, "address enable")
)

// GMAC_S_R_GMII: the PHY's RGMII in-band status.
var (
	rgmiiFullDuplex = fld("LNKMOD", 0, 0, reg.RO, "full duplex")
	rgmiiSpeed      = fld("LNKSPEED", 2, 1, reg.RO, "0 = 2.5 MHz, 1 = 25 MHz, 2 = 125 MHz")
	rgmiiLinkUp     = fld("LNKSTS", 3, 3, reg.RO, "link up")
)

func fld(name string, hi, lo uint8, acc reg.Access, doc string) reg.Field {
	return reg.Field{Name: name, Hi: hi, Lo: lo, Access: acc, Doc: doc}
}

// sameBit is the read-write field of an enable or mask register at the bits of
// the status field it gates (DMA_INTR_ENA for DMA_STATUS, GMAC_INT_MASK for
// GMAC_INT_STATUS), so the two layouts are declared once.
func sameBit(status reg.Field, name, doc string) reg.Field {
	return fld(name, status.Hi, status.Lo, reg.RW, doc)
}

// macRegisters is the MAC register table (0x0000-0x00ff) of this instance, with the
// side effects of guest accesses as hooks. Reset values are the databook's, the
// version is Config's.
func (c *MAC) macRegisters() []reg.Register {
	regs := []reg.Register{
		{Name: "GMAC_CONTROL", Offset: offMACConfig, Fields: []reg.Field{
			cfgRE, cfgTE,
			fld("DC", 4, 4, reg.RW, "deferral check (half duplex)"),
			fld("BL", 6, 5, reg.RW, "back-off limit (half duplex)"),
			cfgACS,
			fld("LUD", 8, 8, reg.RW, "link up/down sent in RGMII in-band status"),
			fld("DR", 9, 9, reg.RW, "disable retry"),
			cfgIPC, cfgDM, cfgLM,
			fld("DO", 13, 13, reg.RW, "disable receive own"),
			cfgFES, cfgPS,
			fld("DCRS", 16, 16, reg.RW, "disable carrier sense during TX"),
			cfgIFG, cfgJE,
			fld("BE", 21, 21, reg.RW, "frame burst enable"),
			cfgJD, cfgWD,
			fld("TC", 24, 24, reg.RW, "transmit configuration in RGMII"),
			cfgCST, cfg2K,
		}, AfterWrite: func(_, cur uint32) {
			if cur&cfgTE.Mask() != 0 {
				c.txLaunch() // a frame held back by TE = 0 may go now
			}
		}},
		{Name: "GMAC_FRAME_FILTER", Offset: offFrameFilter, Fields: []reg.Field{
			ffPR, ffHUC, ffHMC, ffDAIF, ffPM, ffDBF, ffPCF,
			fld("SAIF", 8, 8, reg.RW, "SA inverse filtering"),
			fld("SAF", 9, 9, reg.RW, "SA filter"),
			ffHPF, ffRA,
		}},
		{Name: "GMAC_HASH_HIGH", Offset: offHashHigh, Fields: []reg.Field{fld("HTH", 31, 0, reg.RW, "hash bins 63..32")}},
		{Name: "GMAC_HASH_LOW", Offset: offHashLow, Fields: []reg.Field{fld("HTL", 31, 0, reg.RW, "hash bins 31..0")}},
		{Name: "GMAC_MII_ADDR", Offset: offMIIAddr, Fields: []reg.Field{miiGB, miiGW, miiCR, miiGR, miiPA},
			// While a frame is in flight (GB reads 1) writes are ignored, as the
			// databook forbids them; GB = 1 starts a frame.
			BeforeWrite: func(_, _ uint32) bool { return !c.mdio.ev.Pending() },
			AfterWrite:  func(_, cur uint32) { c.mdioStart(cur) }},
		{Name: "GMAC_MII_DATA", Offset: offMIIData, Fields: []reg.Field{fld("GD", 15, 0, reg.RW, "MDIO data")}},
		{Name: "GMAC_FLOW_CTRL", Offset: offFlowCtrl, AfterWrite: c.doneAtOnce(offFlowCtrl, fcFCB), Fields: []reg.Field{
			fcFCB,
			fld("TFE", 1, 1, reg.RW, "TX flow control"),
			fld("RFE", 2, 2, reg.RW, "RX flow control"),
			fld("UP", 3, 3, reg.RW, "unicast PAUSE detect"),
			fld("PLT", 5, 4, reg.RW, "pause low threshold"),
			fld("DZPQ", 7, 7, reg.RW, "disable zero-quanta pause"),
			fld("PT", 31, 16, reg.RW, "pause time"),
		}},
	}
	regs = append(regs, c.macStatusRegisters()...)
	regs = append(regs, addressRegisters()...)
	regs = append(regs, reg.Register{Name: "GMAC_S_R_GMII", Offset: offRGMIIStatus,
		Fields:    []reg.Field{rgmiiFullDuplex, rgmiiSpeed, rgmiiLinkUp},
		AfterRead: func(uint32) { c.ackRGMIIChange() }})
	return regs
}

// macStatusRegisters are the VLAN tag, the identification, power management and LPI
// registers and the MAC's interrupt status and mask.
func (c *MAC) macStatusRegisters() []reg.Register {
	updateIRQ := func(_, _ uint32) { c.updateIRQ() }
	return []reg.Register{
		{Name: "GMAC_VLAN_TAG", Offset: 0x1c, Fields: []reg.Field{
			fld("VL", 15, 0, reg.RW, "VLAN tag"),
			fld("ETV", 16, 16, reg.RW, "12-bit VLAN compare"),
		}},
		{Name: "GMAC_VERSION", Offset: offVersion, Reset: c.cfg.Version, Fields: []reg.Field{
			fld("SNPSVER", 7, 0, reg.RO, "Synopsys ID"),
			fld("USERVER", 15, 8, reg.RO, "user ID"),
		}},
		{Name: "GMAC_DEBUG", Offset: 0x24, Fields: []reg.Field{fld("STATE", 25, 0, reg.RO, "engine debug states (read 0)")}},
		{Name: "GMAC_WAKEUP_FILTER", Offset: 0x28, Fields: []reg.Field{fld("WKUPFRMFTR", 31, 0, reg.RW, "wake-up frame filter (FIFO not modelled)")}},
		{Name: "GMAC_PMT", Offset: offPMT, AfterWrite: c.doneAtOnce(offPMT, pmtRWKFILTRST), Fields: []reg.Field{
			fld("PWRDWN", 0, 0, reg.RW, "power down"),
			fld("MGKPKTEN", 1, 1, reg.RW, "magic packet enable"),
			fld("RWKPKTEN", 2, 2, reg.RW, "wake-up frame enable"),
			fld("MGKPRCVD", 5, 5, reg.RO, "magic packet received"),
			fld("RWKPRCVD", 6, 6, reg.RO, "wake-up frame received"),
			fld("GLBLUCAST", 9, 9, reg.RW, "global unicast"),
			pmtRWKFILTRST,
		}},
		{Name: "LPI_CTRL_STATUS", Offset: 0x30, Fields: []reg.Field{
			fld("TLPIEN", 0, 0, reg.RO, "TX LPI entry"),
			fld("TLPIEX", 1, 1, reg.RO, "TX LPI exit"),
			fld("RLPIEN", 2, 2, reg.RO, "RX LPI entry"),
			fld("RLPIEX", 3, 3, reg.RO, "RX LPI exit"),
			fld("TLPIST", 8, 8, reg.RO, "TX LPI state"),
			fld("RLPIST", 9, 9, reg.RO, "RX LPI state"),
			fld("LPIEN", 16, 16, reg.RW, "LPI enable"),
			fld("PLS", 17, 17, reg.RW, "PHY link status"),
			fld("PLSEN", 18, 18, reg.RW, "PHY link status enable"),
			fld("LPITXA", 19, 19, reg.RW, "LPI TX automate"),
		}},
		{Name: "LPI_TIMER_CTRL", Offset: 0x34, Reset: 0x03e80000, Fields: []reg.Field{
			fld("TWT", 15, 0, reg.RW, "LPI TW timer (us)"),
			fld("LST", 25, 16, reg.RW, "LPI LS timer (ms)"),
		}},
		{Name: "GMAC_INT_STATUS", Offset: offIntStatus, Fields: []reg.Field{
			intRGMII,
			intPCSLink, intPCSAN,
			intPMT, intMMC,
			fld("MMCRXIS", 5, 5, reg.RO, "MMC RX"),
			fld("MMCTXIS", 6, 6, reg.RO, "MMC TX"),
			fld("MMCRXIPIS", 7, 7, reg.RO, "MMC RX checksum offload"),
			intTS, intLPI,
		}},
		// The mask gates the MAC's status into GLI and the line combinationally.
		{Name: "GMAC_INT_MASK", Offset: offIntMask, AfterWrite: updateIRQ, Fields: []reg.Field{
			sameBit(intRGMII, "RGSMIIIM", "mask RGMII"),
			sameBit(intPCSLink, "PCSLCHGIM", "mask PCS link"),
			sameBit(intPCSAN, "PCSANCIM", "mask PCS AN"),
			sameBit(intPMT, "PMTIM", "mask PMT"),
			sameBit(intTS, "TSIM", "mask timestamp"),
			sameBit(intLPI, "LPIIM", "mask LPI"),
		}},
	}
}

// addressRegisters are the MAC address pairs 0..macAddrRegs-1; address 0 is always
// enabled and has no byte mask.
func addressRegisters() []reg.Register {
	var regs []reg.Register
	for n := 0; n < macAddrRegs; n++ {
		high := reg.Register{Name: fmt.Sprintf("GMAC_ADDR_HIGH%d", n), Offset: offAddr0High + uint32(8*n),
			Reset: 0x0000ffff, Fields: []reg.Field{addrHI}}
		if n == 0 {
			ae := addrAE
			ae.Access, ae.Doc = reg.RO, "address enable (always 1)"
			high.Reset |= ae.Mask()
			high.Fields = append(high.Fields, ae)
		} else {
			high.Fields = append(high.Fields, addrMBC, addrSA, addrAE)
		}
		low := reg.Register{Name: fmt.Sprintf("GMAC_ADDR_LOW%d", n), Offset: offAddr0High + 4 + uint32(8*n),
			Reset: 0xffffffff, Fields: []reg.Field{fld("ADDRLO", 31, 0, reg.RW, "address bytes 3:0")}}
		regs = append(regs, high, low)
	}
	return regs
}

// doneAtOnce is the AfterWrite hook of a register whose self-clearing field starts
// an action the model does not have: the field clears as soon as it is written.
func (c *MAC) doneAtOnce(off uint32, f reg.Field) func(old, cur uint32) {
	return func(_, cur uint32) { c.macRegs.Set(off, cur&^f.Mask()) }
}
