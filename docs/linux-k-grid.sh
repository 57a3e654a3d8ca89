#!/usr/bin/env bash
# Linux's own answer to frame loss, the reference for the board's TCP (docs/tcp.md):
# the host's TCP and the real iperf3 3.12 over tools/lossyrelay, a user-space lossy
# link between two TAPs in namespaces it makes and removes (198.18.9.0/24).
# Run as root from the repository: docs/linux-k-grid.sh   (~3.5 min; T=seconds per run)
# Needs iperf3, iproute2 (ip, nstat), python3 and go.
set -u
cd "$(dirname "$0")/.." || exit 2
for c in iperf3 ip nstat python3 go; do
  command -v $c >/dev/null || { echo "linux-k-grid: $c is missing"; exit 2; }
done
tmp=$(mktemp -d)
go build -o "$tmp/lossyrelay" ./tools/lossyrelay || { echo "linux-k-grid: build failed"; exit 2; }
A=lkgA$$; B=lkgB$$; relay=; server=
stop() {
  [ -n "$server" ] && kill "$server" 2>/dev/null; [ -n "$server" ] && wait "$server" 2>/dev/null
  [ -n "$relay" ] && kill "$relay" 2>/dev/null; [ -n "$relay" ] && wait "$relay" 2>/dev/null
  server=; relay=
}
trap 'stop; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# measure LOSS DELAY CC: one 10 s run; prints throughput, retransmits, srtt, K and
# Linux's recovery counters (timeouts, loss probes, SACK recoveries).
measure() {
  : >"$tmp/relay.log"
  "$tmp/lossyrelay" -a $A -b $B -loss "$1" -delay "$2" >"$tmp/relay.log" 2>&1 &
  relay=$!
  for _ in $(seq 100); do grep -q '^ready' "$tmp/relay.log" && break; kill -0 $relay 2>/dev/null || break; sleep 0.1; done
  grep -q '^ready' "$tmp/relay.log" || { cat "$tmp/relay.log"; stop; return 1; }
  ip netns exec $B iperf3 -s -1 >/dev/null 2>&1 &
  server=$!
  sleep 0.5   # the server's listening socket; a failed connect shows below
  ip netns exec $A nstat -n >/dev/null 2>&1
  ip netns exec $A iperf3 -c 198.18.9.1 -t "${T:-10}" -C "$3" -J >"$tmp/out.json" 2>/dev/null
  ip netns exec $A nstat 2>/dev/null | awk '/TcpExtTCPTimeouts|TcpExtTCPLossProbes |TcpExtTCPLossProbeRecovery|TcpExtTCPSackRecovery /{printf "%s=%s ", $1, $2} END{print ""}' >"$tmp/nstat.txt"
  stop
  python3 - "$tmp/out.json" "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1])); s = d["end"]["sum_sent"]; st = d["end"]["streams"][0]["sender"]
except (ValueError, KeyError, IndexError) as e:
    print("no result:", e); sys.exit(0)
mbps, rtt, loss = s["bits_per_second"] / 1e6, st.get("mean_rtt", 0), float(sys.argv[2])
print("loss %s: %.0f Mbit/s, %d retransmits, srtt %d us, K %.1f" % (
    sys.argv[2], mbps, s["retransmits"], rtt, mbps * rtt / 1e3 * loss ** 0.5))
PY
  cat "$tmp/nstat.txt" "$tmp/relay.log" | grep -v '^ready'
}

for loss in 0.001 0.00388 0.01; do
  for delay in 0us 150us 350us 650us; do
    echo "== LOSS=$loss DELAY=$delay CC=cubic"
    measure $loss $delay cubic
  done
done
for delay in 0us 350us 650us; do
  echo "== LOSS=0.00388 DELAY=$delay CC=reno"
  measure 0.00388 $delay reno
done
