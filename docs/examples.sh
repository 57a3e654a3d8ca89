#!/usr/bin/env bash
# examples.sh re-runs the examples of README.md and docs/*.md and writes their
# real output back into the pages.
#
# An example is a fenced block right after an "<!-- example -->" line: every
# line of it that starts with "$ " is a command, run by bash in the
# repository's root with this tree's mesonemu first in PATH (a `sudo` prefix is
# dropped when running as root); the block becomes each command followed by
# what it printed (stdout and stderr, as a terminal shows them). Anything else
# in the block is replaced. "<!-- example: tap -->" marks the TAP lab's
# examples: they run only as root with /dev/net/tun, ip, iperf3 and tshark, in the
# network namespace mesonemu-lab that docs/tap.md sets up (this script sets it
# up the same way and removes it at the end); otherwise they are left as they
# are and listed as skipped.
#
# Usage: docs/examples.sh [FILE.md ...]      (default: README.md docs/*.md)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/mesonemu" ./cmd/mesonemu
export PATH="$bin:$PATH"

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	files=(README.md)
	for f in docs/*.md; do
		case "$f" in docs/wire.md | docs/tcp.md) ;; *) files+=("$f") ;; esac
	done
fi

tap_ok=no
if [ "$(id -u)" = 0 ] && [ -e /dev/net/tun ] && command -v ip >/dev/null && command -v iperf3 >/dev/null && command -v tshark >/dev/null; then
	tap_ok=yes
fi
lab_up=no
lab() {
	# The lab of docs/tap.md: a namespace, a TAP in it with the host's address.
	[ "$lab_up" = yes ] && return
	if ip netns list | grep -qw mesonemu-lab; then
		echo "examples.sh: the namespace mesonemu-lab exists already (yours?); remove it first" >&2
		exit 1
	fi
	ip netns add mesonemu-lab
	ip -n mesonemu-lab link set lo up
	ip -n mesonemu-lab tuntap add dev mesonemu0 mode tap
	ip -n mesonemu-lab addr add 198.18.1.1/24 dev mesonemu0
	ip -n mesonemu-lab link set mesonemu0 up
	lab_up=yes
}
cleanup_lab() {
	if [ "$lab_up" = yes ]; then
		ip netns pids mesonemu-lab 2>/dev/null | xargs -r kill 2>/dev/null || true
		sleep 0.5
		ip netns del mesonemu-lab
	fi
	rm -rf "$bin"
}
trap cleanup_lab EXIT

run_example() { # one command line, as the page shows it
	local cmd=$1
	[ "$(id -u)" = 0 ] && cmd=${cmd#sudo }
	(cd "$root" && bash -c "sudo() { if [ \"\$(id -u)\" = 0 ]; then \"\$@\"; else command sudo \"\$@\"; fi; }; $cmd" 2>&1) || true
}

ran=0
skipped=0
for f in "${files[@]}"; do
	out=$(mktemp)
	state=text # text, marked, block
	group=""
	cmds=()
	while IFS= read -r line || [ -n "$line" ]; do
		case $state in
		text)
			printf '%s\n' "$line" >>"$out"
			if [[ $line =~ ^\<!--\ example(:\ ([a-z]+))?\ --\>$ ]]; then
				group=${BASH_REMATCH[2]}
				state=marked
			fi
			;;
		marked)
			printf '%s\n' "$line" >>"$out"
			if [[ $line == '```'* ]]; then
				state=block
				cmds=()
				old=()
			else
				state=text
			fi
			;;
		block)
			if [[ $line == '```' ]]; then
				if [ "$group" = tap ] && [ "$tap_ok" != yes ]; then
					printf '%s\n' "${old[@]}" >>"$out"
					skipped=$((skipped + 1))
					echo "skipped (needs root, /dev/net/tun, ip, iperf3, tshark): $f: ${cmds[0]:-}" >&2
				else
					[ "$group" = tap ] && lab
					for c in "${cmds[@]}"; do
						echo "running: $c" >&2
						printf '$ %s\n' "$c" >>"$out"
						run_example "$c" | sed -e 's/[[:space:]]*$//' >>"$out"
						ran=$((ran + 1))
					done
				fi
				printf '%s\n' "$line" >>"$out"
				state=text
			else
				old+=("$line")
				[[ $line == '$ '* ]] && cmds+=("${line#\$ }")
			fi
			;;
		esac
	done <"$f"
	mv "$out" "$f"
done
echo "examples.sh: $ran commands run, $skipped TAP examples skipped" >&2
