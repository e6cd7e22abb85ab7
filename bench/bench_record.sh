#!/usr/bin/env bash
# bench_record.sh: PC samples per second of `ramplace record` against QEMU's gdbstub on the
# bundled Cortex-M3 firmware, and the target's slowdown: its run time alone, under
# `record --rate 1000` and under `record --rate 0` (as fast as possible), as ratios.
#   bench/bench_record.sh [BUILD_DIR]        (default build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
. "$root/scripts/qemu-lib.sh"
RAMPLACE=$build/ramplace
work=$(mktemp -d)
qemu_pid=""
trap 'stop_pid "$qemu_pid"; rm -rf "$work"' EXIT
make -s -C "$root/examples/qemu-cortex-m3" BUILD="$work/fw" >/dev/null
elf=$work/fw/fw.elf

start_qemu() { # extra args...
	qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native "$@" -kernel "$elf" >/dev/null 2>&1 &
	qemu_pid=$!
}

now() { date +%s.%N; }

t0=$(now)
start_qemu
wait_pid "$qemu_pid" 300
alone=$(echo "$(now) - $t0" | bc -l)

sampled() { # RATE -> prints "elapsed samples_per_second"
	local port
	port=$(free_port)
	start_qemu -gdb "tcp:127.0.0.1:$port" -S
	wait_port "$port" 10
	local t1
	t1=$(now)
	"$RAMPLACE" record --remote "127.0.0.1:$port" --rate "$1" --quiet "$work/p$1.db" "$elf" >"$work/r$1.txt"
	wait_pid "$qemu_pid" 300
	local elapsed
	elapsed=$(echo "$(now) - $t1" | bc -l)
	local rate
	rate=$(grep -Eo '\(([0-9]+) samples/s\)' "$work/r$1.txt" | grep -Eo '[0-9]+')
	echo "$elapsed $rate"
}

read -r t1000 r1000 < <(sampled 1000)
read -r t0s r0 < <(sampled 0)
printf 'firmware alone in QEMU:          %6.2f s\n' "$alone"
printf 'record --rate 1000: %6d samples/s, target %6.2f s = %.2fx its time alone (goal <= 1.5x)\n' "$r1000" "$t1000" "$(echo "$t1000 / $alone" | bc -l)"
printf 'record --rate 0:    %6d samples/s, target %6.2f s = %.2fx its time alone (goal >= 4000 samples/s)\n' "$r0" "$t0s" "$(echo "$t0s / $alone" | bc -l)"
