#!/usr/bin/env bash
# bench_runtime_overhead.sh: the cost of ramplace's target-side sampling runtime on the bundled
# Cortex-M3 firmware (make PROFILE_RUNTIME=1): its RAM (symbol sizes from the ELF) and the
# instructions one SysTick sample executes, counted by single-stepping 20 interrupts from the
# handler's first instruction to the exception return (gdb-multiarch against QEMU's gdbstub,
# -icount shift=0). QEMU does not model cycles: on silicon add the exception entry and exit
# (12 + 10 cycles on a Cortex-M3 with zero wait states, ARM's figures, not measured here).
#   bench/bench_runtime_overhead.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/qemu-lib.sh"
work=$(mktemp -d)
qemu_pid=""
trap 'stop_pid "$qemu_pid"; rm -rf "$work"' EXIT
make -s -C "$root/examples/qemu-cortex-m3" BUILD="$work/fw" PROFILE_RUNTIME=1 PROFILE_GMON= ITERATIONS=20 >/dev/null
elf=$work/fw/fw.elf

# RAM: the bins, the descriptor and the core's one word of state (local symbols included)
read -r bins desc state < <(arm-none-eabi-nm -S -t d "$elf" | awk '
	$4 == "bins" { b = $2 + 0 } $4 == "ramplace_profile" { d = $2 + 0 }
	$4 == "base_period" { s = $2 + 0 } END { print b, d, s }')
code=$(arm-none-eabi-nm -S -t d "$elf" | awk '$4 ~ /^(ramplace_profile_|profile_)/ && ($3 == "T" || $3 == "t") { n += $2 + 0 } END { print n }')

port=$(free_port)
qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
	-semihosting-config enable=on,target=native -icount shift=0 \
	-gdb "tcp:127.0.0.1:$port" -S -kernel "$elf" >/dev/null 2>&1 &
qemu_pid=$!
wait_port "$port" 10
cat >"$work/steps.gdb" <<'GDB'
set pagination off
set confirm off
break ramplace_profile_systick_handler
set $h = (unsigned int)&ramplace_profile_systick_handler & ~1
set $total = 0
set $k = 0
while $k < 20
  continue
  set $ret = *(unsigned int *)($sp + 24)
  stepi
  set $n = 1
  while $pc != $ret && $pc != $h && $n < 1000
    stepi
    set $n = $n + 1
  end
  printf "STEPS %d\n", $n
  set $k = $k + 1
end
delete
kill
GDB
timeout 120 gdb-multiarch -batch -nx -ex "target remote 127.0.0.1:$port" -x "$work/steps.gdb" "$elf" \
	>"$work/gdb.log" 2>&1 || true
stop_pid "$qemu_pid"
qemu_pid=""
read -r n mean min max < <(awk '/^STEPS/ { s += $2; n++; if (!min || $2 < min) min = $2; if ($2 > max) max = $2 }
	END { printf "%d %.1f %d %d\n", n, n ? s / n : 0, min, max }' "$work/gdb.log")
if [ "$n" -lt 20 ]; then
	echo "bench_runtime_overhead: single-stepping failed:" >&2
	tail -20 "$work/gdb.log" >&2
	exit 1
fi
printf 'runtime RAM: %d bytes of bins (%d x 2) + %d bytes descriptor + %d bytes state = %d bytes; code %d bytes\n' \
	"$bins" $((bins / 2)) "$desc" "$state" $((bins + desc + state)) "$code"
printf 'instructions per sample (SysTick handler to exception return, %d interrupts): mean %s, min %d, max %d\n' \
	"$n" "$mean" "$min" "$max"
printf 'at the example'"'"'s 10 us interval (25 MHz SysTick, 250 cycles; 10000 instructions under -icount shift=0): %.2f%% of the instructions in QEMU; on a Cortex-M3 at 25 MHz about %.0f%% (%.0f instructions + 22 cycles entry/exit of 250)\n' \
	"$(echo "$mean / 10000 * 100" | bc -l)" "$(echo "($mean + 22) / 250 * 100" | bc -l)" "$mean"
printf 'at a 1 kHz rate on a 25 MHz Cortex-M3: about %.2f%%\n' "$(echo "($mean + 22) / 25000 * 100" | bc -l)"
