#!/usr/bin/env bash
# t_ramdata_riscv.sh: hot const data to the DTIM on the RISC-V example (QEMU sifive_e, FE310-like
# XIP flash; issue 14 item 4). Its linker script has a .ramdata section copied by _start. The
# QEMU plugin measures stall cycles under ws:5 (RISC-V has no literal pools, so the data weights
# can only come from it); `place --data` at 2 KiB moves the interpreter's `handlers` table with
# the hot code; the relink passes `check` given only the code fragment (the code plan names its
# data plan), keeps `handlers` in the DTIM, prints the same output as the flash build, and the
# relinked firmware's own exact run under the same model loses at least 95 % of the data read
# stall cycles the plan moved. The first build links with the empty ramdata.ld the Makefile makes.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; riscv64-unknown-elf-gcc, qemu-system-riscv32.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/sifive-e-riscv
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
build() { make_fw "$ex" "$1" ITERATIONS=5 "${@:2}"; } # DIR [make args...]
rv() { # ELF [QEMU ARGS...]: the firmware's console output on stdout
	timeout 60 qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
		-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi -kernel "$@" </dev/null
}
model="model=ws:5,flash=20000000-20800000"
header() { awk -v k="$2" '$1 == "#" && $2 == k { print $3 }' "$1"; }

build "$work/flash"
grep -q 'empty placement' "$work/flash/ramdata.ld" && pass "first build: an empty ramdata.ld" || fail "no empty ramdata.ld"
rv "$work/flash/fw.elf" >"$work/flash.out" 2>&1 || fail "flash-only firmware fails"
rv "$work/flash/fw.elf" -plugin "$plugin,out=$work/flash.txt,$model" >/dev/null 2>&1 || fail "plugin run"
"$RAMPLACE" import --quiet "$work/p.db" "$work/flash/fw.elf" "$work/flash.txt" || fail "import"
mkdir -p "$work/out"
"$RAMPLACE" place --data --budget 2K --map "$work/flash/fw.map" -o "$work/out/ramtext.ld" "$work/p.db" \
	"$work/flash/fw.elf" >"$work/place.out" || { cat "$work/place.out"; fail "place --data"; finish; }
grep -q '^object handlers interp.c$' "$work/out/ramdata.ld.plan" && pass "handlers in the data plan" ||
	{ cat "$work/place.out"; fail "handlers not in the data plan"; }

build "$work/ram" RAMTEXT_LD="$work/out/ramtext.ld"
"$RAMPLACE" check -f "$work/out/ramtext.ld" "$work/ram/fw.elf" >"$work/check.out" &&
	grep -q '^check: [1-9][0-9]* data objects\? in .ramdata' "$work/check.out" &&
	pass "check verifies .ramtext and .ramdata from the code fragment" || { cat "$work/check.out"; fail "check"; }
addr=$(riscv64-unknown-elf-nm "$work/ram/fw.elf" | awk '$3 == "handlers" { print $1; exit }')
[ -n "$addr" ] && [ "$((0x$addr >= 0x80000000 && 0x$addr < 0x80004000))" -eq 1 ] &&
	pass "handlers is read from the DTIM (0x$addr)" || fail "handlers at 0x$addr"
rv "$work/ram/fw.elf" >"$work/ram.out" 2>&1 || fail "relinked firmware fails"
cmp -s "$work/flash.out" "$work/ram.out" && grep -q 'result: *ok' "$work/ram.out" &&
	pass "output identical to the flash-only build" || { diff "$work/flash.out" "$work/ram.out" | head; fail "output differs"; }

# the relinked firmware's own exact counts: its data read stall fell by what the plan moved
rv "$work/ram/fw.elf" -plugin "$plugin,out=$work/ram.txt,$model" >/dev/null 2>&1 || fail "plugin run on the relink"
before=$(header "$work/flash.txt" stall-read) after=$(header "$work/ram.txt" stall-read)
moved=$(awk '$1 == "samples" { print $3 }' "$work/out/ramdata.ld.plan")
[ -n "$moved" ] && [ "$moved" -gt 0 ] && [ $((before - after)) -ge $((moved * 95 / 100)) ] &&
	pass "measured: data read stall $before -> $after cycles, the plan moved $moved" ||
	fail "data read stall $before -> $after, planned $moved"
finish
