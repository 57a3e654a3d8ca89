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

// MAC configuration (GMAC_CONTROL) bits.
const (
	cfgRE   = 1 << 2
	cfgTE   = 1 << 3
	cfgACS  = 1 << 7
	cfgIPC  = 1 << 10
	cfgDM   = 1 << 11
	cfgLM   = 1 << 12
	cfgFES  = 1 << 14
	cfgPS   = 1 << 15
	cfgJE   = 1 << 20
	cfgJD   = 1 << 22
	cfgWD   = 1 << 23
	cfgCST  = 1 << 25
	cfg2K   = 1 << 27
	cfgIFG  = 7 << 17
	ifgShft = 17
)

// Frame filter bits.
const (
	ffPR   = 1 << 0
	ffHUC  = 1 << 1
	ffHMC  = 1 << 2
	ffDAIF = 1 << 3
	ffPM   = 1 << 4
	ffDBF  = 1 << 5
	ffPCF  = 3 << 6
	ffHPF  = 1 << 10
	ffRA   = 1 << 31
)

// GMII address bits.
const (
	miiGB = 1 << 0
	miiGW = 1 << 1
)

// Interrupt status / mask bits of the MAC (GMAC_INT_STATUS).
const (
	intRGMII = 1 << 0
	// intSources are the status bits that can assert the line when unmasked.
	intSources = 1<<0 | 1<<3 | 1<<4 | 1<<9 | 1<<10
)

// Address high register bits.
const addrAE = 1 << 31

func fld(name string, hi, lo uint8, acc reg.Access, doc string) reg.Field {
	return reg.Field{Name: name, Hi: hi, Lo: lo, Access: acc, Doc: doc}
}

// macRegisters is the MAC register table (0x0000-0x00ff). Reset values are the
// databook's; GMAC_VERSION's reset value is patched per instance from Config.
var macRegisters = func() []reg.Register {
	regs := []reg.Register{
		{Name: "GMAC_CONTROL", Offset: offMACConfig, Fields: []reg.Field{
			fld("RE", 2, 2, reg.RW, "receiver enable"),
			fld("TE", 3, 3, reg.RW, "transmitter enable"),
			fld("DC", 4, 4, reg.RW, "deferral check (half duplex)"),
			fld("BL", 6, 5, reg.RW, "back-off limit (half duplex)"),
			fld("ACS", 7, 7, reg.RW, "strip pad/FCS of 802.3 length frames"),
			fld("LUD", 8, 8, reg.RW, "link up/down sent in RGMII in-band status"),
			fld("DR", 9, 9, reg.RW, "disable retry"),
			fld("IPC", 10, 10, reg.RW, "RX checksum offload"),
			fld("DM", 11, 11, reg.RW, "full duplex"),
			fld("LM", 12, 12, reg.RW, "GMII loopback"),
			fld("DO", 13, 13, reg.RW, "disable receive own"),
			fld("FES", 14, 14, reg.RW, "100 Mbit/s when PS = 1 (else 10)"),
			fld("PS", 15, 15, reg.RW, "port select: 1 = MII 10/100, 0 = GMII 1000"),
			fld("DCRS", 16, 16, reg.RW, "disable carrier sense during TX"),
			fld("IFG", 19, 17, reg.RW, "inter-frame gap: 96 - 8*IFG bit times"),
			fld("JE", 20, 20, reg.RW, "jumbo frames"),
			fld("BE", 21, 21, reg.RW, "frame burst enable"),
			fld("JD", 22, 22, reg.RW, "jabber disable"),
			fld("WD", 23, 23, reg.RW, "RX watchdog disable"),
			fld("TC", 24, 24, reg.RW, "transmit configuration in RGMII"),
			fld("CST", 25, 25, reg.RW, "strip FCS of Ether-type frames"),
			fld("2KPE", 27, 27, reg.RW, "2000-byte frames are not giants"),
		}},
		{Name: "GMAC_FRAME_FILTER", Offset: offFrameFilter, Fields: []reg.Field{
			fld("PR", 0, 0, reg.RW, "promiscuous"),
			fld("HUC", 1, 1, reg.RW, "hash unicast"),
			fld("HMC", 2, 2, reg.RW, "hash multicast"),
			fld("DAIF", 3, 3, reg.RW, "DA inverse filtering"),
			fld("PM", 4, 4, reg.RW, "pass all multicast"),
			fld("DBF", 5, 5, reg.RW, "disable broadcast frames"),
			fld("PCF", 7, 6, reg.RW, "pass control frames"),
			fld("SAIF", 8, 8, reg.RW, "SA inverse filtering"),
			fld("SAF", 9, 9, reg.RW, "SA filter"),
			fld("HPF", 10, 10, reg.RW, "hash or perfect filter"),
			fld("RA", 31, 31, reg.RW, "receive all"),
		}},
		{Name: "GMAC_HASH_HIGH", Offset: offHashHigh, Fields: []reg.Field{fld("HTH", 31, 0, reg.RW, "hash bins 63..32")}},
		{Name: "GMAC_HASH_LOW", Offset: offHashLow, Fields: []reg.Field{fld("HTL", 31, 0, reg.RW, "hash bins 31..0")}},
		{Name: "GMAC_MII_ADDR", Offset: offMIIAddr, Fields: []reg.Field{
			fld("GB", 0, 0, reg.SC, "MDIO busy: set to start, cleared when the frame is done"),
			fld("GW", 1, 1, reg.RW, "MDIO write"),
			fld("CR", 5, 2, reg.RW, "CSR clock range (MDC divider)"),
			fld("GR", 10, 6, reg.RW, "PHY register"),
			fld("PA", 15, 11, reg.RW, "PHY address"),
		}},
		{Name: "GMAC_MII_DATA", Offset: offMIIData, Fields: []reg.Field{fld("GD", 15, 0, reg.RW, "MDIO data")}},
		{Name: "GMAC_FLOW_CTRL", Offset: offFlowCtrl, Fields: []reg.Field{
			fld("FCB_BPA", 0, 0, reg.SC, "send PAUSE / backpressure (not modelled: clears at once)"),
			fld("TFE", 1, 1, reg.RW, "TX flow control"),
			fld("RFE", 2, 2, reg.RW, "RX flow control"),
			fld("UP", 3, 3, reg.RW, "unicast PAUSE detect"),
			fld("PLT", 5, 4, reg.RW, "pause low threshold"),
			fld("DZPQ", 7, 7, reg.RW, "disable zero-quanta pause"),
			fld("PT", 31, 16, reg.RW, "pause time"),
		}},
		{Name: "GMAC_VLAN_TAG", Offset: 0x1c, Fields: []reg.Field{
			fld("VL", 15, 0, reg.RW, "VLAN tag"),
			fld("ETV", 16, 16, reg.RW, "12-bit VLAN compare"),
		}},
		{Name: "GMAC_VERSION", Offset: offVersion, Reset: DefaultVersion, Fields: []reg.Field{
			fld("SNPSVER", 7, 0, reg.RO, "Synopsys ID"),
			fld("USERVER", 15, 8, reg.RO, "user ID"),
		}},
		{Name: "GMAC_DEBUG", Offset: 0x24, Fields: []reg.Field{fld("STATE", 25, 0, reg.RO, "engine debug states (read 0)")}},
		{Name: "GMAC_WAKEUP_FILTER", Offset: 0x28, Fields: []reg.Field{fld("WKUPFRMFTR", 31, 0, reg.RW, "wake-up frame filter (FIFO not modelled)")}},
		{Name: "GMAC_PMT", Offset: offPMT, Fields: []reg.Field{
			fld("PWRDWN", 0, 0, reg.RW, "power down"),
			fld("MGKPKTEN", 1, 1, reg.RW, "magic packet enable"),
			fld("RWKPKTEN", 2, 2, reg.RW, "wake-up frame enable"),
			fld("MGKPRCVD", 5, 5, reg.RO, "magic packet received"),
			fld("RWKPRCVD", 6, 6, reg.RO, "wake-up frame received"),
			fld("GLBLUCAST", 9, 9, reg.RW, "global unicast"),
			fld("RWKFILTRST", 31, 31, reg.SC, "wake-up filter pointer reset"),
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
			fld("RGSMIIIS", 0, 0, reg.RO, "RGMII link status changed (cleared by reading GMAC_S_R_GMII)"),
			fld("PCSLCHGIS", 1, 1, reg.RO, "PCS link change"),
			fld("PCSANCIS", 2, 2, reg.RO, "PCS AN complete"),
			fld("PMTIS", 3, 3, reg.RO, "PMT"),
			fld("MMCIS", 4, 4, reg.RO, "MMC"),
			fld("MMCRXIS", 5, 5, reg.RO, "MMC RX"),
			fld("MMCTXIS", 6, 6, reg.RO, "MMC TX"),
			fld("MMCRXIPIS", 7, 7, reg.RO, "MMC RX checksum offload"),
			fld("TSIS", 9, 9, reg.RO, "timestamp"),
			fld("LPIIS", 10, 10, reg.RO, "LPI"),
		}},
		{Name: "GMAC_INT_MASK", Offset: offIntMask, Fields: []reg.Field{
			fld("RGSMIIIM", 0, 0, reg.RW, "mask RGMII"),
			fld("PCSLCHGIM", 1, 1, reg.RW, "mask PCS link"),
			fld("PCSANCIM", 2, 2, reg.RW, "mask PCS AN"),
			fld("PMTIM", 3, 3, reg.RW, "mask PMT"),
			fld("TSIM", 9, 9, reg.RW, "mask timestamp"),
			fld("LPIIM", 10, 10, reg.RW, "mask LPI"),
		}},
	}
	for n := 0; n < macAddrRegs; n++ {
		high := reg.Register{Name: fmt.Sprintf("GMAC_ADDR_HIGH%d", n), Offset: offAddr0High + uint32(8*n),
			Reset: 0x0000ffff, Fields: []reg.Field{fld("ADDRHI", 15, 0, reg.RW, "address bytes 5:4")}}
		if n == 0 {
			high.Reset |= addrAE
			high.Fields = append(high.Fields, fld("AE", 31, 31, reg.RO, "address enable (always 1)"))
		} else {
			high.Fields = append(high.Fields,
				fld("MBC", 29, 24, reg.RW, "mask byte control"),
				fld("SA", 30, 30, reg.RW, "compare with SA"),
				fld("AE", 31, 31, reg.RW, "address enable"))
		}
		low := reg.Register{Name: fmt.Sprintf("GMAC_ADDR_LOW%d", n), Offset: offAddr0High + 4 + uint32(8*n),
			Reset: 0xffffffff, Fields: []reg.Field{fld("ADDRLO", 31, 0, reg.RW, "address bytes 3:0")}}
		regs = append(regs, high, low)
	}
	regs = append(regs, reg.Register{Name: "GMAC_S_R_GMII", Offset: offRGMIIStatus, Fields: []reg.Field{
		fld("LNKMOD", 0, 0, reg.RO, "full duplex"),
		fld("LNKSPEED", 2, 1, reg.RO, "0 = 2.5 MHz, 1 = 25 MHz, 2 = 125 MHz"),
		fld("LNKSTS", 3, 3, reg.RO, "link up"),
	}})
	return regs
}()
