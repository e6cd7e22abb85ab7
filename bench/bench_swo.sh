#!/usr/bin/env bash
# bench_swo.sh: how good an SWO PC-sampling profile is (issue 16 item 3, goal "SWO at least
# 99 % of the exact profile's placement value"). On the bundled examples/qemu-cortex-m3
# (ITERATIONS rounds) and bench/fw/phasevm, one QEMU run per interval writes both the exact
# counts (libramplace-qemu.so out=) and the DWT PC-sampler stream (swo=, a sample every N
# instructions, TPIU-framed for one of them), imported with `import --format swo`; one more run
# serves the stream on a TCP port and `record --swo` reads it live. For each it prints the
# samples, the total variation distance of the per-function shares from exact counts
# (bench_tvd), the distance random sampling of that many samples would show on average (the
# baseline "multinomial noise"), and the share of the exact profile's optimum that `place`
# reaches from the SWO profile at 1, 2, 4 and 8 KiB (bench_share: both placements valued under
# the exact counts).
#   bench/bench_swo.sh [BUILD_DIR]     env: ITERATIONS (default 200), INTERVALS ("64 1024 4096")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
. "$root/bench/bench-lib.sh"
iters=${ITERATIONS:-200}
intervals=${INTERVALS:-64 1024 4096}

make -s -C "$root/examples/qemu-cortex-m3" BUILD="$work/ex" ITERATIONS="$iters" >/dev/null
make -s -C "$root/bench/fw/phasevm" BUILD="$work/pv" >/dev/null

noise() { # exact.db samples: mean TVD of a multinomial sample of that size from exact's shares
	"$RAMPLACE" report --json - "$1" | python3 -c '
import json, math, sys
f = [x["self"] for x in json.load(sys.stdin)["functions"]]; t = sum(f); n = int(sys.argv[1])
print("%.4f" % (0.5 * sum(math.sqrt(2 * (v / t) * (1 - v / t) / (math.pi * n)) for v in f)))' "$2"
}

row() { # label dir db
	local n tvd shares
	n=$(sqlite3 "$3" "select sum(count) from samples")
	tvd=$("$TVD" "$2/exact.db" "$3" 0 | awk '$1 == "tvd" { print $2 }')
	shares=$("$SHARE" "$2/exact.db" "$3" "$2/fw.elf" "$2/fw.map" $budgets | awk '{ printf "%8.2f%%", $3 }')
	printf '%-28s %8s %7s %7s %s\n' "$1" "$n" "$tvd" "$(noise "$2/exact.db" "$n")" "$shares"
}

bench_fw() { # label dir
	local label=$1 dir=$2 iv sp
	echo
	echo "$label"
	printf '%-28s %8s %7s %7s %9s%9s%9s%9s\n' profile samples tvd noise 1K 2K 4K 8K
	for iv in $intervals; do
		qemu -kernel "$dir/fw.elf" -plugin "$PLUGIN,out=$dir/exact.txt,swo=$dir/s$iv.swo,swo-interval=$iv" >/dev/null
		[ -e "$dir/exact.db" ] || "$RAMPLACE" import --quiet "$dir/exact.db" "$dir/fw.elf" "$dir/exact.txt"
		"$RAMPLACE" import --quiet --format swo "$dir/s$iv.db" "$dir/fw.elf" "$dir/s$iv.swo"
		row "SWO file, 1/$iv" "$dir" "$dir/s$iv.db"
	done
	iv=${intervals%% *}
	qemu -kernel "$dir/fw.elf" -plugin "$PLUGIN,out=$dir/x.txt,swo=$dir/t.swo,swo-interval=$iv,swo-tpiu=on" >/dev/null
	"$RAMPLACE" import --quiet --format swo "$dir/t.db" "$dir/fw.elf" "$dir/t.swo"
	row "SWO file, TPIU, 1/$iv" "$dir" "$dir/t.db"
	local gp
	gp=$(free_port)
	sp=$(free_port)
	qemu -kernel "$dir/fw.elf" -gdb "tcp:127.0.0.1:$gp" -S \
		-plugin "$PLUGIN,out=$dir/x.txt,swo=tcp:$sp,swo-interval=$iv" >/dev/null 2>&1 &
	qemu_pid=$!
	"$RAMPLACE" record --quiet --swo "127.0.0.1:$sp" --remote "127.0.0.1:$gp" --swo-interval 64 "$dir/live.db" "$dir/fw.elf"
	wait_pid "$qemu_pid" 120 || true
	qemu_pid=""
	row "record --swo (tcp), 1/$iv" "$dir" "$dir/live.db"
	row "exact (reference)" "$dir" "$dir/exact.db"
}

echo "SWO PC sampling against exact counts: tvd of per-function shares (baseline: the noise of"
echo "random sampling with as many samples), share of the exact optimum at each budget (goal >= 99 %)"
bench_fw "examples/qemu-cortex-m3, $iters rounds" "$work/ex"
bench_fw "bench/fw/phasevm" "$work/pv"
