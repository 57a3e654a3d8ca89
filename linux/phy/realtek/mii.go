package realtek

// Register numbers and bits as Linux's include/uapi/linux/mii.h and
// drivers/net/phy/realtek.c name them. The guest keeps its own copy, as Linux
// has its own headers; it never reads the hardware model's tables.
const (
	miiBMCR      = 0x00
	miiBMSR      = 0x01
	miiPHYSID1   = 0x02
	miiPHYSID2   = 0x03
	miiADVERTISE = 0x04
	miiLPA       = 0x05
	miiCTRL1000  = 0x09
	miiSTAT1000  = 0x0a

	bmcrReset     = 0x8000
	bmcrLoopback  = 0x4000
	bmcrSpeed100  = 0x2000
	bmcrANEnable  = 0x1000
	bmcrPDown     = 0x0800
	bmcrIsolate   = 0x0400
	bmcrANRestart = 0x0200
	bmcrFullDplx  = 0x0100
	bmcrSpeed1000 = 0x0040

	bmsrESTATEN    = 0x0100
	bmsrANComplete = 0x0020
	bmsrLStatus    = 0x0004

	advertise10Half   = 0x0020
	advertise10Full   = 0x0040
	advertise100Half  = 0x0080
	advertise100Full  = 0x0100
	advertise100Base4 = 0x0200
	advertisePauseCap = 0x0400
	advertisePauseAsm = 0x0800
	advertiseAll      = advertise10Half | advertise10Full | advertise100Half | advertise100Full

	lpaLPAck = 0x4000

	advertise1000Half = 0x0100
	advertise1000Full = 0x0200
	ctl1000EnableMstr = 0x1000

	lpa1000Half   = 0x0400
	lpa1000Full   = 0x0800
	lpa1000MSFail = 0x8000

	// realtek.c
	rtl821xPageSelect     = 0x1f
	rtl821xINER           = 0x12
	rtl8211fINSR          = 0x1d
	rtl8211fINERLinkStat  = 0x0010
	rtl8211fTXDelay       = 0x0100 // page 0xd08 reg 0x11
	rtl8211fRXDelay       = 0x0008 // page 0xd08 reg 0x15
	rtl8211fDelayPage     = 0xd08
	rtl8211fTXDelayReg    = 0x11
	rtl8211fRXDelayReg    = 0x15
	rtl8211fINERPage      = 0xa42
	rtl8211fINSRPage      = 0xa43
	rtl8211fPHYID         = 0x001cc916
	rtl8211fPHYIDMask     = 0x001fffff
	rtl8211fDriverName    = "RTL8211F Gigabit Ethernet"
	phyPollResetInterval  = 50   // ms, phy_poll_reset's msleep(50)
	phyPollResetRetries   = 12   // 12 x 50 ms = 0.6 s
	phyPollResetAfterWait = 1    // ms, the msleep(1) after the bit clears
	phyStateTimeMs        = 1000 // PHY_STATE_TIME = HZ
)
