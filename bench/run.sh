#!/usr/bin/env bash
# run.sh: builds ramplace and prints every benchmark's measured ratios against its baseline.
# Run on a quiet machine: the figures are wall-clock times.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 >/dev/null
echo "== exact knapsack vs glpsol (same instance, same optimum) and greedy baselines"
for n in 1000 12000 50000; do
	"$build/bench/bench_knapsack" "$n" 96K
done
echo
echo "== exact knapsack on Pisinger's hard classes (weights 1..1000, capacity half the total)"
for cls in strong subset spanner; do
	for n in 1000 10000; do
		"$build/bench/bench_knapsack" --class "$cls" "$n" 1000
	done
done
echo
echo "== call-graph ILP, two regions (GLPK; goals: n=2000 optimal within 2 s, n=10000 within 0.1 % in 10 s)"
"$build/bench/bench_ilp" 2000 2
"$build/bench/bench_ilp" 10000 10
echo "-- n=2000 again with 180 s: how long the proof of optimality really takes, and the proof alone"
"$build/bench/bench_ilp" --from-optimum 2000 180
echo
echo "== one region with shared veneers (Cortex-M): the ILP started from a greedy fill, as place starts it from the knapsack"
"$build/bench/bench_ilp" --one-region 1000 10
"$build/bench/bench_ilp" --one-region 12000 10
echo
echo "== ramplace record against QEMU's gdbstub (Cortex-M3 example)"
"$root/bench/bench_record.sh" "$build"
echo
echo "== collection methods against exact instruction counts (total variation distance)"
"$root/bench/bench_methods.sh" "$build"
echo
echo "== issue 16's goal, repeated: 10 s recordings of phasevm at default settings"
"$root/bench/bench_record_goal.sh" "$build"
echo
echo "== the target-side sampling runtime: RAM and instructions per sample"
"$root/bench/bench_runtime_overhead.sh" "$build"
echo
echo "== exact counts from QEMU: libramplace-qemu.so against -d exec logging (Cortex-M3 example)"
"$root/bench/bench_qemu_plugin.sh" "$build"
echo
echo "== place on synthetic firmware of 1,000 to 200,000 functions against arm-none-eabi-nm -S (goal: 3x at 50,000)"
"$root/bench/bench_scale.sh" "$build/ramplace"
echo
echo "== report --html on synthetic firmware of 50,000 functions against nm -S and an empty page (goal: written within 10 s, rendered within 20 s)"
"$root/bench/bench_report_html.sh" "$build/ramplace"
