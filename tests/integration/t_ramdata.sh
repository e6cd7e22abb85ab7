#!/usr/bin/env bash
# t_ramdata.sh: hot const data moves to .ramdata on the bundled Cortex-M3 firmware (issue 14
# item 4). Exact counts from the QEMU plugin, `place --data`: the interpreter's dispatch table
# `handlers` (const, -fdata-sections, read on every VM step) moves beside the hot code in one
# 1 KiB budget; the relink passes `check` on both plans, `handlers` runs from RAM and the
# firmware's output is byte-identical to the flash-only build. Negative: the writable crc_table
# (read by hot crc32_update) is kept with its reason; built without -fdata-sections, `handlers`
# shares .rodata and is kept with that reason; a link that left the data in flash fails check.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
build() { make_fw "$ex" "$1" ITERATIONS=20 RAMPLACE="$RAMPLACE" "${@:2}"; } # DIR [make args...]
mkdir -p "$work/out" "$work/nods"

build "$work/flash"
run_fw "$work/flash/fw.elf" >"$work/flash.out" || fail "flash-only firmware fails"
run_fw "$work/flash/fw.elf" -plugin "$plugin,out=$work/counts.txt" >/dev/null || fail "plugin run fails"
"$RAMPLACE" import --quiet "$work/p.db" "$work/flash/fw.elf" "$work/counts.txt" || fail "import"

"$RAMPLACE" place --data --budget 1K --map "$work/flash/fw.map" -o "$work/out/ramtext.ld" "$work/p.db" \
	"$work/flash/fw.elf" >"$work/place.out" || { cat "$work/place.out"; fail "place --data"; }
grep -q '^object handlers interp.c$' "$work/out/ramdata.ld.plan" && pass "handlers in the data plan" ||
	{ cat "$work/place.out"; fail "handlers not in the data plan"; }
grep -q '^kind data$' "$work/out/ramdata.ld.plan" && pass "the data plan says kind data" || fail "no kind data"
grep -q 'interp.o(.rodata.handlers)$' "$work/out/ramdata.ld" && pass "ramdata.ld moves .rodata.handlers" ||
	fail "no .rodata.handlers pattern in ramdata.ld"
grep -q '^kept in flash (data): crc_table (crc32.c): writable, not const' "$work/place.out" &&
	pass "writable crc_table kept, with its reason" || fail "no kept line for crc_table"
# code and data share the budget: .ramtext's plan has what the data left
data_used=$(awk '$1 == "used" { print $2 }' "$work/out/ramdata.ld.plan")
code_budget=$(awk '$1 == "budget" { print $2 }' "$work/out/ramtext.ld.plan")
[ "$data_used" -gt 0 ] && [ $((data_used + code_budget)) -eq 1024 ] &&
	pass "one budget: $code_budget code + $data_used data = 1024" || fail "budget not shared: $code_budget + $data_used"

build "$work/ram" RAMTEXT_LD="$work/out/ramtext.ld"
"$RAMPLACE" check --plan "$work/out/ramtext.ld.plan" --plan "$work/out/ramdata.ld.plan" "$work/ram/fw.elf" \
	>"$work/check.out" && pass "check passes on code and data plans" || { cat "$work/check.out"; fail "check"; }
grep -q '^check: [1-9][0-9]* data objects\? in .ramdata' "$work/check.out" && pass "check counted the data objects" ||
	fail "no data line in check's output"
addr=$(nm_addr "$work/ram/fw.elf" handlers)
[ "$((0x$addr >= 0x20000000))" -eq 1 ] && pass "handlers runs from RAM (0x$addr)" || fail "handlers at 0x$addr"
run_fw "$work/ram/fw.elf" >"$work/ram.out" || fail "relinked firmware fails"
cmp -s "$work/flash.out" "$work/ram.out" && pass "output byte-identical to the flash-only build" ||
	{ diff "$work/flash.out" "$work/ram.out" | head; fail "output differs"; }

# the data plan against a link that left the data in flash: check fails naming the object
status=0
"$RAMPLACE" check -q --plan "$work/out/ramdata.ld.plan" "$work/flash/fw.elf" >"$work/stale.out" || status=$?
[ "$status" -eq 1 ] && grep -q "^data object 'handlers' is at 0x[0-9a-f]*, not in .ramdata" "$work/stale.out" &&
	pass "check fails on data left in flash" || { cat "$work/stale.out"; fail "check on stale link: $status"; }

# without -fdata-sections the table shares its object's .rodata: it cannot move alone
build "$work/nods" EXTRA_CFLAGS=-fno-data-sections
"$RAMPLACE" place --data --budget 1K --map "$work/nods/fw.map" -o "$work/nods/out.ld" "$work/p.db" \
	"$work/nods/fw.elf" --force >"$work/nods.out" 2>&1 || { cat "$work/nods.out"; fail "place without -fdata-sections"; }
grep -q '^kept in flash (data): handlers (interp.c): its input section .rodata is shared (compile with -fdata-sections)' \
	"$work/nods.out" && pass "without -fdata-sections handlers is kept, with the reason" ||
	{ cat "$work/nods.out"; fail "no -fdata-sections reason"; }
grep -q '^object ' "$work/nods/ramdata.ld.plan" && fail "data moved without -fdata-sections" ||
	pass "nothing moved without -fdata-sections"
finish
