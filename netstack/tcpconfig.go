package netstack

import (
	"fmt"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"
)

// TCPConfig is a host's TCP as far as gVisor lets it be set. LinuxTCP gives
// Linux v5.5's defaults; docs/decisions.md lists where gVisor cannot follow.
type TCPConfig struct {
	// SACK: net.ipv4.tcp_sack (1).
	SACK bool
	// RACK: gVisor's RACK-TLP loss detection (Linux: tcp_recovery 1 and
	// tcp_early_retrans 3, both on). It finds a lost retransmission after
	// about one round trip where SACK and duplicate ACKs alone (RFC 6675)
	// wait for the 200 ms RTO. Faithful on the engine only with the stack
	// clock's distinct readings (Clock.strictNow). gVisor's probe timeout is
	// 2·SRTT with SRTT floored at 1 ms (snd.go MinSRTT), where v5.5 adds
	// TCP_TIMEOUT_MIN (2 jiffies) to 2·srtt: a shorter probe, which fires
	// only at a tail (docs/tcp.md).
	RACK bool
	// MinRTO and MaxRTO: TCP_RTO_MIN (200 ms) and TCP_RTO_MAX (120 s).
	MinRTO, MaxRTO time.Duration
	// Send and receive buffer ranges: net.ipv4.tcp_wmem and tcp_rmem.
	SendBuffer, ReceiveBuffer BufferRange
	// ModerateReceiveBuffer: net.ipv4.tcp_moderate_rcvbuf (1), receive
	// buffer autotuning.
	ModerateReceiveBuffer bool
}

// BufferRange is a socket buffer's min, default and max in bytes.
type BufferRange struct{ Min, Default, Max int }

// LinuxTCP is Linux v5.5's TCP where gVisor has the knob. Departures:
//   - The send buffer starts at its 4 MiB maximum: Linux's tcp_wmem default
//     is 16 KiB and autotuning grows it to the maximum in a bulk transfer, but
//     gVisor's send buffer never grows by itself.
//   - Not settable in gVisor, and the same as Linux: timestamps (tcp_timestamps
//     1), initial window 10 segments, window scaling. Different and not
//     settable: gVisor has no delayed ACK; it ACKs each batch of segments it
//     processes (the PC's link path adds Linux's ACK policy,
//     linuxmodel.DelayedAcks; the board's receive side keeps gVisor's).
func LinuxTCP() TCPConfig {
	return TCPConfig{
		SACK:                  true,
		RACK:                  true,
		MinRTO:                200 * time.Millisecond,
		MaxRTO:                120 * time.Second,
		SendBuffer:            BufferRange{Min: 4096, Default: 4 << 20, Max: 4 << 20},
		ReceiveBuffer:         BufferRange{Min: 4096, Default: 131072, Max: 6291456},
		ModerateReceiveBuffer: true,
	}
}

// apply sets the configuration on a stack's TCP.
func (c TCPConfig) apply(s *stack.Stack) error {
	sack := tcpip.TCPSACKEnabled(c.SACK)
	rec := tcpip.TCPRecovery(0)
	if c.RACK {
		rec = tcpip.TCPRACKLossDetection
	}
	minRTO, maxRTO := tcpip.TCPMinRTOOption(c.MinRTO), tcpip.TCPMaxRTOOption(c.MaxRTO)
	wmem := tcpip.TCPSendBufferSizeRangeOption(c.SendBuffer)
	rmem := tcpip.TCPReceiveBufferSizeRangeOption(c.ReceiveBuffer)
	mod := tcpip.TCPModerateReceiveBufferOption(c.ModerateReceiveBuffer)
	for _, o := range []struct {
		name string
		opt  tcpip.SettableTransportProtocolOption
	}{
		{"SACK", &sack}, {"loss recovery", &rec}, {"min RTO", &minRTO}, {"max RTO", &maxRTO},
		{"send buffer", &wmem}, {"receive buffer", &rmem}, {"receive buffer moderation", &mod},
	} {
		if err := s.SetTransportProtocolOption(tcp.ProtocolNumber, o.opt); err != nil {
			return fmt.Errorf("%s: %s", o.name, err)
		}
	}
	return nil
}
