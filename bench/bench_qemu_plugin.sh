#!/usr/bin/env bash
# bench_qemu_plugin.sh: the cost of exact counts from QEMU on the bundled Cortex-M3 interpreter
# firmware: its run time alone, under libramplace-qemu.so (mode=tb and mode=insn) and under
# `-d exec,nochain,in_asm` logging (baseline: what users do without the plugin), as ratios to
# the plain run, with the log's size; then the time `ramplace import` takes on each output.
#   bench/bench_qemu_plugin.sh [BUILD_DIR] [ITERATIONS]      (default build/, 60)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
iterations=${2:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make -s -C "$root/examples/qemu-cortex-m3" BUILD="$work/fw" ITERATIONS="$iterations" >/dev/null
elf=$work/fw/fw.elf
plugin=$build/libramplace-qemu.so

now() { date +%s.%N; }
run() { # extra args...: prints the wall-clock seconds of one run to the firmware's exit
	local t0
	t0=$(now)
	timeout 600 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -kernel "$elf" "$@" >/dev/null
	echo "$(now) - $t0" | bc -l
}
best() { # runs 3 times, prints the fastest
	local b="" t
	for _ in 1 2 3; do
		t=$(run "$@")
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}

alone=$(best)
tb=$(best -plugin "$plugin,out=$work/tb.txt")
insn=$(best -plugin "$plugin,out=$work/insn.txt,mode=insn")
log=$(run -d exec,nochain,in_asm -D "$work/exec.log")
insns=$(sed -n 's/^# insns-executed //p' "$work/tb.txt")
printf 'firmware alone:              %8.3f s  (%s guest instructions)\n' "$alone" "$insns"
printf 'plugin mode=tb:              %8.3f s  %6.2fx\n' "$tb" "$(echo "$tb / $alone" | bc -l)"
printf 'plugin mode=insn:            %8.3f s  %6.2fx\n' "$insn" "$(echo "$insn / $alone" | bc -l)"
printf -- '-d exec,nochain,in_asm log:  %8.3f s  %6.2fx  log %s MB\n' "$log" "$(echo "$log / $alone" | bc -l)" \
	"$(( $(stat -c %s "$work/exec.log") / 1000000 ))"
for f in tb.txt exec.log; do
	t0=$(now)
	"$build/ramplace" import --quiet "$work/$f.db" "$elf" "$work/$f"
	printf 'ramplace import %-9s     %8.3f s\n' "$f:" "$(echo "$(now) - $t0" | bc -l)"
done
