#!/usr/bin/env bash
# bench_layout.sh: does laying out flash for its cache pay, measured (issue 26, docs/layout.md)?
# For each firmware, flash model and RAM budget, four placements are relinked and run again
# under the QEMU plugin with the same model, and their stall cycles and total cycles
# (instructions + stall) counted on the relinked firmware itself:
#   (a) by instructions  place --budget B                      (exact counts, no model)
#   (b) by cycles        place --budget B --flash-model M      (the plugin's stall cycles)
#   (c) with the layout  place --budget B --flash-model M --trace T   (flashtext.ld too)
#   (d) layout alone     place --budget 0 --flash-model M --trace T   (one per model)
# At 0 KiB, (a) and (b) are the flash-only build. Every relink must pass `ramplace check` and
# print what the flash-only build prints; a cell that cannot be built says why ("-").
# Printed per row: each placement's total cycles over the flash-only build's (< 1: faster; for
# the FreeRTOS demo, which runs to a fixed tick, see measure() below),
# the stall cycles of (c) against (b) ("c/b stall"), and flags: "c>ab" when (c) is slower
# than (a) or (b), "slow" when a relinked (c) or (d) is slower than flash only.
#   bench/bench_layout.sh [BUILD_DIR]
# FIRMWARE="m3 riscv phasevm freertos", MODELS="..." and BUDGETS="0 1 2 4 8" (KiB) pick a
# subset; ITERATIONS (2) sets the examples' workload; RAMPLACE_CORPUS the corpus (freertos);
# KEEP=DIR keeps the work (builds, traces, plans) in DIR instead of a removed temporary one
# (give it a new or empty directory: a cell whose place fails would find an older fragment).
# phasevm runs SCALE=1 PASSES=1; a firmware of more than 4 M instructions is traced in 1,024
# windows of 4,000 accesses, each starting from what the flash held (docs/layout.md states what
# sampling costs in accuracy).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
build=$(cd "$build" && pwd)
ramplace=$build/ramplace
plugin=$build/libramplace-qemu.so
corpus=${RAMPLACE_CORPUS:-}
iterations=${ITERATIONS:-2}
if [ -n "${KEEP:-}" ]; then   # KEEP=DIR keeps every build, trace and plan there, to look into a cell
	work=$(mkdir -p "$KEEP" && cd "$KEEP" && pwd)   # absolute: the builds run under make -C
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
models=${MODELS:-cache:rp2040 cache:size=2048,ways=2,line=16,penalty=50 cache:size=4096,ways=2,line=16,penalty=50 cache:esp32 art:ws=5,line=16,lines=64}
budgets=${BUDGETS:-0 1 2 4 8}

# --- the firmware: build NAME DIR FRAGDIR (FRAGDIR holds ramtext.ld and flashtext.ld, or is
# empty for the flash-only build), run NAME ELF COUNTS MODEL [TRACE] (program output in ELF.out)
freertos_ready=0
freertos_setup() {
	[ "$freertos_ready" = 1 ] && return 0
	[ -d "$corpus/freertos/FreeRTOS" ] || { echo "no FreeRTOS corpus at $corpus/freertos" >&2; return 1; }
	"$root/tests/data/freertos/setup.sh" "$(cd "$corpus" && pwd)/freertos" "$work/freertos" >/dev/null
	freertos_ready=1
}
fw_build() {
	local name=$1 dir=$2 frag=$3
	mkdir -p "$dir"
	case $name in
	m3|riscv)
		local ex=$root/examples/qemu-cortex-m3
		[ "$name" = riscv ] && ex=$root/examples/sifive-e-riscv
		if [ -f "$frag/ramtext.ld" ]; then
			make -s -C "$ex" BUILD="$dir" RAMTEXT_LD="$frag/ramtext.ld" ITERATIONS="$iterations" >"$dir/make.log" 2>&1
		else
			make -s -C "$ex" BUILD="$dir" ITERATIONS="$iterations" >"$dir/make.log" 2>&1
		fi ;;
	phasevm)
		for f in ramtext.ld flashtext.ld; do
			if [ -f "$frag/$f" ]; then cp "$frag/$f" "$dir/$f"; else : >"$dir/$f"; fi
		done
		make -s -C "$root/bench/fw/phasevm" BUILD="$dir" SCALE=1 PASSES=1 >"$dir/make.log" 2>&1 ;;
	freertos)
		freertos_setup
		for f in ramtext.ld flashtext.ld; do
			if [ -f "$frag/$f" ]; then cp "$frag/$f" "$dir/$f"; else echo '/* empty */' >"$dir/$f"; fi
		done
		local gcc_dir=$work/freertos/CORTEX_MPS2_QEMU_IAR_GCC/build/gcc
		mkdir -p "$work/freertos-obj"
		make -s -j2 -C "$gcc_dir" FREERTOS_ROOT="$(cd "$corpus" && pwd)/freertos/FreeRTOS" \
			DEMO_PROJECT="$work/freertos/CORTEX_MPS2_QEMU_IAR_GCC" OPT=-Os OUTPUT_DIR="$work/freertos-obj" \
			IMAGE="$dir/fw.out" RAMPLACE_FRAGMENT_DIR="$dir" >"$dir/make.log" 2>&1 &&
			cp "$dir/fw.out" "$dir/fw.elf" ;;
	esac
}
fw_map() { echo "$2/fw.map"; }
fw_flash() { if [ "$1" = riscv ]; then echo 20400000-20800000; else echo 0-400000; fi; }
fw_run() {
	local name=$1 elf=$2 counts=$3 model=${4:-} trace=${5:-} opts
	opts="$plugin,out=$counts,mode=insn"
	[ -n "$model" ] && opts="$opts,model=${model//,/,,},flash=$(fw_flash "$name")"
	[ -n "$trace" ] && opts="$opts,trace=$trace$sampling"
	case $name in
	riscv)
		timeout 600 qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
			-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi \
			-kernel "$elf" -plugin "$opts" >"$elf.out" 2>/dev/null ;;
	freertos)
		timeout 600 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial "file:$elf.uart" \
			-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi \
			-icount shift=5,sleep=off -kernel "$elf" -plugin "$opts" </dev/null >"$elf.out" 2>/dev/null || true
		# the demo's end (ramplace_stop.c) exits non-zero; its output says whether it ran through
		sed -E 's/ : [0-9]+ \([0-9]+\)//' "$elf.uart" | tr -d '\r' >>"$elf.out" ;;
	*)
		timeout 600 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
			-semihosting-config enable=on,target=native -kernel "$elf" -plugin "$opts" >"$elf.out" 2>/dev/null ;;
	esac
}
total() { awk '$2 == "insns-executed" || $2 == "stall-fetch" || $2 == "stall-read" { s += $3 } END { printf "%.0f", s }' "$1"; }
stall() { awk '$2 == "stall-fetch" || $2 == "stall-read" { s += $3 } END { printf "%.0f", s }' "$1"; }
# overhead ELF COUNTS: the instructions executed in ld's veneers and in Reset_Handler (which
# holds the copy loop), from the plugin's per-address counts
overhead() {
	arm-none-eabi-nm -S "$1" | python3 -c '
import sys
spans = []
for line in sys.stdin:
    f = line.split()
    if len(f) == 4 and (f[3].endswith("_veneer") or f[3] == "Reset_Handler"):
        lo = int(f[0], 16) & ~1
        spans.append((lo, lo + int(f[1], 16)))
n = 0
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 3 and not line.startswith(("#", "d ")):
        a = int(f[0], 16)
        if any(lo <= a < hi for lo, hi in spans):
            n += int(f[1])
print(n)' "$2"
}
# measure NAME ELF COUNTS: the cycles a run's work took. The FreeRTOS demo ends at a fixed tick
# under -icount, so every build of it executes the same number of instructions: a relink's
# veneers and copy loop take the place of idle-task instructions instead of adding to the
# count, and its total would hide them. Its measure is the flash-only build's instructions plus
# the run's stall plus what the run executed in veneers and Reset_Handler beyond the flash-only
# build: what the same work costs. Every other firmware does a fixed amount of work: its total.
measure() {
	if [ "$1" != freertos ]; then total "$3"; return; fi
	local flash=$work/freertos/flash
	echo $(($(awk '$2 == "insns-executed" { print $3 }' "$flash/counts.txt") + $(stall "$3") \
		+ $(overhead "$2" "$3") - $(overhead "$flash/fw.elf" "$flash/counts.txt")))
}

# relink NAME TAG FLASHDIR MODEL PLACE-ARGS...: places into $cell/TAG, relinks, checks, runs;
# prints "TOTAL STALL" or "- reason"
relink() {
	local name=$1 tag=$2 flash=$3 model=$4
	shift 4
	local d=$cell/$tag
	mkdir -p "$d/frag"
	if ! "$ramplace" place --quiet --map "$(fw_map "$name" "$flash")" -o "$d/frag/ramtext.ld" "$@" >"$d/place.log" 2>&1; then
		echo "- place: $(head -c 120 "$d/place.log" | tr '\n' ' ')"
		return 0
	fi
	if ! fw_build "$name" "$d/b" "$d/frag"; then
		echo "- build: $(grep -m1 -i error "$d/b/make.log" | head -c 120)"
		return 0
	fi
	if ! "$ramplace" check --allow-empty --plan "$d/frag/ramtext.ld.plan" "$d/b/fw.elf" >"$d/check.log" 2>&1; then
		echo "- check failed: $(grep -m1 -i fail "$d/check.log" | head -c 120)"
		return 0
	fi
	fw_run "$name" "$d/b/fw.elf" "$d/counts.txt" "$model"
	if ! cmp -s "$d/b/fw.elf.out" "$flash/fw.elf.out"; then
		echo "- output differs from the flash-only build's"
		return 0
	fi
	echo "$(measure "$name" "$d/b/fw.elf" "$d/counts.txt") $(stall "$d/counts.txt")"
}

ratio() { if [ "${1%% *}" = - ] || [ -z "$1" ]; then printf '%8s' -; else printf '%8.3f' "$(echo "${1%% *} / $2" | bc -l)"; fi; }

checks_failed=0 outputs_differ=0 c_worse=0 slower=0 cells=0
printf '%-9s %-44s %5s %8s %8s %8s %8s %10s  %s\n' firmware model KiB "(a)" "(b)" "(c)" "(d)" "c/b stall" flags
for name in ${FIRMWARE:-m3 riscv phasevm freertos}; do
	flash=$work/$name/flash
	if ! fw_build "$name" "$flash" "$work/none" 2>"$work/$name.err"; then
		echo "$name: the flash-only build failed: $(cat "$work/$name.err" "$flash/make.log" 2>/dev/null | grep -m1 -i error)"
		continue
	fi
	sampling=""
	fw_run "$name" "$flash/fw.elf" "$flash/counts.txt"
	"$ramplace" import --quiet "$flash/counts.db" "$flash/fw.elf" "$flash/counts.txt"
	# a long run is traced in 1,024 windows of 4,000 accesses (the plugin's trace-window=,
	# trace-period=; each window starts from what the flash held): a whole trace would take
	# gigabytes; 8 windows of 500,000 missed the phases where phasevm stalls, and 64 of 62,500
	# priced the FreeRTOS demo's relinks up to 62 % off (docs/layout.md)
	insns=$(awk '$2 == "insns-executed" { print $3 }' "$flash/counts.txt")
	if [ "$insns" -gt 4096000 ]; then   # a period of at least the window
		sampling=",trace-window=4000,trace-period=$((insns / 1024))"
		echo "$name: $insns instructions: traced in windows ($sampling)"
	fi
	for model in $models; do
		tag=${model//[:,=]/_}
		cell=$work/$name/$tag
		mkdir -p "$cell"
		fw_run "$name" "$flash/fw.elf" "$cell/flash.txt" "$model" "$cell/trace.txt"
		"$ramplace" import --quiet "$cell/model.db" "$flash/fw.elf" "$cell/flash.txt"
		base=$(measure "$name" "$flash/fw.elf" "$cell/flash.txt") base_stall=$(stall "$cell/flash.txt")
		d=$(relink "$name" d "$flash" "$model" --budget 0 --flash-model "$model" --trace "$cell/trace.txt" "$cell/model.db" "$flash/fw.elf")
		for kib in $budgets; do
			if [ "$kib" = 0 ]; then
				a="$base $base_stall" b="$base $base_stall" c=$d
			else
				a=$(relink "$name" "a$kib" "$flash" "$model" --budget "${kib}K" "$flash/counts.db" "$flash/fw.elf")
				b=$(relink "$name" "b$kib" "$flash" "$model" --budget "${kib}K" --flash-model "$model" "$cell/model.db" "$flash/fw.elf")
				c=$(relink "$name" "c$kib" "$flash" "$model" --budget "${kib}K" --flash-model "$model" --trace "$cell/trace.txt" "$cell/model.db" "$flash/fw.elf")
			fi
			flags=""
			cells=$((cells + 1))
			if [ "${c%% *}" != - ]; then
				for o in "$a" "$b"; do
					if [ "${o%% *}" != - ] && [ "${c%% *}" -gt "${o%% *}" ]; then flags="c>ab"; fi
				done
				[ -n "$flags" ] && c_worse=$((c_worse + 1))
				for o in "$c" "$d"; do
					if [ "${o%% *}" != - ] && [ "${o%% *}" -gt "$base" ]; then flags="$flags slow"; slower=$((slower + 1)); fi
				done
			fi
			cb=-
			if [ "${c%% *}" != - ] && [ "${b%% *}" != - ] && [ "${b#* }" -gt 0 ]; then
				cb=$(printf '%.3f' "$(echo "${c#* } / ${b#* }" | bc -l)")
			fi
			printf '%-9s %-44s %5s %s %s %s %s %10s  %s\n' "$name" "$model" "$kib" "$(ratio "$a" "$base")" "$(ratio "$b" "$base")" \
				"$(ratio "$c" "$base")" "$(ratio "$d" "$base")" "$cb" "$flags"
			for o in a b c; do
				eval "v=\$$o"
				case $v in "- check failed"*) checks_failed=$((checks_failed + 1)) ;;
				"- output differs"*) outputs_differ=$((outputs_differ + 1)) ;; esac
				if [ "${v%% *}" = - ]; then echo "    ($o) ${v#- }"; fi
			done
			[ "${d%% *}" = - ] && [ "$kib" = 0 ] && echo "    (d) ${d#- }"
		done
	done
done
echo "(a)-(d): total cycles (instructions + stall) of the relinked firmware over the flash-only build's, both"
echo "counted by the plugin under the row's model (freertos, which ends at a fixed tick: the flash-only"
echo "build's instructions + stall + the relink's veneer and copy-loop instructions); c/b stall: stall"
echo "cycles of (c) over (b)."
echo "cells $cells, (c) slower than (a) or (b): $c_worse, (c) or (d) slower than flash only: $slower," \
	"check failures: $checks_failed, outputs differing: $outputs_differ"
