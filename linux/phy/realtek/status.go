package realtek

import "fmt"

// Info is the driver's view of the PHY, as `ethtool` and the CLI show it.
type Info struct {
	State         State
	Link          bool
	Speed         int // Mbit/s; 0 unknown
	FullDuplex    bool
	Autoneg       bool
	Advertising   LinkModes
	LPAdvertising LinkModes
	Pause         bool
	AsymPause     bool
	Interrupts    bool  // true: interrupt driven; false: polled every PHYStateTime
	LastError     error // the error that halted the state machine, if any
}

// Info is the driver state as of the last time the driver's lock was released.
// It never waits for an MDIO sequence in progress, so any context may call it.
func (p *PHY) Info() Info { return p.snapshot().info }

// Link is the link as the state machine last reported it.
func (p *PHY) Link() (up bool, speed int, fullDuplex bool) {
	i := p.snapshot().info
	if !i.Link || i.State != StateRunning {
		return false, 0, false
	}
	return true, i.Speed, i.FullDuplex
}

// Status is phy_print_status's first part, as the CLI prints it:
// "Link is Up - 1Gbps/Full" or "Link is Down".
func (p *PHY) Status() string { return p.snapshot().status }

// statusLocked renders the status; withPause appends phy_print_status's
// " - flow control ..." part, as the kernel log line has it.
func (p *PHY) statusLocked(withPause bool) string {
	if !p.link {
		return "Link is Down"
	}
	s := fmt.Sprintf("Link is Up - %s/%s", speedString(p.speed), p.duplexString())
	if withPause {
		s += " - flow control " + p.pauseString()
	}
	return s
}

// speedString is phy_speed_to_str for the speeds a 1000BASE-T PHY has.
func speedString(speed int) string {
	switch speed {
	case 10:
		return "10Mbps"
	case 100:
		return "100Mbps"
	case 1000:
		return "1Gbps"
	}
	return "Unknown"
}

func (p *PHY) duplexString() string {
	switch {
	case !p.duplexKnown:
		return "Unknown"
	case p.fullDuplex:
		return "Full"
	}
	return "Half"
}

// pauseString is v5.5 phy_print_status's flow-control word.
func (p *PHY) pauseString() string {
	if p.pause {
		return "rx/tx"
	}
	return "off"
}
