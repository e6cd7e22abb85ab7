#!/usr/bin/env bash
# bench_methods.sh: how far each collection method's per-function shares are from exact counts
# of the same workload, as total variation distance (bench_tvd), on the Cortex-M3 example at
# ITERATIONS rounds (default 64):
#   exact    every executed instruction's pc: QEMU -singlestep -d exec,nochain, one trace line
#            per instruction, counted into a pclist and imported (the reference; a TCG plugin
#            gives the same counts far faster once one is in the tree)
#   runtime  the target-side runtime (make PROFILE_RUNTIME=1, a sample every ~8000 guest
#            instructions) under -icount shift=0, its gmon.out imported
#   halt     `ramplace record --rate 0` (as fast as possible) through QEMU's gdbstub, host time,
#            RUNS runs added up (default 10), without and with -icount shift=0
# The same-build noise floor is not computed; a multinomial sample of n draws from ~30 functions
# sits around 0.5 * sum_f sqrt(2 p_f / (pi n)).
#   bench/bench_methods.sh [BUILD_DIR]      env: ITERATIONS, RUNS
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
. "$root/scripts/qemu-lib.sh"
RAMPLACE=$build/ramplace
TVD=$build/bench/bench_tvd
iters=${ITERATIONS:-64}
runs=${RUNS:-10}
work=$(mktemp -d)
qemu_pid=""
count_pid=""
trap 'stop_pid "$qemu_pid"; stop_pid "$count_pid"; rm -rf "$work"' EXIT
ex=$root/examples/qemu-cortex-m3
make -s -C "$ex" BUILD="$work/plain" ITERATIONS="$iters" >/dev/null
make -s -C "$ex" BUILD="$work/prof" ITERATIONS="$iters" PROFILE_RUNTIME=1 PROFILE_INTERVAL_US=8 >/dev/null
plain=$work/plain/fw.elf
prof=$work/prof/fw.elf
qemu() {
	qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native "$@"
}

# exact: one "Trace" line per instruction through a fifo, counted per pc
mkfifo "$work/trace"
awk '/^Trace/ { split($0, a, "/"); n[a[2]]++ } END { for (pc in n) print pc, n[pc] }' \
	"$work/trace" >"$work/exact.pclist" &
count_pid=$!
qemu -singlestep -d exec,nochain -D "$work/trace" -kernel "$plain" >/dev/null 2>&1
wait "$count_pid"
count_pid=""
"$RAMPLACE" import --quiet --format pclist "$work/exact.db" "$plain" "$work/exact.pclist"
exact_n=$(awk '{ s += $2 } END { print s }' "$work/exact.pclist")

# runtime under -icount shift=0, gmon.out over semihosting
(cd "$work" && qemu -icount shift=0 -kernel "$prof" >runtime.out 2>&1)
"$RAMPLACE" import --quiet --format gmon "$work/runtime.db" "$prof" "$work/gmon.out"
rt_n=$(grep -Eo '^profile: [0-9]+' "$work/runtime.out" | grep -Eo '[0-9]+')

halt() { # db, extra qemu args...
	local db=$1
	shift
	for _ in $(seq "$runs"); do
		local port
		port=$(free_port)
		qemu "$@" -gdb "tcp:127.0.0.1:$port" -S -kernel "$plain" >/dev/null 2>&1 &
		qemu_pid=$!
		wait_port "$port" 10
		"$RAMPLACE" record --quiet --remote "127.0.0.1:$port" --rate 0 "$db" "$plain" >/dev/null
		wait_pid "$qemu_pid" 300 || true
		qemu_pid=""
	done
}
halt "$work/halt.db"
halt "$work/halt-icount.db" -icount shift=0
samples() { "$RAMPLACE" report "$1" | awk 'NR == 1 { print $3 }'; }

row() { # label, db, samples
	local out
	out=$("$TVD" "$work/exact.db" "$2" 3)
	printf '%-44s %9s samples  tvd %s  top 3: %s\n' "$1" "$3" "$(echo "$out" | awk '$1 == "tvd" { print $2 }')" \
		"$(echo "$out" | awk '$1 == "top" { printf "%s %s/%s  ", $3, $4, $5 }')"
}
echo "Cortex-M3 example, $iters rounds; reference: $exact_n exact instruction counts (shares exact/method)"
row "exact (QEMU -singlestep -d exec)" "$work/exact.db" "$exact_n"
row "runtime, -icount shift=0 (goal tvd <= 0.05)" "$work/runtime.db" "$rt_n"
row "record --rate 0, $runs runs" "$work/halt.db" "$(samples "$work/halt.db")"
row "record --rate 0 -icount shift=0, $runs runs" "$work/halt-icount.db" "$(samples "$work/halt-icount.db")"
