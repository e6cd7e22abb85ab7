#!/usr/bin/env bash
# bench_ramdata.sh: the data candidates' share of the flash accesses a placement moves (issue 14
# item 4) on the bundled Cortex-M3 example, at 1, 2, 4 and 8 KiB: `place --data` against
# `place` (code only, the baseline) on the same exact counts (QEMU plugin). Prints, per budget,
# the flash accesses moved by each and the data objects' share. Weights: the profile's flash reads
# per object when the plugin's model recorded them, else the literal-pool proxy (the line says).
#   bench/bench_ramdata.sh [BUILD_DIR]   (default build/; needs arm-none-eabi-gcc, qemu-system-arm)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
rp=$build/ramplace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s -C "$src/examples/qemu-cortex-m3" BUILD="$work/fw" ITERATIONS=20 >/dev/null
qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none -semihosting-config enable=on,target=native \
	-kernel "$work/fw/fw.elf" -plugin "$build/libramplace-qemu.so,out=$work/counts.txt,model=ws:5,flash=0-400000" >/dev/null
"$rp" import --quiet "$work/p.db" "$work/fw/fw.elf" "$work/counts.txt"
printf '%-7s %14s %14s %14s %8s\n' budget code-only code+data "of which data" "gain"
for b in 1K 2K 4K 8K; do
	code=$("$rp" place --budget $b --map "$work/fw/fw.map" -o "$work/c.ld" "$work/p.db" "$work/fw/fw.elf" |
		awk '/^samples in RAM:/ { print $NF }')
	moved_code=$(awk '$1 == "samples" { print $3 }' "$work/c.ld.plan")
	"$rp" place --data --budget $b --map "$work/fw/fw.map" -o "$work/d.ld" "$work/p.db" "$work/fw/fw.elf" >"$work/d.out"
	line=$(grep '^data share of the moved flash accesses' "$work/d.out")
	data=$(echo "$line" | sed 's/.*(\([0-9]*\) data reads~ + \([0-9]*\) code samples.*/\1 \2/')
	set -- $data
	printf '%-7s %14s %14s %14s %7.3fx   %s\n' $b "$moved_code" $(($1 + $2)) "$1" \
		"$(echo "($1 + $2) / $moved_code" | bc -l)" "$(echo "$line" | cut -d: -f2 | cut -d'(' -f1)"
done
grep -o 'weights: [^)]*)' "$work/d.out" | head -1
[ "$code" != "" ]
