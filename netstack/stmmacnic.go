package netstack

import (
	"errors"

	stmmacdrv "mesonemu/linux/stmmac"
	"mesonemu/netstack/link"
)

// StmmacNIC is the board's stmmac ring driver as the board stack's card: Xmit
// never blocks, a stopped queue is ErrBusy, and the driver's queue wake-up
// reschedules the host's qdisc, as netif_tx_wake_queue does; its TX clean is
// the TX completion TCP Small Queues waits for.
type StmmacNIC struct{ *stmmacdrv.Driver }

// Transmit implements FrameNIC.
func (n StmmacNIC) Transmit(frame []byte) error {
	err := n.Xmit(frame)
	if errors.Is(err, stmmacdrv.ErrRingFull) {
		return ErrBusy // the frame stays the caller's, to offer again
	}
	link.ReleaseFrame(frame) // copied into the ring's buffer, or lost
	return err
}

var (
	_ FrameNIC         = StmmacNIC{}
	_ link.TxCompleter = StmmacNIC{}
	_ MulticastFilter  = StmmacNIC{}
)
