#!/usr/bin/env bash
# bench_models.sh: placement by instruction counts against placement by a flash model's stall
# cycles (docs/cost-models.md), measured. On the bundled Cortex-M3 firmware, for each flash
# model and budget (1, 2, 4, 8 KiB): exact counts without a model (the baseline: what placing
# by instructions does) and with the model's stall cycles are imported; each is placed, the
# firmware relinked and run again under the plugin with the same model; the speed-up printed is
# the measured one (instructions + stall cycles of the flash-only build over those of the
# relinked one), and for cache models the misses before and after. Under cache and accelerator
# models also with the access trace recorded in the profiling run (place --trace).
#   bench/bench_models.sh [BUILD_DIR] [ITERATIONS]      (default build/, 40)
# MODELS="m1 m2" and BUDGETS="1 2" (KiB) run a subset.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
iterations=${2:-40}
ramplace=$build/ramplace
plugin=$build/libramplace-qemu.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ex=$root/examples/qemu-cortex-m3
make -s -C "$ex" BUILD="$work/flash" ITERATIONS="$iterations" >/dev/null

run() { # ELF OUT [MODEL [MORE]]: the plugin's counts, with the model's stall cycles when given
	local model=${3:+,model=${3//,/,,},flash=0-400000}${4:-}
	timeout 600 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -kernel "$1" \
		-plugin "$plugin,out=$2,mode=insn$model" >/dev/null
}
hdr() { awk -v k="$2" '$2 == k { print $3 }' "$1"; }
cycles() { awk '$2 == "insns-executed" || $2 == "stall-fetch" || $2 == "stall-read" { s += $3 } END { printf "%.0f", s }' "$1"; }

run "$work/flash/fw.elf" "$work/counts.txt"
"$ramplace" import --quiet "$work/counts.db" "$work/flash/fw.elf" "$work/counts.txt"

printf '%-40s %6s %10s %10s %10s %9s %14s %20s\n' model budget "by insns" "by cycles" "by trace" "ratio" "misses before" "misses after"
for model in ${MODELS:-ws:5 art:ws=5,line=16,lines=64 art:ws=5,line=16,lines=8 cache:rp2040 cache:size=2048,ways=2,line=16,penalty=50}; do
	tag=${model//[:,=]/_}
	run "$work/flash/fw.elf" "$work/$tag.txt" "$model"
	"$ramplace" import --quiet "$work/$tag.db" "$work/flash/fw.elf" "$work/$tag.txt"
	base=$(cycles "$work/$tag.txt")
	ways="counts cycles"
	if [[ $model == cache:* || $model == art:* ]]; then
		# what the build integrations do under such a model: the access trace recorded in the
		# profiling run, windows of 4,000 accesses one every 1/1,024 of the run (docs/layout.md)
		period=$(( $(hdr "$work/$tag.txt" insns-executed) / 1024 ))
		run "$work/flash/fw.elf" "$work/$tag.traced.txt" "$model" ",trace=$work/$tag.trace,trace-window=4000,trace-period=$period"
		ways="$ways trace"
	fi
	for kib in ${BUDGETS:-1 2 4 8}; do
		for by in $ways; do
			db=$work/counts.db opts=()
			[ "$by" != counts ] && db=$work/$tag.db opts=(--flash-model "$model")
			[ "$by" = trace ] && opts+=(--trace "$work/$tag.trace")
			d=$work/$tag-$kib-$by
			mkdir -p "$d"
			"$ramplace" place --quiet --budget "${kib}K" --map "$work/flash/fw.map" -o "$d/ramtext.ld" \
				"${opts[@]}" "$db" "$work/flash/fw.elf" >"$d/place.out"
			make -s -C "$ex" BUILD="$d/b" RAMTEXT_LD="$d/ramtext.ld" ITERATIONS="$iterations" >/dev/null
			run "$d/b/fw.elf" "$d/after.txt" "$model"
		done
		a=$(cycles "$work/$tag-$kib-counts/after.txt") b=$(cycles "$work/$tag-$kib-cycles/after.txt") c=""
		[ -f "$work/$tag-$kib-trace/after.txt" ] && c=$(cycles "$work/$tag-$kib-trace/after.txt")
		best=$b
		[ -n "$c" ] && best=$c
		printf '%-40s %5sK %9.3fx %9.3fx %10s %8.3fx %14s %20s\n' "$model" "$kib" \
			"$(echo "$base / $a" | bc -l)" "$(echo "$base / $b" | bc -l)" \
			"$( [ -n "$c" ] && printf '%9.3fx' "$(echo "$base / $c" | bc -l)" || echo -)" "$(echo "$a / $best" | bc -l)" \
			"$(hdr "$work/$tag.txt" misses)" \
			"$(hdr "$work/$tag-$kib-counts/after.txt" misses)/$(hdr "$work/$tag-$kib-cycles/after.txt" misses)${c:+/$(hdr "$work/$tag-$kib-trace/after.txt" misses)}"
	done
done
echo "by insns / by cycles / by trace: measured speed-up (flash-only cycles over relinked cycles, same model) of"
echo "the placement from instruction counts, from the model's stall cycles (under a cache or accelerator without"
echo "a trace: nothing moves unless it promises 3 % of the cycles), and with the access trace (place --trace,"
echo "cache and accelerator models: what the build integrations do there); ratio: by insns over the model's"
echo "default (the trace where there is one); > 1: the model wins. misses after: by insns / by cycles / by trace."
