package stmmac

// ProcessState is the coarse state of a DMA channel (CSR5 TS/RS give the fine one).
type ProcessState uint8

// DMA process states.
const (
	// Stopped: reset, ST/SR clear, or halted by a fatal bus error.
	Stopped ProcessState = iota
	// Running: fetching descriptors, moving data or waiting for frames.
	Running
	// Suspended: the current descriptor belongs to the host (TU / RU); a poll demand
	// (or, for RX, the next frame) makes the engine look again.
	Suspended
)

func (s ProcessState) String() string {
	switch s {
	case Stopped:
		return "stopped"
	case Running:
		return "running"
	case Suspended:
		return "suspended"
	}
	return "unknown"
}

// CSR5 process-state codes (dwmac_lib.c show_tx/rx_process_state).
const (
	tsStopped   = 0
	tsFetching  = 1
	tsWaiting   = 2 // frame on the line, waiting for its status
	tsReading   = 3 // frame read into the FIFO, waiting for the transmitter (TE)
	tsSuspended = 6

	rsStopped   = 0
	rsWaiting   = 3
	rsSuspended = 4
)

// RxOutcome says what became of one frame handed to Receive. Every frame gets exactly
// one outcome, so a caller can prove that none vanished.
type RxOutcome uint8

// Receive outcomes.
const (
	// Delivered: written to RX descriptors and returned to the host. Frames forwarded
	// with error status (FEF, threshold mode) are Delivered too; Counters tells them apart.
	Delivered RxOutcome = iota
	// DroppedCRC: bad FCS, not forwarded.
	DroppedCRC
	// DroppedLength: runt, undersized (without FUF), giant or watchdog-cut frame, or a
	// frame larger than the RX FIFO in store-and-forward mode.
	DroppedLength
	// DroppedNoDescriptor: the current RX descriptor is owned by the host (RU, missed
	// frame counter), or the frame did not fit in the owned descriptors (truncated with
	// descriptor error, which the host discards).
	DroppedNoDescriptor
	// DroppedDisabled: the receiver (RE) or the RX DMA (SR, or a bus-error stop) is off.
	DroppedDisabled
	// DroppedBusError: an RX descriptor or buffer address lies outside RAM (FBI).
	DroppedBusError
	// DroppedFiltered: the destination address filter (or PAUSE/control frame filter)
	// rejected the frame.
	DroppedFiltered
)

func (o RxOutcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case DroppedCRC:
		return "dropped: bad FCS"
	case DroppedLength:
		return "dropped: length"
	case DroppedNoDescriptor:
		return "dropped: no RX descriptor"
	case DroppedDisabled:
		return "dropped: receiver or RX DMA disabled"
	case DroppedBusError:
		return "dropped: DMA bus error"
	case DroppedFiltered:
		return "dropped: address filter"
	}
	return "unknown"
}
