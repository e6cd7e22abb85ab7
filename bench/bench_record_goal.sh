#!/usr/bin/env bash
# bench_record_goal.sh: issue 16's goal, repeated: RUNS recordings of DURATION seconds of
# bench/fw/phasevm (seven phases in turn, eight passes, about 17 s) by `ramplace record` at its
# default settings through QEMU's gdbstub, each against a fresh QEMU, each placement valued
# under the whole run's exact counts (the QEMU plugin's) at 1, 2, 4 and 8 KiB by bench_share.
# Goal: >= 95 % of the exact profile's optimum at every budget. Prints per run the samples, the
# total variation distance from exact counts, the shares, record's slowdown, its stability verdict
# and the load average (busy cores cost samples: docs/sampling.md has figures with one and both
# cores kept busy). bench_methods.sh shows one such run beside the other collection methods.
#   bench/bench_record_goal.sh [BUILD_DIR]     env: RUNS (3), DURATION (10)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
. "$root/bench/bench-lib.sh"
runs=${RUNS:-3}
duration=${DURATION:-10}
d=$work/pv
make -s -C "$root/bench/fw/phasevm" BUILD="$d" >/dev/null
exact_counts "$d"
echo "bench/fw/phasevm: $runs recordings of $duration s at default settings; share of the exact optimum (goal >= 95 %)"
printf '%4s %8s %7s %8s %8s %8s %8s %9s %5s\n' run samples tvd 1K 2K 4K 8K slowdown load
for i in $(seq 1 "$runs"); do
	port=$(free_port)
	qemu -gdb "tcp:127.0.0.1:$port" -S -kernel "$d/fw.elf" >/dev/null 2>&1 &
	qemu_pid=$!
	wait_port "$port" 10
	"$RAMPLACE" record --remote "127.0.0.1:$port" --duration "$duration" "$d/h$i.db" "$d/fw.elf" >"$d/h$i.out" 2>&1 || true
	stop_pid "$qemu_pid"
	qemu_pid=""
	samples=$(sed -n 's/^recorded \([0-9]*\) samples.*/\1/p' "$d/h$i.out")
	tvd=$("$TVD" "$d/exact.db" "$d/h$i.db" 0 | awk '$1 == "tvd" { print $2 }')
	shares=$("$SHARE" "$d/exact.db" "$d/h$i.db" "$d/fw.elf" "$d/fw.map" $budgets | awk '{ printf " %7.2f%%", $3 }')
	slow=$(sed -n 's/^slowdown: \([0-9.]*\) %.*/\1 %/p' "$d/h$i.out")
	printf '%4s %8s %7s%s %9s %5s\n' "$i" "$samples" "$tvd" "$shares" "$slow" "$(cut -d' ' -f1 /proc/loadavg)"
	grep '^stability: ' "$d/h$i.out" | sed 's/^/     /'
done
