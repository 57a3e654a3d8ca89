package stmmac

// Defaults for Config fields left zero.
const (
	// DefaultVersion is GMAC_VERSION: user ID 0x11, Synopsys ID 0x37 (3.70a), as GXL/GXM
	// boot logs print it. Assumption: Meson8b carries the same value (UNCONFIRMED).
	DefaultVersion = 0x1137

	// DefaultHWFeature is DMA_HW_FEATURE. Bit 24 (ENHDESSEL) = 0 selects the normal
	// descriptors Amlogic parts report; bits 16 (TX COE) and 18 (RX COE type 2) match
	// the GXL probe lines, 9/10 the "Wake-Up On Lan" line. Assumption: the rest (MII 0,
	// GMII 1, half duplex 2, hash filter 4, multiple addresses 5, SMA 8, MMC 11,
	// RX FIFO > 2 KiB 19); no EEE (14) or timestamps (12/13) so Linux keeps those off.
	DefaultHWFeature = 1<<0 | 1<<1 | 1<<2 | 1<<4 | 1<<5 | 1<<8 | 1<<9 | 1<<10 | 1<<11 |
		1<<16 | 1<<18 | 1<<19

	// DefaultTxFIFOBytes and DefaultRxFIFOBytes are the Meson8b FIFO sizes.
	DefaultTxFIFOBytes = 2048
	DefaultRxFIFOBytes = 4096

	// DefaultCSRClockHz is the "stmmaceth" clock: clk81 = 159.375 MHz on Meson8b (the
	// board description says where that comes from). It sets the MDC period (CSR clock
	// range divider) and the RX watchdog (RIWT) unit.
	DefaultCSRClockHz = 159_375_000

	// DefaultJabberLimit, DefaultJumboJabberLimit and DefaultMaxFrame are the transmit
	// jabber and receive watchdog limits of the databook: 2048 bytes, 10240 with JE,
	// 16384 when the timer is disabled (JD / WD).
	DefaultJabberLimit      = 2048
	DefaultJumboJabberLimit = 10240
	DefaultMaxFrame         = 16384
)

// Config describes one DWMAC instance as the SoC integrates it.
type Config struct {
	// MACAddr is what the boot loader left in MAC address 0; Linux reads it at probe.
	// All zero leaves the silicon reset value (ff:ff:ff:ff:ff:ff, which Linux rejects
	// and replaces with a random address). A software reset restores the reset value.
	MACAddr [6]byte
	// HWFeature is the DMA_HW_FEATURE word (0: DefaultHWFeature).
	HWFeature uint32
	// Version is the GMAC_VERSION word (0: DefaultVersion).
	Version uint32
	// TxFIFOBytes / RxFIFOBytes are the MTL FIFO sizes (0: defaults).
	TxFIFOBytes, RxFIFOBytes int
	// CSRClockHz is the CSR (application) clock (0: DefaultCSRClockHz).
	CSRClockHz uint64
	// RIWTRestart makes every DIC frame reload a running RX interrupt watchdog, so
	// RI comes RIWT after the last frame of a burst; false starts it at the first
	// DIC frame only. The databook text reads either way (doc.go, docs/latency.md).
	RIWTRestart bool
	// JabberLimit, JumboJabberLimit and MaxFrame bound frame lengths in bytes on the
	// wire, FCS included (0: defaults). MaxFrame is also the size of the transmit
	// buffer, so it bounds the model's memory.
	JabberLimit, JumboJabberLimit, MaxFrame int
}

// DefaultConfig is the Meson8b configuration with the reset MAC address.
func DefaultConfig() Config {
	return Config{
		HWFeature:        DefaultHWFeature,
		Version:          DefaultVersion,
		TxFIFOBytes:      DefaultTxFIFOBytes,
		RxFIFOBytes:      DefaultRxFIFOBytes,
		CSRClockHz:       DefaultCSRClockHz,
		JabberLimit:      DefaultJabberLimit,
		JumboJabberLimit: DefaultJumboJabberLimit,
		MaxFrame:         DefaultMaxFrame,
	}
}

// withDefaults fills zero fields and clamps the limits to what the descriptors and the
// 14-bit RX frame-length field can express.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.HWFeature == 0 {
		c.HWFeature = d.HWFeature
	}
	if c.Version == 0 {
		c.Version = d.Version
	}
	if c.TxFIFOBytes <= 0 {
		c.TxFIFOBytes = d.TxFIFOBytes
	}
	if c.RxFIFOBytes <= 0 {
		c.RxFIFOBytes = d.RxFIFOBytes
	}
	if c.CSRClockHz == 0 {
		c.CSRClockHz = d.CSRClockHz
	}
	if c.MaxFrame <= 0 || c.MaxFrame > DefaultMaxFrame {
		c.MaxFrame = d.MaxFrame
	}
	if c.JabberLimit <= 0 || c.JabberLimit > c.MaxFrame {
		c.JabberLimit = min(d.JabberLimit, c.MaxFrame)
	}
	if c.JumboJabberLimit <= 0 || c.JumboJabberLimit > c.MaxFrame {
		c.JumboJabberLimit = min(d.JumboJabberLimit, c.MaxFrame)
	}
	return c
}
