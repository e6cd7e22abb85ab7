#!/usr/bin/env bash
# bench_methods.sh: how good each collection method's profile is, against exact instruction
# counts of the same workload (issue 16's benchmark table). For each firmware and method it
# prints the total variation distance of the per-function shares from exact counts (bench_tvd),
# the target's slowdown (wall time of the run while collecting / without), and the share of the
# exact profile's optimum that the placement chosen from the method's profile reaches at 1, 2, 4
# and 8 KiB (bench_share: both placements by `place`'s solver with the link map, valued under the
# exact counts), plus the profile's own stability verdict at 4 KiB (docs/sampling.md).
#   exact     the QEMU plugin's counts (libramplace-qemu.so out=, `import --format qemu`): the reference
#   halt      `ramplace record --duration 10` through QEMU's gdbstub at the default rate, and at --rate 500
#   runtime   the target-side runtime (PROFILE_RUNTIME=1, a sample every PROFILE_INTERVAL_US guest
#             microseconds) under -icount shift=0, its gmon.out imported
#   swo       the plugin's DWT PC-sampler stream (swo=FILE, a sample every SWO_INTERVAL instructions)
#             through `import --format swo`, when the plugin has the option
# Firmware: the bundled examples/qemu-cortex-m3 and examples/sifive-e-riscv (RV32IMAC under
# qemu-system-riscv32 -M sifive_e; no SWO there), ITERATIONS rounds, default 2000, and
# bench/fw/phasevm (an interpreter with seven phases run in turn eight times, a few hundred
# functions, about 17 s on an idle machine: a 10 s recording is cut, as on a board).
# Goal (issue 16): a 10 s recording at default settings >= 95 % of the optimum at every budget,
# SWO >= 99 %.
#   bench/bench_methods.sh [BUILD_DIR]     env: ITERATIONS, DURATION (10), SWO_INTERVAL (1024)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
. "$root/bench/bench-lib.sh"
iters=${ITERATIONS:-2000}
duration=${DURATION:-10}
swo_interval=${SWO_INTERVAL:-1024}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
have_swo=0
grep -q 'swo=' "$root/ramplace/qemu-plugin/swo_emit.h" 2>/dev/null && have_swo=1

make -s -C "$root/examples/qemu-cortex-m3" BUILD="$work/ex" ITERATIONS="$iters" >/dev/null
make -s -C "$root/examples/qemu-cortex-m3" BUILD="$work/ex-rt" ITERATIONS="$iters" PROFILE_RUNTIME=1 \
	PROFILE_INTERVAL_US=8 >/dev/null
make -s -C "$root/examples/sifive-e-riscv" BUILD="$work/rv" ITERATIONS="$iters" >/dev/null
make -s -C "$root/examples/sifive-e-riscv" BUILD="$work/rv-rt" ITERATIONS="$iters" PROFILE_RUNTIME=1 \
	PROFILE_INTERVAL_US=8 >/dev/null
make -s -C "$root/bench/fw/phasevm" BUILD="$work/pv" >/dev/null
# phasevm's eight passes at 8 us overflowed the hottest 16-bit gmon.out bins (TVD 0.17 against
# 0.02 for one pass): 64 us takes about as many samples as one pass did at 8 us
make -s -C "$root/bench/fw/phasevm" BUILD="$work/pv-rt" PROFILE_RUNTIME=1 PROFILE_INTERVAL_US=64 >/dev/null

stab_word() { # a stability verdict line -> "stable" or "record N.Nx the samples"
	sed -n -e 's/^stability: the .* choice is stable.*/stable/p' \
		-e 's/^stability: too few samples.*[(:] \{0,1\}\([0-9.]*x\) the .*/unstable: record \1 the samples/p' \
		-e 's/^stability: too few samples.*even \([0-9]*x\).*/unstable even at \1/p'
}
row() { # label, fw-dir, db, slowdown
	local tvd shares verdict
	tvd=$("$TVD" "$2/exact.db" "$3" 0 | awk '$1 == "tvd" { print $2 }')
	shares=$("$SHARE" "$2/exact.db" "$3" "$2/fw.elf" "$2/fw.map" $budgets | awk '{ printf "%7.2f%%", $3 }')
	verdict=$("$RAMPLACE" report --stability --budget 4K --elf "$2/fw.elf" "$3" | stab_word)
	printf '%-30s %7s %6s %s   %s\n' "$1" "$tvd" "$4" "$shares" "$verdict"
}

# The baseline of "slow": the same QEMU started halted (-S) under its gdbstub, timed from when
# its port answers to its exit, with a client that only continues and waits for the exit (W):
# the run record's halting runs are compared with, without QEMU's start-up and the port polling
# (which made a 2.4 s run look 5-9 % slower than record's own halted/ran of 4 %).
plain_gdb() { # fw-dir: prints the seconds
	local port t0
	port=$(free_port)
	qemu -gdb "tcp:127.0.0.1:$port" -S -kernel "$1/fw.elf" >/dev/null 2>&1 &
	qemu_pid=$!
	wait_port "$port" 10
	t0=$(now)
	python3 - "$port" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=600)
s.sendall(b"$c#63")
buf = b""
while b"$W" not in buf and b"$X" not in buf:
    d = s.recv(4096)
    if not d:
        break
    buf += d
PY
	wait "$qemu_pid" || true   # it got the exit's W: QEMU is ending; timed to its exit, as in halt
	qemu_pid=""
	elapsed "$t0"
}

halt() { # fw-dir, db, extra record args...: prints the slowdown (run time while sampling / plain_gdb)
	local dir=$1 db=$2 port t0 rec_pid first d
	shift 2
	port=$(free_port)
	qemu -gdb "tcp:127.0.0.1:$port" -S -kernel "$dir/fw.elf" >/dev/null 2>&1 &
	qemu_pid=$!
	wait_port "$port" 10
	t0=$(now)
	"$RAMPLACE" record --quiet --remote "127.0.0.1:$port" --duration "$duration" "$@" "$db" "$dir/fw.elf" \
		>"$db.out" 2>"$db.err" &
	rec_pid=$!
	# the run ends when QEMU exits, not when record has stored the profile and printed its verdict
	# (a few hundred ms that are not the target's); record ends first when --duration cut the run
	wait -n -p first "$qemu_pid" "$rec_pid" || true
	d=$(elapsed "$t0")
	wait "$rec_pid" || true
	if [ "$first" = "$rec_pid" ]; then   # cut by --duration: no wall time to compare
		stop_pid "$qemu_pid"
		qemu_pid=""
		sed -n 's/^slowdown: \([0-9.]*\) %.*/(\1%)/p' "$db.out"
		return
	fi
	qemu_pid=""
	awk -v d="$d" -v p="$(cat "$dir/plain-gdb.s")" 'BEGIN { printf "%.3fx", d / p }'
}

bench_fw() { # label, fw-dir, runtime fw-dir, the runtime's interval in us
	local label=$1 dir=$2 rt=$3 rt_us=$4 t0 s
	t0=$(now)
	qemu -kernel "$dir/fw.elf" >/dev/null
	elapsed "$t0" >"$dir/plain.s"
	plain_gdb "$dir" >"$dir/plain-gdb.s"
	exact_counts "$dir"
	echo
	echo "$label: plain run $(cat "$dir/plain.s") s ($(cat "$dir/plain-gdb.s") s under the gdbstub, only continued);" \
		"$(grep -c . "$dir/exact.txt") instruction addresses"
	printf '%-30s %7s %6s %8s %8s %8s %8s   %s\n' method tvd slow 1K 2K 4K 8K "stability at 4 KiB"
	# slow: wall time from the gdbstub's port answering to QEMU's exit, against the same run only
	# continued (plain_gdb), on the same (possibly loaded) machine; "(4.0%)" when --duration cut
	# the run (phasevm runs longer than 10 s): record's own measure of its intrusion (halted /
	# ran, in halt*.db.out), which t_record_honest.sh checks against QEMU's vCPU thread
	row "exact (QEMU plugin)" "$dir" "$dir/exact.db" "1.00x"
	s=$(halt "$dir" "$dir/halt.db")
	row "record, default, ${duration} s" "$dir" "$dir/halt.db" "$s"
	s=$(halt "$dir" "$dir/halt500.db" --rate 500)
	row "record --rate 500, ${duration} s" "$dir" "$dir/halt500.db" "$s"
	# the runtime under -icount: guest time is instructions, so its slowdown is its instructions
	t0=$(now)
	qemu -icount shift=0 -kernel "$dir/fw.elf" >/dev/null
	local base
	base=$(elapsed "$t0")
	t0=$(now)
	(cd "$rt" && qemu -icount shift=0 -kernel "$rt/fw.elf" >/dev/null)
	s=$(awk -v d="$(elapsed "$t0")" -v p="$base" 'BEGIN { printf "%.2fx", d / p }')
	"$RAMPLACE" import --quiet --format gmon "$dir/runtime.db" "$rt/fw.elf" "$rt/gmon.out"
	row "runtime -icount, $rt_us us" "$dir" "$dir/runtime.db" "$s"
	if [ "$machine" = riscv ]; then
		echo "SWO: none on RISC-V (a Cortex-M port)"
	elif [ "$have_swo" = 1 ]; then
		qemu -kernel "$dir/fw.elf" -plugin "$PLUGIN,out=$dir/x.txt,swo=$dir/swo.bin,swo-interval=$swo_interval" >/dev/null
		"$RAMPLACE" import --quiet --format swo "$dir/swo.db" "$dir/fw.elf" "$dir/swo.bin"
		row "SWO via plugin, 1/$swo_interval" "$dir" "$dir/swo.db" "-"
	else
		echo "SWO: the plugin has no swo= option yet"
	fi
}
echo "share of the exact optimum (placement from each profile, valued under exact counts); goal:"
echo "record at default settings >= 95 % at every budget, SWO >= 99 % (issue 16)"
bench_fw "examples/qemu-cortex-m3, $iters rounds" "$work/ex" "$work/ex-rt" 8
machine=riscv
bench_fw "examples/sifive-e-riscv, $iters rounds" "$work/rv" "$work/rv-rt" 8
machine=arm
bench_fw "bench/fw/phasevm" "$work/pv" "$work/pv-rt" 64
