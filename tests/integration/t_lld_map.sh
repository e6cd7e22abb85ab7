#!/usr/bin/env bash
# t_lld_map.sh: an ld.lld build placed from ld.lld's own map (issue 24 item 6). The bundled
# Cortex-M3 firmware is linked by ld.lld (LINKER=lld) with -Map; its exact counts (QEMU plugin)
# are placed at 1 KiB with that map (map_lld.c reads lld's format: alignments from its Align
# column, archive members), so library code (newlib's memcmp, strlen: plain .text of libg.a
# members) can move; the plan is made for lld (its 12-byte thunks) because the map says lld
# linked it; the fragment, emitted for lld, is linked by lld, `check` passes and the firmware
# prints what it printed. Before, `place --map` refused lld's map ("not a GNU ld map").
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, ld.lld, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
cd "$work"
make_fw "$ex" "$work/flash" LINKER=lld ITERATIONS=40
check "ld.lld wrote the map in its own format" grep -Eq '^ +VMA +LMA +Size +Align +Out +In +Symbol' "$work/flash/fw.map"
run_fw "$work/flash/fw.elf" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt" >flash.out
"$RAMPLACE" import --quiet p.db "$work/flash/fw.elf" counts.txt
mkdir plan
if "$RAMPLACE" place --budget 1K --map "$work/flash/fw.map" -o plan/ramtext.ld p.db "$work/flash/fw.elf" >place.out 2>&1; then
	pass "place reads ld.lld's map"
else
	cat place.out; fail "place with ld.lld's map"; finish
fi
check "library code moves by its archive member ($(grep -c '^pattern \*/lib' plan/ramtext.ld.plan) pattern(s))" \
	grep -Eq '^pattern \*/lib[a-z_]*\.a:lib_a-(memcmp|strlen|memcpy)\.o\(\.text\)$' plan/ramtext.ld.plan
"$RAMPLACE" emit --format lld --plan plan/ramtext.ld.plan -o plan/ramtext-lld.ld
make_fw "$ex" "$work/ram" LINKER=lld ITERATIONS=40 RAMTEXT_LD="$work/plan/ramtext-lld.ld"
if "$RAMPLACE" check --plan plan/ramtext.ld.plan "$work/ram/fw.elf" >check.out 2>&1; then
	pass "check passes on the ld.lld relink: $(grep '^accounting' check.out)"
else
	cat check.out; fail "check on the ld.lld relink"
fi
run_fw "$work/ram/fw.elf" >ram.out
check "the relinked firmware prints the same ($(wc -c <flash.out) bytes)" cmp -s flash.out ram.out
finish
