#!/usr/bin/env bash
# t_annotate.sh: `ramplace annotate` on the example firmware. A placement (imported profile:
# global, static and same-named static functions plus newlib's memcpy) is turned into a patch;
# it applies with `git apply` and with `patch -p1` on a copy of the tree; a build of the
# annotated sources with the EMPTY fragment puts every annotated function in .ramtext (checked
# with `ramplace check`, whose only failures are the functions annotate said it left to the
# fragment), the other static fold stays in flash, and the firmware prints the same. Annotating
# again is a no-op.
# Needs: $RAMPLACE, $RAMPLACE_SRC; git, patch, arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"

tree() { # DIR: a copy of the parts of the repository the example build needs, as a git repo
	mkdir -p "$1/examples"
	cp -r "$RAMPLACE_SRC/make" "$1/"
	cp -r "$RAMPLACE_SRC/examples/qemu-cortex-m3" "$1/examples/"
	rm -rf "$1/examples/qemu-cortex-m3/build"
	git -C "$1" init -q
	git -C "$1" add -A
	git -C "$1" -c user.name=t -c user.email=t@t commit -qm base
}
tree "$work/src"
mk() { make -s -C "$1/examples/qemu-cortex-m3" BUILD="$2" ITERATIONS=40 RAMPLACE="$RAMPLACE" >/dev/null; }
mk "$work/src" "$work/flash"
run_fw "$work/flash/fw.elf" >"$work/flash.out"

: >"$work/pcs.txt"
for fn in vm_run op_add crc32_update compare_records memcpy; do
	printf '0x%s 100\n' "$(nm_addr "$work/flash/fw.elf" "$fn")" >>"$work/pcs.txt"
done
# main.c's static fold, not records.c's (nm -l names the source line)
fold_main=$(arm-none-eabi-nm -l "$work/flash/fw.elf" | awk '$3 == "fold" && /main\.c/ && !f { print $1; f = 1 }')
printf '0x%s 100\n' "$fold_main" >>"$work/pcs.txt"
"$RAMPLACE" import --quiet "$work/p.db" "$work/flash/fw.elf" "$work/pcs.txt"
"$RAMPLACE" place --quiet --budget 2K --map "$work/flash/fw.map" -o "$work/ramtext.ld" "$work/p.db" "$work/flash/fw.elf"

"$RAMPLACE" annotate --plan "$work/ramtext.ld.plan" --root "$work/src" -o "$work/ram.patch" "$work/flash/fw.elf" 2>"$work/annotate.err"
nann=$(grep -c '^annotated: ' "$work/annotate.err" || true)
if [ "$nann" -ge 5 ] && grep -q '^left to the linker fragment: memcpy: no debug information' "$work/annotate.err"; then
	pass "$nann definitions annotated, memcpy left to the fragment"
else
	fail "annotate said:"; cat "$work/annotate.err"
fi
if grep -q '^+RAMPLACE_RAMFUNC(op_add) static int op_add(struct vm \*vm)$' "$work/ram.patch" &&
   grep -q '^+#include "ramplace_ramfunc.h"$' "$work/ram.patch" &&
   grep -q '^+++ b/examples/qemu-cortex-m3/ramplace_ramfunc.h$' "$work/ram.patch" &&
   grep -q 'section(".ramtext." #name), noinline, noclone' "$work/ram.patch"; then
	pass "patch marks definitions, includes and creates the header"
else
	fail "patch content:"; cat "$work/ram.patch"
fi

tree "$work/p1"
if (cd "$work/p1" && patch -p1 --quiet <"$work/ram.patch"); then pass "applies with patch -p1"; else fail "patch -p1"; fi
if (cd "$work/src" && git apply --check "$work/ram.patch" && git apply "$work/ram.patch"); then pass "applies with git apply"; else fail "git apply"; fi
if diff -r -x .git "$work/src" "$work/p1" >/dev/null; then pass "both give the same tree"; else fail "trees differ"; fi

mk "$work/src" "$work/attr"
if grep -q "empty placement" "$work/attr/ramtext.ld"; then pass "annotated build links with the empty fragment"; else fail "fragment not empty"; fi
"$RAMPLACE" check --plan "$work/ramtext.ld.plan" "$work/attr/fw.elf" >"$work/check.out" 2>&1 || true
left=$(sed -n 's/^left to the linker fragment: \([^:]*\):.*/\1/p' "$work/annotate.err" | sort | tr '\n' ' ')
failing=$(sed -n "s/^'\([^']*\)'.* not in .ramtext.*/\1/p" "$work/check.out" | sort | tr '\n' ' ')
nplaced=$(sed -n 's/^check: \([0-9]*\) of [0-9]* functions.*/\1/p' "$work/check.out")
if [ "$left" = "$failing" ] && [ "${nplaced:-0}" -ge 5 ]; then
	pass "check: the $nplaced annotated functions are in .ramtext; only '$failing' (left to the fragment) is not"
else
	fail "check after annotation (left '$left', failing '$failing'):"; cat "$work/check.out"
fi
folds=$(arm-none-eabi-nm "$work/attr/fw.elf" | awk '$3 == "fold" { print substr($1, 1, 4) }' | sort | tr '\n' ' ')
if [ "$folds" = "0000 2000 " ]; then pass "one static fold in RAM, the other in flash"; else fail "folds at '$folds'"; fi
run_fw "$work/attr/fw.elf" >"$work/attr.out"
if cmp -s "$work/flash.out" "$work/attr.out"; then pass "annotated firmware prints the same"; else fail "output differs"; fi

# the DWARF of the annotated build matches the annotated sources' lines
"$RAMPLACE" annotate --plan "$work/ramtext.ld.plan" --root "$work/src" -o "$work/again.patch" "$work/attr/fw.elf" 2>"$work/again.err"
if [ ! -s "$work/again.patch" ] && grep -q "already annotated" "$work/again.err"; then pass "annotating again changes nothing"; else fail "second annotate:"; cat "$work/again.patch"; fi

status=0
"$RAMPLACE" annotate --plan "$work/ramtext.ld.plan" --macro 'bad macro' "$work/flash/fw.elf" >/dev/null 2>"$work/bad.err" || status=$?
if [ "$status" -eq 2 ] && grep -q "is not a C identifier" "$work/bad.err"; then pass "a bad --macro is refused"; else fail "bad macro: $status"; fi
finish
