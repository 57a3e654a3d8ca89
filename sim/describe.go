package sim

import (
	"fmt"
	"strings"

	"mesonemu/emu"
	"mesonemu/linux/clk"
	"mesonemu/linux/stmmac"
	"mesonemu/reg"
	"mesonemu/soc"
	dwmac "mesonemu/stmmac"
)

// Description is what `mesonemu clk`, `mesonemu regs` and the main job's header
// report about a booted board: the clocks the guest chose, the registers they
// left, and the delays and losses the hardware makes of them.
type Description struct {
	Board     string `json:"board"`
	SoC       string `json:"soc"`
	Driver    string `json:"driver"`
	PhyMode   string `json:"phy_mode"`
	TxDelayNs uint32 `json:"tx_delay_ns"`
	// TxDelayFromDT is false when the DT lacks the property and the glue's
	// default (2 ns) applies.
	TxDelayFromDT bool            `json:"tx_delay_from_dt"`
	Clocks        []clk.ClockInfo `json:"clocks"`
	ClockChain    string          `json:"clock_chain"`
	PRGEth0       RegisterJSON    `json:"prg_eth0"`
	MPLLCntl9     RegisterJSON    `json:"hhi_mpll_cntl9"`
	TXClockHz     float64         `json:"tx_clock_hz"`
	EffectiveTX   float64         `json:"effective_tx_delay_ps"`
	EffectiveWhy  string          `json:"effective_tx_delay_why"`
	PHYTXDelay    bool            `json:"phy_tx_delay"`
	PHYRXDelay    bool            `json:"phy_rx_delay"`
	EffectiveRX   float64         `json:"effective_rx_delay_ps"`
	PredictedTX   float64         `json:"predicted_frame_loss_tx"`
	PredictedRX   float64         `json:"predicted_frame_loss_rx"`
	Link          string          `json:"link"`
	// Stmmac is the ring driver's tuning: the Linux tree it follows and the
	// values that shape TX completion and the RX interrupt.
	Stmmac StmmacTuning `json:"stmmac"`
	// PCRxModerationUs is the PC NIC's interrupt moderation (0: none).
	PCRxModerationUs float64 `json:"pc_rx_moderation_us"`
	// PCProfile is the PC NIC's profile (farend.PCProfiles; "": moderation
	// set by hand).
	PCProfile string `json:"pc_profile,omitempty"`
	// WireError says why a wire direction has no valid timing (empty: none).
	WireError string `json:"wire_error,omitempty"`
	regs      map[string]string
}

// StmmacTuning is what the stmmac driver runs with (stmmac.Trees).
type StmmacTuning struct {
	Tree          string  `json:"tree"`
	Source        string  `json:"source"` // where the tree's numbers come from
	TxCoalFrames  int     `json:"tx_coal_frames"`
	TxCoalTimerUs int     `json:"tx_coal_timer_us"`
	TimerPerFrame bool    `json:"tx_timer_armed_per_frame"`
	HZ            int     `json:"hz"`
	RIWT          uint32  `json:"riwt"`
	RIWTMicros    float64 `json:"riwt_us"`
	// RXWatchdog is the silicon's reading of the watchdog (Options.RXWatchdog):
	// "first" or "reload"; CPUPerPacketNs the board CPU's cost fitted under it.
	RXWatchdog     string  `json:"rx_watchdog"`
	CPUPerPacketNs float64 `json:"cpu_per_packet_ns"`
}

// RegisterJSON is a register's raw value and every field by its lower-case name.
type RegisterJSON map[string]uint64

func registerJSON(r *reg.Register, v uint32) RegisterJSON {
	out := RegisterJSON{"raw": uint64(v)}
	for _, f := range r.Decode(v) {
		out[strings.ToLower(f.Name)] = uint64(f.Value)
	}
	return out
}

// Describe reads the board's state. Frame loss is for 1514-byte frames.
func (s *Sim) Describe() (Description, error) {
	d := Description{Board: s.Board.Name, SoC: s.Board.SoC.String(), Driver: s.Opts.Driver, PhyMode: s.DT.PhyMode,
		TxDelayNs: 2, regs: map[string]string{}}
	if d.Driver == "" {
		d.Driver = "fixed"
	}
	if s.DT.TxDelayNs != nil {
		d.TxDelayNs, d.TxDelayFromDT = *s.DT.TxDelayNs, true
	}
	d.Clocks = s.Guest.Clocks.List()
	chain, err := s.Guest.Glue.Chain()
	if err != nil {
		return d, fmt.Errorf("describe: %w", err)
	}
	d.ClockChain = chain
	hw := s.hw
	st := hw.State()
	for _, r := range []struct {
		name string
		rv   soc.RegValue
		j    *RegisterJSON
	}{{"PRG_ETH0", st.PRGEth0, &d.PRGEth0}, {"HHI_MPLL_CNTL9", st.MPLLCntl9, &d.MPLLCntl9}} {
		if r.rv.Reg == nil {
			return d, fmt.Errorf("describe: no register %s", r.name)
		}
		*r.j = registerJSON(r.rv.Reg, r.rv.Value)
		d.regs[r.name] = r.rv.Format()
	}
	d.TXClockHz = st.TXClock.TXHz
	d.EffectiveTX, d.EffectiveWhy = st.MACTXDelay.Ps, st.MACTXDelay.Why
	d.PHYTXDelay, d.PHYRXDelay = st.PHYTXDelay, st.PHYRXDelay
	d.EffectiveRX = st.MACRXDelay.Ps
	d.PredictedTX, d.PredictedRX = hw.PredictedLoss(1514)
	d.Link = s.Guest.PHY.Status()
	d.PCRxModerationUs = float64(s.Opts.FarEnd.RxDelay) / float64(emu.Microsecond)
	d.PCProfile = s.Opts.FarEnd.Profile
	tree, _ := stmmac.LookupTree(s.Opts.Kernel)
	cfg := s.Guest.MAC.Config()
	d.Stmmac = StmmacTuning{Tree: tree.Name, Source: tree.Why, TxCoalFrames: cfg.TxCoalFrames, TxCoalTimerUs: cfg.TxCoalTimerUs,
		TimerPerFrame: cfg.AlwaysArmTxTimer, HZ: cfg.HZ, RIWT: cfg.RIWT,
		// RIWT counts 256 cycles of the CSR clock (clk81).
		RIWTMicros: float64(cfg.RIWT) * 256 / dwmac.DefaultCSRClockHz * 1e6,
		RXWatchdog: RXWatchdogFirst, CPUPerPacketNs: s.Board.CPU.PerPacketNs}
	if s.Board.DWMAC.RIWTRestart {
		d.Stmmac.RXWatchdog = RXWatchdogReload
	}
	if err := hw.WireConfigErr(); err != nil {
		d.WireError = err.Error()
	}
	return d, nil
}

// RegisterText is the decoded dump of one register ("PRG_ETH0", "HHI_MPLL_CNTL9").
func (d Description) RegisterText(name string) string { return d.regs[name] }
