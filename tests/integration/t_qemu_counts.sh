#!/usr/bin/env bash
# t_qemu_counts.sh: exact instruction counts from QEMU. Runs tests/data/qemu-counts/fw.elf, a
# firmware whose per-function instruction counts are known by construction (fw.S: 45, 3020,
# 160 and 9, one function straddling page boundaries), under libramplace-qemu.so in both modes
# and with -d exec,nochain,in_asm, imports each and requires exactly those counts. Then runs
# the example interpreter firmware once under the plugin and once with the log and requires
# identical per-function counts from both importers.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; qemu-system-arm, arm-none-eabi-gcc, python3.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
tmp=$work
cd "$tmp"
fw_timeout=120   # run_fw ELF EXTRA-ARGS...: to the firmware's semihosting exit, at most 120 s
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
fw=$RAMPLACE_SRC/tests/data/qemu-counts/fw.elf
counts() { # DB: "function count" lines, sorted
	"$RAMPLACE" report --json - "$1" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]:
    print(f["name"], round(f["self"]))' | sort
}
expected=$'Reset_Handler 45\nloop_a 3020\nloop_b 160\nstraddle 9'

for mode in tb insn; do
	run_fw "$fw" -plugin "$plugin,out=$tmp/$mode.txt,mode=$mode" >/dev/null
	"$RAMPLACE" import --quiet "$mode.db" "$fw" "$mode.txt"
	got=$(counts "$mode.db")
	if [ "$got" = "$expected" ]; then pass "plugin mode=$mode: counts known by construction"
	else fail "plugin mode=$mode: got"$'\n'"$got"; fi
done
# with their bytes in memory order (file version 2): adds r0, r1 (0x1840) ending the page at 0x1000,
# and add.w r1, r1, r2 (eb01 0102) straddling the boundary at 0x1400
if grep -q "^# insns-executed 3234$" tb.txt && grep -qx "ffe 1 4018" tb.txt && grep -qx "13fe 1 01eb0201" tb.txt; then
	pass "plugin file: 3234 instructions, the page-end instructions at their own addresses, with their bytes"
else fail "plugin file header or page-end addresses wrong"; fi

run_fw "$fw" -d exec,nochain,in_asm -D "$tmp/exec.log" >/dev/null
"$RAMPLACE" import --quiet log.db "$fw" exec.log
got=$(counts log.db)
if [ "$got" = "$expected" ]; then pass "-d exec,nochain,in_asm log: counts known by construction"
else fail "-d exec log: got"$'\n'"$got"; fi
tool=$(sqlite3 log.db "select tool || ' ' || method from runs")
if [ "$tool" = "import:qemu-log exact" ]; then pass "log detected as qemu-log, method exact"; else fail "run says '$tool'"; fi

# the example firmware: plugin and log agree function by function
make -s -C "$RAMPLACE_SRC/examples/qemu-cortex-m3" BUILD="$tmp/ex" ITERATIONS=1 >/dev/null
run_fw "$tmp/ex/fw.elf" -plugin "$plugin,out=$tmp/ex.txt" >ex-plugin.out
run_fw "$tmp/ex/fw.elf" -d exec,nochain,in_asm -D "$tmp/ex.log" >ex-log.out
"$RAMPLACE" import --quiet ex1.db "$tmp/ex/fw.elf" ex.txt
"$RAMPLACE" import --quiet ex2.db "$tmp/ex/fw.elf" ex.log
counts ex1.db >c1.txt
counts ex2.db >c2.txt
if cmp -s ex-plugin.out ex-log.out && cmp -s c1.txt c2.txt && [ "$(wc -l <c1.txt)" -gt 20 ]; then
	pass "example firmware: plugin and -d exec log give the same counts for $(wc -l <c1.txt) functions"
else fail "example firmware: plugin and log differ"; diff c1.txt c2.txt | head; fi

finish
