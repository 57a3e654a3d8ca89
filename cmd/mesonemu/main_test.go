package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mesonemu/perfrun"
	"mesonemu/sim"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestCLIRejectsBadInput: every bad input is one line on stderr and exit status 2.
func TestCLIRejectsBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--board", "odroid-x9"}, "valid: mxiii-plus, odroid-c1, odroid-c2"},
		{[]string{"clk", "--tx-delay-ns", "8"}, "--tx-delay-ns 8"},
		{[]string{"clk", "--tx-delay-ns", "-3"}, "--tx-delay-ns -3"},
		{[]string{"--phy-mode", "sgmii", "clk"}, "phy-mode \"sgmii\""},
		{[]string{"--driver", "v5.3"}, "driver \"v5.3\""},
		{[]string{"frobnicate"}, "unknown command \"frobnicate\""},
		{[]string{"clkk"}, "unknown command \"clkk\": did you mean clk?"},
		{[]string{"cmp"}, "unknown command \"cmp\": did you mean compare?"},
		{[]string{"lnktst"}, "unknown command \"lnktst\": did you mean linktest?"},
		{[]string{"--tap", "t0", "--ip6", "198.18.1.2/24", "iperf3", "-s"}, "--ip6 \"198.18.1.2/24\": want an IPv6 address"},
		{[]string{"--ip6", "2001:2::5/64", "iperf3", "-c", "2001:2::1"}, "--ip6: the board's address is chosen only with --tap"},
		{[]string{"--ip", "198.18.1.9/24"}, "--ip does not apply to the main job (run) (it applies to iperf3)"},
		{[]string{"--no-such-flag"}, "unknown flag --no-such-flag"},
		{[]string{"--tx-delay", "4ns"}, "unknown flag --tx-delay: did you mean --tx-delay-ns?"},
		{[]string{"--borad", "odroid-c1"}, "unknown flag --borad: did you mean --board?"},
		{[]string{"run", "--seeed=2"}, "unknown flag --seeed: did you mean --seed?"},
		{[]string{"linktest", "--size", "9000"}, "size 9000"},
		{[]string{"linktest", "--payload", "ones"}, "payload \"ones\""},
		{[]string{"--pcap", "/nonexistent-dir/x.pcapng", "linktest"}, "--pcap: cannot write /nonexistent-dir/x.pcapng"},
		{[]string{"--time", "0s"}, "--time 0s"},
		{[]string{"--time", "10"}, "a duration needs its unit, e.g. 10s or 10ms"},
		{[]string{"--time", "ten"}, "want a duration with its unit, e.g. 10s"},
		{[]string{"compare", "--jobs", "0"}, "--jobs 0"},
		{[]string{"scan", "--skew-from", "0", "--skew-to", "100"}, "skew step 0 ps"},
		{[]string{"--speed", "2500", "clk"}, "speed 2500"},
		{[]string{"--board-ip", "198.18.0.2/24", "--pc-ip", "198.19.0.1/24"}, "one subnet"},
		{[]string{"clk", "regs"}, "unexpected argument \"regs\""},
		{[]string{"--trace", "dma", "clk"}, "--trace \"dma\""},
		{[]string{"--phy-tx-delay", "maybe", "clk"}, "--phy-tx-delay \"maybe\""},
		{[]string{"--kernel", "v4.19", "clk"}, "kernel \"v4.19\": want one of v5.4, v5.5-rc"},
		{[]string{"iperf3", "-c", "198.18.0.1", "--pc-rx-moderation", "-1ms"}, "--pc-rx-moderation -1ms"},
		{[]string{"run", "--ablate"}, "run --ablate: name one mechanism"},
		{[]string{"run", "--ablate=tsq,pc-acks"}, "run --ablate: name one mechanism"},
		{[]string{"run", "--ablate", "tsq"}, "--ablate takes its names after '=': --ablate=tsq"},
		{[]string{"compare", "--ablate=tsq,nagle"}, "ablate \"nagle\": want none or one of tx-coalescing"},
		{[]string{"scan", "--ablate"}, "--ablate does not apply to scan"},
		// Flags that do not apply, and combinations that cannot be honoured.
		{[]string{"--png", "x.png"}, "--png does not apply to the main job (run) (it applies to eye, scan)"},
		{[]string{"compare", "--pcap", "c.pcapng"}, "--pcap does not apply to compare"},
		{[]string{"linktest", "--tap", "t0"}, "--tap does not apply to linktest (it applies to iperf3, wire)"},
		{[]string{"eye", "--kernel", "v5.4"}, "--kernel does not apply to eye"},
		{[]string{"eye", "--rx-watchdog", "reload"}, "--rx-watchdog does not apply to eye"},
		{[]string{"regs", "--kernel", "v5.4"}, "--kernel does not apply to regs"},
		{[]string{"compare", "--rx-watchdog", "often"}, "rx-watchdog \"often\": want first or reload"},
		{[]string{"--rx-watchdog", "sideways"}, "rx-watchdog \"sideways\": want first or reload"},
		{[]string{"--tap", "t0", "compare"}, "--tap does not apply to compare"},
		{[]string{"--tap", "t0", "linktest"}, "--tap does not apply to linktest"},
		{[]string{"--tap", "t0", "scan", "--tcp"}, "--tap does not apply to scan"},
		{[]string{"--tap", "t0"}, "--tap does not apply to the main job (run): the main job runs against the in-process PC"},
		{[]string{"iperf3", "-c", "198.18.0.1", "--frames", "3"}, "--frames does not apply to the iperf3 command"},
		{[]string{"--tap", "nosuchtap9", "iperf3", "-s"}, "ip tuntap add dev nosuchtap9 mode tap"},
		{[]string{"eye", "--direction", "both"}, "--direction \"both\": want tx or rx"},
		{[]string{"eye", "--png", "eye.gif"}, "gif"},
		{[]string{"clk", "--seed", "3"}, "--seed does not apply to clk"},
		{[]string{"clk", "--time", "3s"}, "--time does not apply to clk"},
		{[]string{"scan", "--time", "2s"}, "--time: scan runs iperf3 only with --tcp"},
		{[]string{"scan", "--reverse"}, "--reverse: scan runs iperf3 only with --tcp"},
		{[]string{"scan", "--rx-watchdog", "reload"}, "--rx-watchdog: scan's frame test only sends"},
		{[]string{"eye", "--seed", "2"}, "--seed: eye draws random samples only for the picture"},
		{[]string{"linktest", "--direction", "tx", "--rx-watchdog", "first"}, "--rx-watchdog: --direction tx receives nothing"},
		{[]string{"scan", "--tx-delay-ns", "4"}, "--tx-delay-ns: scan sweeps every MAC and PHY delay"},
		{[]string{"scan", "--frames", "10"}, "--frames does not apply to scan (it applies to linktest)"},
		{[]string{"compare", "--driver", "pre-fix"}, "--driver does not apply to compare"},
		{[]string{"compare", "--reverse"}, "--reverse does not apply to compare"},
		{[]string{"--counters", "--json"}, "--counters with --json"},
		{[]string{"linktest", "--direction", "up"}, "direction"},
		{[]string{"--", "clk"}, "unexpected argument \"clk\""},
		{[]string{"--cpufreq", "schedutil"}, "--cpufreq \"schedutil\": want \"off\" or \"ondemand\""},
		{[]string{"linktest", "--cpufreq", "ondemand"}, "--cpufreq does not apply to linktest"},
		{[]string{"--calibration", "half"}, "--calibration \"half\": want \"fitted\" or \"none\""},
		{[]string{"compare", "--calibration", "none"}, "--calibration does not apply to compare"},
		{[]string{"--pc", "ax88179"}, "--pc \"ax88179\": want one of r8169, e1000e, igb, rtl8153"},
		{[]string{"--pc", "igb", "--pc-rx-moderation", "50us"}, "--pc igb and --pc-rx-moderation: the profile sets the moderation"},
		{[]string{"--tap", "t0", "iperf3", "-s", "--pc", "igb"}, "--pc does not apply with --tap"},
		{[]string{"--tcp", "scan"}, "--tcp is a flag of scan: give it after the command word"},
		{[]string{"-json", "clk"}, "-json: a long flag takes two dashes: --json"},
		{[]string{"clk", "--version=maybe"}, "--version"},
		{[]string{"nosuch"}, "unknown command \"nosuch\""},
		{[]string{"cmp"}, "did you mean compare?"},
		// wire (the two-TAP bridge): refused before anything is opened or booted.
		{[]string{"wire"}, "wire needs the board-side TAP"},
		{[]string{"wire", "--board-tap", "tb9"}, "wire needs the PC-side TAP"},
		{[]string{"wire", "--board-tap", "tb9", "--tap", "tb9"}, "it is both the board-side and the PC-side TAP"},
		{[]string{"wire", "--board-tap", "nosuchtap8", "--tap", "nosuchtap9"}, "ip tuntap add dev nosuchtap8 mode tap"},
		{[]string{"wire", "--board-tap", "tb9", "--board-netns", "nosuchns9", "--tap", "tp9"}, "network namespace /var/run/netns/nosuchns9 does not exist"},
		{[]string{"wire", "--board-tap", "tb9", "--tap", "tp9", "-c", "198.18.0.1"}, "unknown flag -c"},
		{[]string{"wire", "--board-tap", "tb9", "--tap", "tp9", "--", "-c", "198.18.0.1"}, "unexpected argument \"-c\""},
		{[]string{"wire", "--board-tap", "tb9", "--tap", "tp9", "--cc", "reno"}, "--cc does not apply to wire"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestClkJSONShowsWhatTheClockFrameworkChose checks the expected rates (docs/reference/meson8b-ethernet.md §9.1) through
// the command line, flags before and after the command.
func TestClkJSONShowsWhatTheClockFrameworkChose(t *testing.T) {
	cases := []struct {
		args             []string
		mpll2, txHz, div uint64
		selName          string
		selHz            uint64
		delayPs          float64
	}{
		{[]string{"clk", "--board", "odroid-c1", "--driver", "pre-fix", "--json", "--tx-delay-ns", "4"}, 249999701, 124999850, 1, "c9410000.ethernet#m250_sel", 249999701, 8000},
		{[]string{"--driver", "pre-fix", "--tx-delay-ns", "2", "--json", "clk"}, 249999701, 124999850, 1, "", 0, 4000},
		{[]string{"--json", "clk", "--driver", "fixed"}, 499996410, 124999102, 2, "", 0, 2000},
		{[]string{"--json", "clk", "--driver", "fixed", "--tx-delay-ns", "4"}, 499996410, 124999102, 2, "", 0, 4000},
		{[]string{"--json", "clk", "--board", "odroid-c2"}, 0, 125000000, 4, "c9410000.ethernet#m250_sel", 1000000000, 2000},
		{[]string{"--json", "clk", "--phy-mode", "rgmii-id"}, 499996410, 124999102, 2, "", 0, 0},
		{[]string{"--json", "clk", "--phy-mode", "rgmii-txid", "--driver", "pre-fix"}, 249999701, 124999850, 1, "", 0, 0},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var d struct {
			Clocks []struct {
				Name   string `json:"name"`
				RateHz uint64 `json:"rate_hz"`
				Parent string `json:"parent"`
			} `json:"clocks"`
			PRGEth0     map[string]uint64 `json:"prg_eth0"`
			EffectiveTX float64           `json:"effective_tx_delay_ps"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		rates := map[string]uint64{}
		for _, k := range d.Clocks {
			rates[k.Name] = k.RateHz
		}
		if c.mpll2 != 0 && rates["mpll2"] != c.mpll2 {
			t.Errorf("%v: mpll2 %d, want %d", c.args, rates["mpll2"], c.mpll2)
		}
		if got := rates["c9410000.ethernet#rgmii_tx_en"]; got != c.txHz {
			t.Errorf("%v: RGMII TX %d Hz, want %d", c.args, got, c.txHz)
		}
		if d.PRGEth0["m250_div"] != c.div {
			t.Errorf("%v: m250_div %d, want %d", c.args, d.PRGEth0["m250_div"], c.div)
		}
		if c.selName != "" && rates[c.selName] != c.selHz {
			t.Errorf("%v: %s %d, want %d", c.args, c.selName, rates[c.selName], c.selHz)
		}
		if d.EffectiveTX < c.delayPs-0.5 || d.EffectiveTX > c.delayPs+0.5 {
			t.Errorf("%v: effective TX delay %.1f ps, want %.0f", c.args, d.EffectiveTX, c.delayPs)
		}
	}
}

// TestTraceShowsGuestWrites: the glue driver's final PRG_ETH0 write appears in
// the trace and in `regs`.
func TestTraceShowsGuestWrites(t *testing.T) {
	code, out, errs := runCLI("regs", "--trace", "regs", "--driver", "pre-fix", "--tx-delay-ns", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "W 0xc1108140 prg_eth0.PRG_ETH0 = 0x000074c1") {
		t.Errorf("trace lacks the final PRG_ETH0 write:\n%s", errs)
	}
	if !strings.Contains(errs, "W 0xc11042a0 hhi.HHI_MPLL_CNTL9") || !strings.Contains(errs, "R 0xc9411020") && !strings.Contains(errs, "dwmac") {
		t.Errorf("trace lacks HHI or DWMAC accesses:\n%.2000s", errs)
	}
	for _, want := range []string{"PRG_ETH0 = 0x000074c1", "m250_div                 RW  = 1", "txdly                    RW  = 2", "HHI_MPLL_CNTL9 = 0x000acccd"} {
		if !strings.Contains(out, want) {
			t.Errorf("regs output lacks %q:\n%s", want, out)
		}
	}
}

// TestHelpListsTheCommandsOwnFlags: each command's help lists its flags and
// no other's; help, version and completion are commands.
func TestHelpListsTheCommandsOwnFlags(t *testing.T) {
	cases := []struct {
		args          []string
		want, notWant []string
	}{
		{[]string{"--help"}, []string{"linktest", "--tx-delay-ns", "--counters", "completion", "version"}, []string{"--skew-from", "--frames int"}},
		{[]string{"help"}, []string{"Available Commands", "--time duration"}, nil},
		{[]string{"scan", "--help"}, []string{"--skew-from", "--tcp", "--jobs"}, []string{"--frames", "--pcap", "--tap"}},
		{[]string{"--help", "scan"}, []string{"--skew-from"}, []string{"--frames"}},
		{[]string{"help", "scan"}, []string{"--skew-from"}, []string{"--frames"}},
		{[]string{"linktest", "--help"}, []string{"--frames", "--size", "--direction string      tx, rx or both (default \"both\")"}, []string{"--skew-from", "--time"}},
		{[]string{"clk", "-h"}, []string{"--driver", "--json"}, []string{"--time", "--seed", "--png"}},
		{[]string{"compare", "--help"}, []string{"--seeds", "--ablate", "--time duration"}, []string{"--driver", "--pcap", "--reverse"}},
		{[]string{"eye", "--help"}, []string{"--direction string", "(default \"tx\")", "--png"}, []string{"--frames"}},
		{[]string{"iperf3", "--help"}, []string{"--tap", "--driver", "--counters", "mesonemu iperf3 -h"}, []string{"--time", "--reverse", "--png"}},
		{[]string{"completion", "bash"}, []string{"bash completion", "__start_mesonemu"}, nil},
		{[]string{"completion", "zsh"}, []string{"#compdef mesonemu"}, nil},
		{[]string{"completion", "fish"}, []string{"complete -c mesonemu"}, nil},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(out, w) {
				t.Errorf("%v: output has %q, a flag of another command", c.args, w)
			}
		}
	}
}

// TestCompletionSuggestsFlagsOfTheCommand: shell completion asks the binary,
// and it answers with the command's own flags.
func TestCompletionSuggestsFlagsOfTheCommand(t *testing.T) {
	code, out, _ := runCLI("__complete", "scan", "--skew-")
	if code != 0 || !strings.Contains(out, "--skew-from") || strings.Contains(out, "--frames") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

// TestPcapOfLinktestMatchesTshark: the CRC errors the far end counted are the
// bad-FCS frames tshark finds in the capture.
func TestPcapOfLinktestMatchesTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tshark is required in CI")
		}
		t.Skip("tshark not installed (apt-get install tshark)")
	}
	path := filepath.Join(t.TempDir(), "wire.pcapng")
	code, out, errs := runCLI("linktest", "--driver", "pre-fix", "--tx-delay-ns", "4", "--frames", "5000", "--direction", "tx", "--json", "--pcap", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		TX struct {
			CRCErrors uint64 `json:"crc_errors"`
		} `json:"tx"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(tshark, "-r", path, "-o", "eth.check_fcs:TRUE", "-Y", `eth.fcs.status == "Bad"`, "-T", "fields", "-e", "frame.number").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	if n := uint64(len(strings.Fields(string(got)))); n != r.TX.CRCErrors || n == 0 {
		t.Fatalf("tshark finds %d bad-FCS frames, the far end counted %d", n, r.TX.CRCErrors)
	}
}

// TestCompareChildRunMatchesInProcess: compare's TCP run in a child process of
// one thread reports exactly what the same run reports in this process (with
// the RX watchdog's other reading, which must cross to the child too).
func TestCompareChildRunMatchesInProcess(t *testing.T) {
	d := uint32(4)
	o := perfrun.Options{Sim: sim.Options{Driver: "pre-fix", TxDelayNs: &d, Seed: 5, RXWatchdog: sim.RXWatchdogReload}, Duration: time.Second}
	child := childRun(func(ctx context.Context, args []string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0])
		cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\x1f"))
		return cmd
	})
	got, err := child(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := perfrun.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got.ThroughputBps != want.ThroughputBps || got.Retransmits != want.Retransmits || got.MeasuredLoss != want.MeasuredLoss ||
		got.PathSRTTMicros != want.PathSRTTMicros || got.ClockChain != want.ClockChain || got.EffectiveTX != want.EffectiveTX {
		t.Errorf("child run: %.0f bit/s, %d retransmits, loss %g, srtt %g us, %q, %g ps\nin process: %.0f bit/s, %d retransmits, loss %g, srtt %g us, %q, %g ps",
			got.ThroughputBps, got.Retransmits, got.MeasuredLoss, got.PathSRTTMicros, got.ClockChain, got.EffectiveTX,
			want.ThroughputBps, want.Retransmits, want.MeasuredLoss, want.PathSRTTMicros, want.ClockChain, want.EffectiveTX)
	}
	if got.Retransmits == 0 {
		t.Error("a pre-fix run at 4 ns without retransmits: the child ran another configuration")
	}
	// An ablation crosses to the child too: without the board's CPU cost the
	// fixed driver, which the CPU limits (a loss-limited pre-fix run need not
	// gain), goes faster.
	fixed := perfrun.Options{Sim: sim.Options{Driver: "fixed", Seed: 5}, Duration: time.Second}
	asIs, err := child(context.Background(), fixed)
	if err != nil {
		t.Fatal(err)
	}
	fixed.Ablate = "cpu-cost"
	fast, err := child(context.Background(), fixed)
	if err != nil {
		t.Fatal(err)
	}
	if fast.Ablation != "cpu-cost" || fast.ThroughputBps <= asIs.ThroughputBps {
		t.Errorf("child run with --ablate=cpu-cost: ablation %q, %.0f bit/s (as it is: %.0f)", fast.Ablation, fast.ThroughputBps, asIs.ThroughputBps)
	}
	o.Reverse = true
	if _, err := child(context.Background(), o); err == nil {
		t.Error("a child run took an option it cannot pass on (--reverse)")
	}
}

// TestVersion: --version prints one line naming the build and exits 0,
// wherever the flag stands.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"clk", "--version"}} {
		code, out, errOut := runCLI(args...)
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != 0 || errOut != "" || len(lines) != 1 || !strings.HasPrefix(out, "mesonemu ") ||
			!strings.Contains(out, "revision ") || !strings.Contains(out, "go1.") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line \"mesonemu VERSION, revision REV, goX\"", args, code, out, errOut)
		}
	}
}
