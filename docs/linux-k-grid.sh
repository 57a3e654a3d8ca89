#!/usr/bin/env bash
# Linux's own answer to frame loss, the reference for the board's TCP (docs/tcp.md):
# the host's TCP and the real iperf3 over lossy-relay, a user-space lossy link between
# two TAPs in namespaces it makes and removes. lossy-relay is a measuring instrument
# kept beside this project, not in it; RELAY names its folder. Needs root.
# Usage: sudo RELAY=../shared/tools/lossy-relay docs/linux-k-grid.sh   (~3.5 min)
relay=${RELAY:-$(dirname "$0")/../../shared/tools/lossy-relay}
cd "$relay" || { echo "linux-k-grid: no lossy-relay at $relay (set RELAY)"; exit 2; }
for loss in 0.001 0.00388 0.01; do
  for delay in 0us 150us 350us 650us; do
    echo "== LOSS=$loss DELAY=$delay CC=cubic"
    LOSS=$loss DELAY=$delay T=10 CC=cubic ./measure
  done
done
for delay in 0us 350us 650us; do
  echo "== LOSS=0.00388 DELAY=$delay CC=reno"
  LOSS=0.00388 DELAY=$delay T=10 CC=reno ./measure
done
