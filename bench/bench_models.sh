#!/usr/bin/env bash
# bench_models.sh: placement by instruction counts against placement by a flash model's stall
# cycles (docs/cost-models.md), measured. On the bundled Cortex-M3 firmware, for each flash
# model and budget (1, 2, 4, 8 KiB): exact counts without a model (the baseline: what placing
# by instructions does) and with the model's stall cycles are imported; each is placed, the
# firmware relinked and run again under the plugin with the same model; the speed-up printed is
# the measured one (instructions + stall cycles of the flash-only build over those of the
# relinked one), and for cache models the misses before and after.
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

run() { # ELF OUT [MODEL]: the plugin's counts, with the model's stall cycles when given
	local model=${3:+,model=${3//,/,,},flash=0-400000}
	timeout 600 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -kernel "$1" \
		-plugin "$plugin,out=$2,mode=insn$model" >/dev/null
}
hdr() { awk -v k="$2" '$2 == k { print $3 }' "$1"; }
cycles() { awk '$2 == "insns-executed" || $2 == "stall-fetch" || $2 == "stall-read" { s += $3 } END { printf "%.0f", s }' "$1"; }

run "$work/flash/fw.elf" "$work/counts.txt"
"$ramplace" import --quiet "$work/counts.db" "$work/flash/fw.elf" "$work/counts.txt"

printf '%-40s %6s %14s %14s %9s %14s %14s\n' model budget "by insns" "by cycles" "ratio" "misses before" "misses after"
for model in ${MODELS:-ws:5 art:ws=5,line=16,lines=64 art:ws=5,line=16,lines=8 cache:rp2040 cache:size=2048,ways=2,line=16,penalty=50}; do
	tag=${model//[:,=]/_}
	run "$work/flash/fw.elf" "$work/$tag.txt" "$model"
	"$ramplace" import --quiet "$work/$tag.db" "$work/flash/fw.elf" "$work/$tag.txt"
	base=$(cycles "$work/$tag.txt")
	for kib in ${BUDGETS:-1 2 4 8}; do
		for by in counts cycles; do
			db=$work/counts.db
			[ "$by" = cycles ] && db=$work/$tag.db
			d=$work/$tag-$kib-$by
			mkdir -p "$d"
			"$ramplace" place --quiet --budget "${kib}K" --map "$work/flash/fw.map" -o "$d/ramtext.ld" \
				$( [ "$by" = cycles ] && echo --flash-model "$model") "$db" "$work/flash/fw.elf"
			make -s -C "$ex" BUILD="$d/b" RAMTEXT_LD="$d/ramtext.ld" ITERATIONS="$iterations" >/dev/null
			run "$d/b/fw.elf" "$d/after.txt" "$model"
		done
		a=$(cycles "$work/$tag-$kib-counts/after.txt") b=$(cycles "$work/$tag-$kib-cycles/after.txt")
		printf '%-40s %5sK %13.3fx %13.3fx %8.3fx %14s %14s\n' "$model" "$kib" \
			"$(echo "$base / $a" | bc -l)" "$(echo "$base / $b" | bc -l)" "$(echo "$a / $b" | bc -l)" \
			"$(hdr "$work/$tag.txt" misses)" \
			"$(hdr "$work/$tag-$kib-counts/after.txt" misses)/$(hdr "$work/$tag-$kib-cycles/after.txt" misses)"
	done
done
echo "by insns / by cycles: measured speed-up (flash-only cycles over relinked cycles, same model) of the"
echo "placement from instruction counts and from the model's stall cycles; ratio > 1: cycles win."
echo "misses after: by insns / by cycles."
