#!/usr/bin/env bash
# t_card_line.sh: the README's usage line, run exactly as written (taken from README.md) on the
# bundled Cortex-M3 firmware with an exact profile (the QEMU plugin's counts), no link map: it
# exits 0 and says what --map would add; the guessed fragment links with GNU ld and, emitted for
# it, with ld.lld; `ramplace check` passes on both links; the hottest function sits in RAM; a
# static of the same name in two files moves with its namesake (one name pattern moves both);
# both relinked firmwares print what the flash build prints; and the same for a firmware whose
# own objects have no debug information while newlib's libg.a has some (a port's build).
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, ld.lld, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
mk() { make -s -C "$ex" ITERATIONS=40 "$@" >/dev/null; }

line=$(grep -m1 -E '^ramplace --budget 96K profile\.db firmware\.elf( |$)' "$RAMPLACE_SRC/README.md" | sed 's/ *#.*//')
if [ -n "$line" ]; then pass "README's usage line: $line"; else fail "README.md has no line 'ramplace --budget 96K profile.db firmware.elf'"; finish; fi

mk BUILD="$work/flash"
run_fw "$work/flash/fw.elf" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt" >"$work/flash.out"
mkdir "$work/card"
cp "$work/flash/fw.elf" "$work/card/firmware.elf"
"$RAMPLACE" import --quiet "$work/card/profile.db" "$work/card/firmware.elf" "$work/counts.txt"

# the line itself, with the binary under test for "ramplace"
status=0
(cd "$work/card" && eval "\"\$RAMPLACE\" ${line#ramplace }") >"$work/card.out" 2>"$work/card.err" || status=$?
if [ "$status" -eq 0 ] && [ -s "$work/card/ramtext.ld" ] && [ -s "$work/card/ramtext.ld.plan" ]; then
	pass "the usage line exits 0 and writes ramtext.ld and its plan"
else
	fail "the usage line: exit $status: $(cat "$work/card.err")"; finish
fi
check "the note says what --map adds" grep -q 'no --map: .*gives exact archive members.*statics of the same name' "$work/card.err"
check "library code without its own section is left in flash, and said so" \
	grep -q 'sampled function(s) with .* stay in flash: no name pattern can move them' "$work/card.err"

# GNU ld
mk BUILD="$work/gnu" RAMTEXT_LD="$work/card/ramtext.ld"
if "$RAMPLACE" check --plan "$work/card/ramtext.ld.plan" "$work/gnu/fw.elf" >"$work/gnu.check" 2>&1; then
	pass "check passes on the GNU ld link: $(grep accounting "$work/gnu.check")"
else
	fail "check on the GNU ld link:"; cat "$work/gnu.check"
fi
case "$(nm_addr "$work/gnu/fw.elf" vm_run)" in 2000*) pass "vm_run (the hottest) runs from RAM" ;; *) fail "vm_run not in RAM" ;; esac
# fold is a static in main.c and in records.c: the guessed pattern *(.text.fold) moves both
folds=$(arm-none-eabi-nm "$work/gnu/fw.elf" | awk '$3 == "fold" { print substr($1, 1, 4) }' | sort -u | tr '\n' ' ')
if [ "$(arm-none-eabi-nm "$work/gnu/fw.elf" | awk '$3 == "fold"' | wc -l)" -eq 2 ] && [ "$(wc -w <<<"$folds")" -eq 1 ]; then
	pass "both statics named fold are on the same side ($folds)"
else
	fail "the two fold functions are split: $folds"
fi
run_fw "$work/gnu/fw.elf" >"$work/gnu.out"
check "GNU ld relink prints the same" cmp -s "$work/flash.out" "$work/gnu.out"

# ld.lld: a firmware linked by ld.lld, its own exact profile, the same line; the plan reserves
# lld's thunks (the ELF's .comment names the linker), emitted as an lld fragment
mk BUILD="$work/lldflash" LINKER=lld
run_fw "$work/lldflash/fw.elf" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/lldcounts.txt" >/dev/null
mkdir "$work/lldcard"
cp "$work/lldflash/fw.elf" "$work/lldcard/firmware.elf"
"$RAMPLACE" import --quiet "$work/lldcard/profile.db" "$work/lldcard/firmware.elf" "$work/lldcounts.txt"
status=0
(cd "$work/lldcard" && eval "\"\$RAMPLACE\" ${line#ramplace }") >"$work/lldcard.out" 2>"$work/lldcard.err" || status=$?
check "the usage line on the ld.lld firmware exits 0" [ "$status" -eq 0 ]
"$RAMPLACE" emit --format lld --plan "$work/lldcard/ramtext.ld.plan" -o "$work/lld.ld"
mk BUILD="$work/lld" LINKER=lld RAMTEXT_LD="$work/lld.ld"
if "$RAMPLACE" check --plan "$work/lldcard/ramtext.ld.plan" "$work/lld/fw.elf" >"$work/lld.check" 2>&1; then
	pass "check passes on the ld.lld link: $(grep accounting "$work/lld.check")"
else
	fail "check on the ld.lld link:"; cat "$work/lld.check"
fi
case "$(nm_addr "$work/lld/fw.elf" vm_run)" in 2000*) pass "ld.lld: vm_run runs from RAM" ;; *) fail "ld.lld: vm_run not in RAM" ;; esac
run_fw "$work/lld/fw.elf" >"$work/lld.out"
check "ld.lld relink prints the same" cmp -s "$work/flash.out" "$work/lld.out"

# built as a port builds it: the firmware's own objects without debug information, newlib's
# libg.a (linked under -g) with some. The functions no DWARF covers are guessed as in an ELF
# without any; refused, they kept everything in flash (issue 22: "moved nothing"); newlib's
# assembly memcpy (a unit of GNU as, no section of its own) stays refused.
mk BUILD="$work/port" EXTRA_CFLAGS=-g0
run_fw "$work/port/fw.elf" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/portcounts.txt" >/dev/null
mkdir "$work/portcard"
cp "$work/port/fw.elf" "$work/portcard/firmware.elf"
"$RAMPLACE" import --quiet "$work/portcard/profile.db" "$work/portcard/firmware.elf" "$work/portcounts.txt"
status=0
(cd "$work/portcard" && eval "\"\$RAMPLACE\" ${line#ramplace }") >"$work/portcard.out" 2>"$work/portcard.err" || status=$?
moved=$(grep -c '^unit ' "$work/portcard/ramtext.ld.plan" || true)
check "without -g in the firmware's objects the line moves functions ($moved) and warns that they are guessed" \
	sh -c "[ $status -eq 0 ] && [ $moved -ge 10 ] && grep -Eq 'no debug information for ([0-9]+ moved function|some moved functions)' '$work/portcard.err'"
mk BUILD="$work/portram" EXTRA_CFLAGS=-g0 RAMTEXT_LD="$work/portcard/ramtext.ld"
if "$RAMPLACE" check --plan "$work/portcard/ramtext.ld.plan" "$work/portram/fw.elf" >"$work/port.check" 2>&1; then
	pass "check passes on the port-style link: $(grep accounting "$work/port.check")"
else
	fail "check on the port-style link:"; cat "$work/port.check"
fi
case "$(nm_addr "$work/portram/fw.elf" vm_run)" in 2000*) pass "port-style: vm_run runs from RAM" ;; *) fail "port-style: vm_run not in RAM" ;; esac
run_fw "$work/portram/fw.elf" >"$work/portram.out"
check "port-style relink prints the same" cmp -s "$work/flash.out" "$work/portram.out"
finish
