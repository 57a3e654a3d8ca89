package perfrun

import (
	"fmt"
	"io"
	"math"

	"mesonemu/iperf3"
	"mesonemu/netstack"
	"mesonemu/platform"
	"mesonemu/rgmiiwire"
)

// UDPWire counts one direction's UDP datagram frames as they crossed the
// wire: how many, how many the wire damaged (the far MAC drops them for a
// bad FCS), their length, and the loss the wire model predicts for that
// length.
type UDPWire struct {
	Frames   uint64 `json:"frames"`
	Damaged  uint64 `json:"damaged"`
	FrameLen int    `json:"frame_len"` // the first data frame's length (no FCS)
	// Predicted is the wire model's loss probability for these frames' own
	// bits (rgmiiwire.FrameLossProbability, averaged over every
	// predictSampleEvery-th intact frame: the datagrams differ only in
	// their headers); RandomPayload the same for random bits of that length.
	Predicted     float64 `json:"predicted_loss"`
	RandomPayload float64 `json:"predicted_loss_random_payload"`

	probSum float64
	probN   int
}

// predictSampleEvery spaces the frames whose exact loss probability is
// computed (O(frame length) each).
const predictSampleEvery = 512

// Expected is the predicted number of damaged frames and its binomial sigma.
func (w UDPWire) Expected() (mean, sigma float64) {
	n := float64(w.Frames)
	return n * w.Predicted, math.Sqrt(n * w.Predicted * (1 - w.Predicted))
}

// HostUDP is what a host's own stack did with UDP datagrams: drops inside
// the board or the PC, apart from the wire's.
type HostUDP struct {
	ReceiveBufferErrors uint64 `json:"udp_receive_buffer_errors"` // socket receive buffer full
	BacklogDrops        uint64 `json:"rx_backlog_drops"`          // netdev_max_backlog full
	UnknownPort         uint64 `json:"udp_unknown_port_errors"`
	Malformed           uint64 `json:"udp_malformed"`
	SendErrors          uint64 `json:"udp_send_errors"`
	PacketsReceived     uint64 `json:"udp_packets_received"`
	PacketsSent         uint64 `json:"udp_packets_sent"`
}

// Iperf3Run is a RunIperf3 run's outcome besides iperf3's own output.
type Iperf3Run struct {
	Code        int     `json:"exit_status"`
	BoardToPC   UDPWire `json:"udp_board_to_pc"`
	PCToBoard   UDPWire `json:"udp_pc_to_board"`
	Board, PC   HostUDP
	ServerDrops *iperf3.UDPDropCounts `json:"server_udp_drops,omitempty"` // the PC server's
}

// udpTap counts UDP frames of length >= dataFrameMin on the wire, per
// direction, from the header as the MAC sent it.
type udpTap struct {
	budget   [2]rgmiiwire.Budget // taken before traffic: the tap runs under the machine lock
	dir      [2]UDPWire          // TX (board -> PC), RX
	lenKnown [2]bool
	due      [2]bool // the next intact frame is a probability sample
}

func (u *udpTap) tap(fr *platform.Frame) {
	h, frame, res, dir := fr.Before, fr.After, fr.Wire, fr.Dir
	if len(frame) < dataFrameMin || !isUDP(h) {
		return
	}
	i := 0
	if dir != platform.TX {
		i = 1
	}
	w := &u.dir[i]
	if w.Frames%predictSampleEvery == 0 {
		u.due[i] = true
	}
	w.Frames++
	if res.Damaged() {
		w.Damaged++ // the far MAC drops it for a bad FCS
		return
	}
	if res.Changed() {
		return // only the preamble was hit: received, but not a clean sample
	}
	if !u.lenKnown[i] {
		w.FrameLen, u.lenKnown[i] = len(frame)-4, true // without the FCS
	}
	if u.due[i] {
		w.probSum += u.budget[i].FrameLossProbability(frame)
		w.probN++
		u.due[i] = false
	}
}

// isUDP reports whether an Ethernet frame holds a UDP datagram over IPv4 or
// IPv6 (no extension headers: the stacks here send none).
func isUDP(h []byte) bool {
	switch {
	case len(h) >= 14+20 && h[12] == 0x08 && h[13] == 0x00:
		return h[23] == 17
	case len(h) >= 14+40 && h[12] == 0x86 && h[13] == 0xdd:
		return h[20] == 17
	}
	return false
}

// finish computes the predictions once the test is over.
func (u *udpTap) finish() (tx, rx UDPWire) {
	for i := range u.dir {
		w := &u.dir[i]
		if w.probN > 0 {
			w.Predicted = w.probSum / float64(w.probN)
		}
		w.RandomPayload = u.budget[i].PredictedLoss(w.FrameLen)
	}
	return u.dir[0], u.dir[1]
}

func (b *Bench) hostUDP(h *netstack.Host) HostUDP {
	st := h.Stack.Stats().UDP
	return HostUDP{
		ReceiveBufferErrors: st.ReceiveBufferErrors.Value(), BacklogDrops: h.EP.Stats().RxBacklogDrops,
		UnknownPort: st.UnknownPortErrors.Value(), Malformed: st.MalformedPacketsReceived.Value(),
		SendErrors: st.PacketSendErrors.Value(), PacketsReceived: st.PacketsReceived.Value(),
		PacketsSent: st.PacketsSent.Value(),
	}
}

// writeUDPCounters prints the datagram counters of a UDP test: the wire's
// losses beside their prediction, and each host's own drops.
func writeUDPCounters(w io.Writer, r *Iperf3Run) {
	fmt.Fprintf(w, "\nmesonemu counters (UDP datagrams on the wire; a damaged frame is dropped by the far MAC):\n")
	for _, d := range []struct {
		name string
		w    UDPWire
	}{{"board -> pc", r.BoardToPC}, {"pc -> board", r.PCToBoard}} {
		if d.w.Frames == 0 {
			continue
		}
		mean, sigma := d.w.Expected()
		fmt.Fprintf(w, "  %s: %d frames of %d B, %d damaged by the wire (%.3f %%); predicted %.3f %% for this payload (%.0f ± %.0f), %.3f %% for random bits\n",
			d.name, d.w.Frames, d.w.FrameLen, d.w.Damaged, 100*float64(d.w.Damaged)/float64(d.w.Frames),
			100*d.w.Predicted, mean, sigma, 100*d.w.RandomPayload)
	}
	for _, h := range []struct {
		name string
		u    HostUDP
	}{{"board", r.Board}, {"pc", r.PC}} {
		fmt.Fprintf(w, "  %s stack: udp sent %d, received %d, receive-buffer drops %d, backlog drops %d, send errors %d\n",
			h.name, h.u.PacketsSent, h.u.PacketsReceived, h.u.ReceiveBufferErrors, h.u.BacklogDrops, h.u.SendErrors)
	}
	if d := r.ServerDrops; d != nil && d.Total() > 0 {
		fmt.Fprintf(w, "  pc iperf3 server: %d datagrams counted for no stream (unknown source %d, outside the test %d, malformed %d)\n",
			d.Total(), d.UnknownSource, d.NotRunning, d.Malformed)
	}
}
