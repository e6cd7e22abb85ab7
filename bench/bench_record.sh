#!/usr/bin/env bash
# bench_record.sh: `ramplace record` against QEMU's gdbstub on the bundled firmware:
#  1. samples per second of `ramplace record --rate 0` against two baselines on the same target
#     for the same time, as ratios: the plain client (bench_rsp_plain.c: no-ack mode, interrupt,
#     `p PC`, `c`, nothing else; goal >= 0.8 of it, issue 41) and a gdb-multiarch loop of
#     interrupt, `p $pc`, continue (bench/gdb_pc_loop.py);
#  2. the target's slowdown at given rates: the firmware's run time under `record --rate R`
#     divided by its run time alone (the median of three runs alone, taken between the sampled
#     runs so that machine load hits both), with the achieved samples/s.
#   bench/bench_record.sh [BUILD_DIR] [RATES]     (default build/, "1000 2000 4000 0")
# Env: BENCH_BOARD=cortex-m3 (default) or sifive-e; BENCH_MIN_RUN (passed as --min-run).
# Run on a quiet machine: everything here is wall-clock time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
rates=${2:-1000 2000 4000 0}
. "$root/scripts/qemu-lib.sh"
RAMPLACE=$build/ramplace
work=$(mktemp -d)
qemu_pid=""
trap 'stop_pid "$qemu_pid"; rm -rf "$work"' EXIT
min_run=${BENCH_MIN_RUN:+--min-run $BENCH_MIN_RUN}

plain=$build/bench/bench_rsp_plain
[ -x "$plain" ] || { echo "bench_record: $plain is missing (build the project)" >&2; exit 1; }
case ${BENCH_BOARD:-cortex-m3} in
cortex-m3)
	pc_regnum=f
	make -s -C "$root/examples/qemu-cortex-m3" BUILD="$work/fw" >/dev/null
	qemu=(qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none
	      -semihosting-config enable=on,target=native) ;;
sifive-e)
	pc_regnum=20
	make -s -C "$root/examples/sifive-e-riscv" BUILD="$work/fw" >/dev/null
	qemu=(qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none
	      -semihosting-config enable=on,target=native) ;;
*) echo "bench_record: BENCH_BOARD is cortex-m3 or sifive-e" >&2; exit 2 ;;
esac
elf=$work/fw/fw.elf

start_qemu() { # extra args...
	"${qemu[@]}" "$@" -kernel "$elf" </dev/null >/dev/null 2>&1 &
	qemu_pid=$!
}

now() { date +%s.%N; }

alone_runs=()
run_alone() {
	local t0
	t0=$(now)
	start_qemu
	wait_pid "$qemu_pid" 300
	qemu_pid=""
	alone_runs+=("$(echo "$(now) - $t0" | bc -l)")
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# starts a halted target; sets port
start_halted() {
	port=$(free_port)
	start_qemu -gdb "tcp:127.0.0.1:$port" -S
	wait_port "$port" 10
}

sampled() { # RATE -> prints "elapsed samples_per_second method"
	local t1 elapsed
	start_halted
	t1=$(now)
	# shellcheck disable=SC2086
	"$RAMPLACE" record --remote "127.0.0.1:$port" --rate "$1" $min_run --quiet "$work/p$1.db" "$elf" >"$work/r$1.txt"
	wait_pid "$qemu_pid" 600
	qemu_pid=""
	elapsed=$(echo "$(now) - $t1" | bc -l)
	echo "$elapsed $(grep -Eo '\([0-9]+ samples/s, [a-z]+\)' "$work/r$1.txt" | tr -d '(),' | awk '{ print $1, $3 }')"
}

# 1. the baselines and record, each for 3 s of the same firmware from its start
start_halted
gdb_line=$(timeout 120 python3 "$root/bench/gdb_pc_loop.py" "$elf" "127.0.0.1:$port" 3)
stop_pid "$qemu_pid"
qemu_pid=""
# the plain client without a run window and with record's default one (--min-run 30), each
# against record the same way; then record --rate 0 as it runs by default
plain_run() { # WINDOW_US -> samples/s
	start_halted
	timeout 60 "$plain" "127.0.0.1:$port" 3 "$pc_regnum" "$1" | awk '{ print $3 }'
	stop_pid "$qemu_pid"
	qemu_pid=""
}
record_rate() { # --min-run US -> samples/s of record --rate 0 for 3 s
	start_halted
	"$RAMPLACE" record --remote "127.0.0.1:$port" --rate 0 --min-run "$1" --duration 3 --quiet "$work/m$1.db" "$elf" >"$work/m$1.txt"
	stop_pid "$qemu_pid"
	qemu_pid=""
	grep -Eo '\([0-9]+ samples/s' "$work/m$1.txt" | grep -Eo '[0-9]+'
}
plain0=$(plain_run 0)
rec0=$(record_rate 0)
plain30=$(plain_run 30)
rec30=$(record_rate 30)
start_halted
# shellcheck disable=SC2086
"$RAMPLACE" record --remote "127.0.0.1:$port" --rate 0 $min_run --duration 3 --quiet "$work/g.db" "$elf" >"$work/g.txt"
stop_pid "$qemu_pid"
qemu_pid=""
gdb_rate=$(echo "$gdb_line" | awk '{ printf "%.0f", $1 / $4 }')
rec_rate=$(grep -Eo '\([0-9]+ samples/s' "$work/g.txt" | grep -Eo '[0-9]+')
printf '%s firmware (%s)\n' "${BENCH_BOARD:-cortex-m3}" "${qemu[0]}"
printf 'samples/s for 3 s from reset, against the plain client (bench_rsp_plain; goal >= 0.8):\n'
printf '  no run window:     record --rate 0 --min-run 0: %d   plain client: %d   ratio %.2fx\n' \
	"$rec0" "$plain0" "$(echo "$rec0 / $plain0" | bc -l)"
printf '  30 us run window:  record --rate 0 --min-run 30 (the default): %d   plain client, 30 us spun: %d   ratio %.2fx\n' \
	"$rec30" "$plain30" "$(echo "$rec30 / $plain30" | bc -l)"
printf 'against gdb: record --rate 0 %s: %d   gdb-multiarch loop (interrupt, p $pc, continue): %d   ratio %.1fx\n' \
	"$min_run" "$rec_rate" "$gdb_rate" "$(echo "$rec_rate / $gdb_rate" | bc -l)"

# 2. slowdown at each rate, runs alone interleaved
run_alone
results=()
for r in $rates; do
	results+=("$r $(sampled "$r")")
	run_alone
done
alone=$(median "${alone_runs[@]}")
printf 'firmware alone in QEMU: %.2f s (median of %d runs: %s)\n' "$alone" "${#alone_runs[@]}" \
	"$(printf '%.2f ' "${alone_runs[@]}")"
for line in "${results[@]}"; do
	read -r r t sps method <<<"$line"
	printf 'record --rate %-5s %s: %6d samples/s (%s), target %6.2f s = %.2fx its time alone\n' \
		"$r" "$min_run" "$sps" "$method" "$t" "$(echo "$t / $alone" | bc -l)"
done
echo "goals: >= 4000 samples/s with the target progressing; <= 1.5x at 1000 samples/s"
