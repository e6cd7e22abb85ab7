#!/usr/bin/env bash
# bench_ramdata.sh: the data candidates' share of the saved stall cycles (issue 14 item 4) on the
# bundled Cortex-M3 example, at 1, 2, 4 and 8 KiB, under ws:5 (the QEMU plugin's exact counts and
# stall cycles). Per budget: the stall cycles `place` (code only, the baseline) and `place --data`
# predict to save (code and data weighed in the same stall cycles), the data share of the
# prediction, then the same measured: each placement is relinked and run again under the plugin,
# and the saving is the drop of its own stall cycles (fetch + read) against the flash build.
#   bench/bench_ramdata.sh [BUILD_DIR]   (default build/; needs arm-none-eabi-gcc, qemu-system-arm)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
rp=$build/ramplace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ex=$src/examples/qemu-cortex-m3
model="model=ws:5,flash=0-400000"
qemu() { # ELF OUT
	qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none -semihosting-config enable=on,target=native \
		-kernel "$1" -plugin "$build/libramplace-qemu.so,out=$2,$model" >/dev/null
}
stall() { awk '$1 == "#" && ($2 == "stall-fetch" || $2 == "stall-read") { s += $3 } END { print s }' "$1"; }
rstall() { awk '$1 == "#" && $2 == "stall-read" { print $3 }' "$1"; }
make -s -C "$ex" BUILD="$work/fw" ITERATIONS=20 >/dev/null
qemu "$work/fw/fw.elf" "$work/flash.txt"
"$rp" import --quiet "$work/p.db" "$work/fw/fw.elf" "$work/flash.txt"
base=$(stall "$work/flash.txt")
printf '%-6s %12s %12s %12s %7s | %12s %12s %12s %7s %7s\n' budget "code-only" "code+data" "of which data" share \
	"meas. code" "meas. c+d" "meas. data" share gain
for b in 1K 2K 4K 8K; do
	for kind in c d; do
		mkdir -p "$work/$kind$b"
		"$rp" place $([ $kind = d ] && echo --data) --budget $b --map "$work/fw/fw.map" -o "$work/$kind$b/ramtext.ld" \
			"$work/p.db" "$work/fw/fw.elf" >"$work/$kind$b.out"
		make -s -C "$ex" BUILD="$work/b$kind$b" ITERATIONS=20 RAMTEXT_LD="$work/$kind$b/ramtext.ld" >/dev/null
		qemu "$work/b$kind$b/fw.elf" "$work/$kind$b.txt"
	done
	pc=$(awk '$1 == "samples" { print $3 }' "$work/c$b/ramtext.ld.plan")   # stall cycles, code only
	read -r pdata pcode < <(sed -n 's/^data share of the saved stall cycles: .*(\([0-9]*\) data + \([0-9]*\) code.*/\1 \2/p' "$work/d$b.out")
	mc=$((base - $(stall "$work/c$b.txt"))) md=$((base - $(stall "$work/d$b.txt")))
	mdata=$(($(rstall "$work/flash.txt") - $(rstall "$work/d$b.txt") - ($(rstall "$work/flash.txt") - $(rstall "$work/c$b.txt"))))
	printf '%-6s %12s %12s %12s %6.1f%% | %12s %12s %12s %6.1f%% %6.3fx\n' $b "$pc" $((pdata + pcode)) "$pdata" \
		"$(echo "100 * $pdata / ($pdata + $pcode)" | bc -l)" "$mc" "$md" "$mdata" "$(echo "100 * $mdata / $md" | bc -l)" \
		"$(echo "$md / $mc" | bc -l)"
done
echo "flash build: $base stall cycles under ws:5 ($(rstall "$work/flash.txt") of them data reads)"
grep -o 'weights: [^)]*)' "$work/d8K.out" | head -1
