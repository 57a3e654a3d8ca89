package stmmac

// Guest-side register map of the DWMAC 3.70a ("dwmac1000"), as Linux v5.4 spells it
// in dwmac1000.h, dwmac_dma.h and mmc_core.c. Offsets are from the register base.
// The driver keeps its own copy, as Linux keeps its headers: it never imports the
// hardware model.

// MAC registers (dwmac1000.h).
const (
	gmacControl     = 0x00 // GMAC_CONTROL (MAC configuration)
	gmacFrameFilter = 0x04 // GMAC_FRAME_FILTER
	gmacHashHigh    = 0x08 // GMAC_HASH_HIGH
	gmacHashLow     = 0x0c // GMAC_HASH_LOW
	gmacMIIAddr     = 0x10 // GMAC_MII_ADDR
	gmacMIIData     = 0x14 // GMAC_MII_DATA
	gmacVLANTag     = 0x1c // GMAC_VLAN_TAG
	gmacVersion     = 0x20 // GMAC_VERSION
	gmacPMT         = 0x2c // GMAC_PMT
	lpiCtrlStatus   = 0x30 // LPI_CTRL_STATUS
	gmacIntStatus   = 0x38 // GMAC_INT_STATUS
	gmacIntMask     = 0x3c // GMAC_INT_MASK
	gmacAddrHigh0   = 0x40 // GMAC_ADDR_HIGH(0)
	gmacAddrLow0    = 0x44 // GMAC_ADDR_LOW(0)
)

// GMAC_CONTROL bits.
const (
	gmacControlRE   = 1 << 2  // receiver enable
	gmacControlTE   = 1 << 3  // transmitter enable
	gmacControlACS  = 1 << 7  // automatic pad/CRC stripping (802.3 length frames)
	gmacControlDM   = 1 << 11 // full duplex
	gmacControlFES  = 1 << 14 // 100 Mbit/s when PS
	gmacControlPS   = 1 << 15 // port select: 1 = MII (10/100), 0 = GMII (1000)
	gmacControlDCRS = 1 << 16 // disable carrier sense during transmission
	gmacControlJE   = 1 << 20 // jumbo frames
	gmacControlBE   = 1 << 21 // frame burst enable
	gmacControlJD   = 1 << 22 // jabber disable
	gmacControl2K   = 1 << 27 // IEEE 802.3as 2K packets

	// gmacCoreInit is GMAC_CORE_INIT: what dwmac1000_core_init ORs in.
	gmacCoreInit = gmacControlJD | gmacControlPS | gmacControlACS | gmacControlBE | gmacControlDCRS

	// Speed/duplex fields as dwmac1000_setup fills mac->link.
	linkSpeedMask = gmacControlPS | gmacControlFES
	linkSpeed1000 = 0
	linkSpeed100  = gmacControlPS | gmacControlFES
	linkSpeed10   = gmacControlPS
	linkDuplex    = gmacControlDM
)

// GMAC_FRAME_FILTER bits.
const (
	frameFilterPR  = 1 << 0 // promiscuous
	frameFilterPCF = 1 << 7 // pass control frames
)

// GMAC_INT_STATUS bits and the default mask dwmac1000_core_init writes.
const (
	gmacIntStatusPMT     = 1 << 3
	gmacIntStatusMMCRIS  = 1 << 5
	gmacIntStatusMMCTIS  = 1 << 6
	gmacIntStatusMMCCSUM = 1 << 7
	gmacIntStatusLPIIS   = 1 << 10

	// gmacIntDefaultMask = GMAC_INT_DISABLE_TIMESTAMP | GMAC_INT_DISABLE_PCS
	// (RGMII, PCS link, PCS AN).
	gmacIntDefaultMask = 1<<9 | 1<<0 | 1<<1 | 1<<2
)

// LPI_CTRL_STATUS bits (read to clear the LPI interrupt).
const (
	lpiTLPIEN = 1 << 0
	lpiTLPIEX = 1 << 1
	lpiRLPIEN = 1 << 2
	lpiRLPIEX = 1 << 3
)

// GMAC_HI_REG_AE: address enable bit of the MAC address high registers.
const gmacHiRegAE = 1 << 31

// GMAC_MII_ADDR fields (stmmac_mdio.c with dwmac1000's mii layout).
const (
	miiBusy        = 1 << 0
	miiWrite       = 1 << 1
	miiClkCSRShift = 2
	miiClkCSRMask  = 0x3c
	miiRegShift    = 6
	miiRegMask     = 0x7c0
	miiAddrShift   = 11
	miiAddrMask    = 0xf800
)

// DMA registers (dwmac_dma.h).
const (
	dmaBusMode       = 0x1000 // CSR0
	dmaXmtPollDemand = 0x1004 // CSR1
	dmaRcvPollDemand = 0x1008 // CSR2
	dmaRcvBaseAddr   = 0x100c // CSR3
	dmaTxBaseAddr    = 0x1010 // CSR4
	dmaStatus        = 0x1014 // CSR5
	dmaControl       = 0x1018 // CSR6 (operation mode)
	dmaIntrEna       = 0x101c // CSR7
	dmaMissedFrame   = 0x1020 // CSR8
	dmaRxWatchdog    = 0x1024 // RIWT
	dmaHWFeature     = 0x1058
)

// DMA_BUS_MODE bits (dwmac1000.h / dwmac_dma.h).
const (
	dmaBusModeSftReset = 1 << 0
	dmaBusModePBLMask  = 0x00003f00
	dmaBusModePBLShift = 8
	dmaBusModeFB       = 1 << 16
	dmaBusModeRPBLMask = 0x003e0000 // Linux's mask (bits 21:17)
	dmaBusModeRPBL     = 17         // DMA_BUS_MODE_RPBL_SHIFT
	dmaBusModeUSP      = 1 << 23
	dmaBusModeMaxPBL   = 1 << 24 // 8xPBL on cores >= 3.50
	dmaBusModeAAL      = 1 << 25
	dmaBusModeMB       = 1 << 26
)

// DMA_CONTROL (CSR6) bits.
const (
	dmaControlSR      = 1 << 1
	dmaControlOSF     = 1 << 2
	dmaControlEFC     = 1 << 8
	dmaControlST      = 1 << 13
	dmaControlTSF     = 1 << 21
	dmaControlRSF     = 1 << 25
	dmaControlRFAMask = 0x00800600
	dmaControlRFDMask = 0x00401800
)

// DMA_STATUS (CSR5) bits.
const (
	dmaStatusTI  = 1 << 0
	dmaStatusTPS = 1 << 1
	dmaStatusTU  = 1 << 2
	dmaStatusTJT = 1 << 3
	dmaStatusOVF = 1 << 4
	dmaStatusUNF = 1 << 5
	dmaStatusRI  = 1 << 6
	dmaStatusRU  = 1 << 7
	dmaStatusRPS = 1 << 8
	dmaStatusRWT = 1 << 9
	dmaStatusETI = 1 << 10
	dmaStatusFBI = 1 << 13
	dmaStatusERI = 1 << 14
	dmaStatusAIS = 1 << 15
	dmaStatusNIS = 1 << 16
	dmaStatusGLI = 1 << 26
	dmaStatusGMI = 1 << 27
	dmaStatusGPI = 1 << 28

	dmaStatusRSShift     = 17 // RX process state, bits 19:17
	dmaStatusRSMask      = 0x7 << dmaStatusRSShift
	dmaRxStateSuspended  = 4 // "Suspended: receive descriptor unavailable"
	dmaStatusW1CMask     = 0x1ffff
	dmaStatusMMCIRQ      = dmaStatusGMI
	dmaStatusUnexpected  = dmaStatusGPI | dmaStatusGMI | dmaStatusGLI
	dmaStatusRxSuspended = dmaRxStateSuspended << dmaStatusRSShift
)

// DMA_INTR_ENA (CSR7) bits and Linux's default mask.
const (
	dmaIntrEnaTIE = 1 << 0
	dmaIntrEnaUNE = 1 << 5
	dmaIntrEnaRIE = 1 << 6
	dmaIntrEnaFBE = 1 << 13
	dmaIntrEnaAIE = 1 << 15
	dmaIntrEnaNIE = 1 << 16

	// dmaIntrDefaultMask = DMA_INTR_NORMAL | DMA_INTR_ABNORMAL = 0x1a061.
	dmaIntrDefaultMask = dmaIntrEnaNIE | dmaIntrEnaRIE | dmaIntrEnaTIE |
		dmaIntrEnaAIE | dmaIntrEnaFBE | dmaIntrEnaUNE
)

// DMA_MISSED_FRAME_CTR fields (dwmac_dma.h), as dwmac100_dma_diagnostic_fr reads them.
const (
	missedFrameOVE     = 0x10000000 // overflow of the FIFO-overflow counter
	missedFrameOVECntr = 0x0ffe0000 // frames lost to FIFO overflow
	missedFrameOVEM    = 0x00010000 // overflow of the missed-frame counter
	missedFrameMCntr   = 0x0000ffff // frames missed for lack of a descriptor
)

// DMA_HW_FEATURE bits the driver decodes (dwmac1000_get_hw_feature).
const (
	hwFeatMMC      = 1 << 11
	hwFeatEEE      = 1 << 14
	hwFeatTxCOE    = 1 << 16
	hwFeatRxCOE1   = 1 << 17
	hwFeatRxCOE2   = 1 << 18
	hwFeatEnhDesc  = 1 << 24
	dwmacCore3_50  = 0x35 // DWMAC_CORE_3_50: RX watchdog (RIWT) available from here
	synopsysIDMask = 0xff
)

// MMC registers, relative to the MMC block at base+0x100 (mmc_core.c).
const (
	mmcBase          = 0x100
	mmcCntrl         = 0x00
	mmcRxIntrMask    = 0x0c
	mmcTxIntrMask    = 0x10
	mmcRxIPCIntrMask = 0x100
	mmcDefaultMask   = 0xffffffff

	mmcCntrlCounterReset   = 0x1
	mmcCntrlResetOnRead    = 0x4
	mmcCntrlPreset         = 0x10
	mmcCntrlFullHalfPreset = 0x20
	mmcCntrlMask           = 0x3f

	// mmcMode is what stmmac_mmc_setup asks for.
	mmcMode = mmcCntrlResetOnRead | mmcCntrlCounterReset | mmcCntrlPreset | mmcCntrlFullHalfPreset
)
