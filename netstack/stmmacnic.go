package netstack

import (
	"errors"

	stmmacdrv "mesonemu/stmmac/stmmaceth"
)

// StmmacNIC is the board's stmmac ring driver as the board stack's card: Xmit
// never blocks, a stopped queue is ErrBusy, and the driver's queue wake-up
// reschedules the endpoint's qdisc, as netif_tx_wake_queue does.
type StmmacNIC struct{ *stmmacdrv.Driver }

// Transmit implements FrameNIC.
func (n StmmacNIC) Transmit(frame []byte) error {
	err := n.Xmit(frame)
	if errors.Is(err, stmmacdrv.ErrRingFull) {
		return ErrBusy
	}
	return err
}

var (
	_ FrameNIC    = StmmacNIC{}
	_ TxCompleter = StmmacNIC{}
)
