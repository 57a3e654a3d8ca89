#!/usr/bin/env bash
# wire-anchor.sh measures Linux's own TCP over the emulated board (`mesonemu wire`)
# beside the in-process board, for the table in docs/wire.md and the Linux anchor
# of docs/tcp.md. As root, with iperf3 3.12 and python3; it makes two network
# namespaces (198.18.3.0/24) and removes them at the end. Real time: keep the
# machine otherwise quiet (the "lag" column says when the host fell behind).
#
# Usage: docs/wire-anchor.sh [SECONDS]      (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-10}
bin=$(mktemp -d)
trap 'ip netns del mw-board 2>/dev/null || true; ip netns del mw-pc 2>/dev/null || true; rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/mesonemu" ./cmd/mesonemu

ip netns add mw-board
ip netns add mw-pc
ip -n mw-board tuntap add dev tapb mode tap
ip -n mw-pc tuntap add dev tapp mode tap
ip -n mw-board addr add 198.18.3.2/24 dev tapb
ip -n mw-pc addr add 198.18.3.1/24 dev tapp
ip -n mw-board link set tapb txqueuelen 10000 up
ip -n mw-pc link set tapp txqueuelen 10000 up

echo "| configuration | board's stack | Mbit/s | retransmits | srtt (ms) | rx_crc_errors / tx_frames | K | lag |"
echo "|---|---|---|---|---|---|---|---|"
for cfg in "pre-fix 4" "fixed 2"; do
	set -- $cfg
	drv=$1 txd=$2
	"$bin/mesonemu" --driver "$drv" --tx-delay-ns "$txd" --json >"$bin/inproc.json"
	"$bin/mesonemu" wire --board-tap tapb --board-netns mw-board --tap tapp --netns mw-pc \
		--driver "$drv" --tx-delay-ns "$txd" --json >"$bin/wire.json" 2>"$bin/wire.err" &
	wire=$!
	sleep 3 # boot and autonegotiation (2 s of link-up)
	ip netns exec mw-pc iperf3 -s -1 -B 198.18.3.1 >/dev/null &
	sleep 0.5
	ip netns exec mw-board iperf3 -c 198.18.3.1 -t "$t" -J -C cubic >"$bin/iperf3.json"
	kill -INT "$wire"
	wait "$wire" || true
	python3 - "$drv" "$txd" "$bin/inproc.json" "$bin/wire.json" "$bin/iperf3.json" <<'EOF'
import json, math, sys
drv, txd, inproc, wire, ip = sys.argv[1:]
m = json.load(open(inproc))["mesonemu"]
loss = m["measured_frame_loss"]
k = m["throughput_bps"] / 1e6 * m["path_srtt_us"] / 1000 * math.sqrt(loss)
ks = f"{k:.1f}" if loss else "-"
print(f"| {drv}, {txd} ns | in-process (gVisor) | {m['throughput_bps']/1e6:.1f} | {m['retransmits']} | "
      f"{m['path_srtt_us']/1000:.3f} | {loss*100:.3f} % | {ks} | none (virtual time) |")
w = json.load(open(wire))
c = {(x["where"], x["name"]): x["value"] for x in w["counters"]}
crc = next(v for (where, name), v in c.items() if name == "rx_crc_errors" and where.startswith("pc"))
tx = c[("rgmii wire", "tx_frames")]
r = json.load(open(ip))["end"]
mbps = r["sum_received"]["bits_per_second"] / 1e6
retr = r["sum_sent"]["retransmits"]
snd = r["streams"][0]["sender"]
srtt = snd["mean_rtt"] / 1000
ks = f"{mbps * srtt * math.sqrt(crc / tx):.1f}" if tx and crc else "-"
print(f"| {drv}, {txd} ns | Linux via `wire` | {mbps:.1f} | {retr} | {srtt:.3f} ({snd['min_rtt']/1000:.3f}) | "
      f"{crc} / {tx} = {100*crc/tx:.3f} % | {ks} | {w['clock_lag_ns']/1e6:.0f} ms |")
EOF
done
