#!/usr/bin/env bash
# t_emit_dialects.sh: `ramplace emit` from one plan of the example firmware (made from a GNU ld
# build's map): the lld fragment links the firmware with LLVM's ld.lld (LINKER=lld in the
# example Makefile), `ramplace check` passes on that ELF and it prints the same; the ESP-IDF
# fragment and the Zephyr relocation lines name the planned functions the way those tools
# expect; a hostile plan is refused with the file and line, nothing written.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc, ld.lld, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
mk() { make -s -C "$ex" ITERATIONS=40 RAMPLACE="$RAMPLACE" "$@" >/dev/null; }

mk BUILD="$work/gnu"
run_fw "$work/gnu/fw.elf" >"$work/gnu.out"
: >"$work/pcs.txt"
for fn in vm_run op_add crc32_update compare_records memcpy; do
	printf '0x%s 100\n' "$(nm_addr "$work/gnu/fw.elf" "$fn")" >>"$work/pcs.txt"
done
"$RAMPLACE" import --quiet "$work/p.db" "$work/gnu/fw.elf" "$work/pcs.txt"
"$RAMPLACE" place --quiet --budget 2K --map "$work/gnu/fw.map" -o "$work/ramtext.ld" "$work/p.db" "$work/gnu/fw.elf"

"$RAMPLACE" emit --format lld --plan "$work/ramtext.ld.plan" -o "$work/lld.ld"
mk BUILD="$work/lld" LINKER=lld RAMTEXT_LD="$work/lld.ld"
if grep -q "LLD" < <(arm-none-eabi-readelf -p .comment "$work/lld/fw.elf"); then pass "linked by ld.lld"; else fail "not an lld link"; fi
if "$RAMPLACE" check --plan "$work/ramtext.ld.plan" "$work/lld/fw.elf" >"$work/lld.check" 2>&1; then
	pass "check passes on the ld.lld link: $(cat "$work/lld.check")"
else
	fail "check on the lld link:"; cat "$work/lld.check"
fi
run_fw "$work/lld/fw.elf" >"$work/lld.out"
if cmp -s "$work/gnu.out" "$work/lld.out"; then pass "ld.lld firmware prints the same"; else fail "lld output differs"; fi

# the same link with the objects named without a directory (the link run in the build folder),
# as a build that calls the linker from where its objects are does: lld matches a file pattern
# against the name the link gave, so "*/interp.o" alone left them in flash (issue 37, item 4)
objs=$(cd "$work/lld" && ls -- *.o)
if (cd "$work/lld" && arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -g --specs=rdimon.specs -nostartfiles -Wl,--gc-sections \
	-T "$ex/mps2-an385.ld" -Wl,--build-id=sha1 -L. -Blld/ -fuse-ld=lld $objs -o nodir.elf) 2>"$work/nodir.err"; then
	if "$RAMPLACE" check --plan "$work/ramtext.ld.plan" "$work/lld/nodir.elf" >"$work/nodir.check" 2>&1; then
		pass "ld.lld with objects named without a directory: check passes"
	else
		fail "ld.lld with objects named without a directory:"; cat "$work/nodir.check"
	fi
else
	fail "relink with objects named without a directory"; cat "$work/nodir.err"
fi

# the example links objects directly and newlib's archive: ESP-IDF's ldgen takes neither (it maps
# the components' archives), so each is a comment with its reason and emit warns; the real ldgen
# on component archives is t_espidf_ldgen.sh
"$RAMPLACE" emit --format esp-idf --plan "$work/ramtext.ld.plan" -o "$work/ram.lf" 2>"$work/lf.err"
if ! grep -q '^\[mapping:' "$work/ram.lf" &&
   grep -q '^# no ESP-IDF entry for .*vm_run.*: an object linked directly' "$work/ram.lf" &&
   grep -q "^# no ESP-IDF entry for .*libg.a:lib_a-memcpy.o.*: a member of an archive the build did not compile" "$work/ram.lf" &&
   grep -q "have no ESP-IDF form .*place --dialect esp-idf" "$work/lf.err"; then
	pass "ESP-IDF: objects linked directly and newlib have no entry, each said why, and emit warns"
else
	fail "ESP-IDF fragment:"; cat "$work/ram.lf" "$work/lf.err"
fi

"$RAMPLACE" emit --format zephyr --elf "$work/gnu/fw.elf" --plan "$work/ramtext.ld.plan" -o "$work/reloc.cmake"
if grep -q "^zephyr_code_relocate(FILES $ex/interp.c\$" "$work/reloc.cmake" &&
   grep -q '^  FILTER "^(\[.\]text\[.\]op_add|\[.\]text\[.\]vm_run)\$"$' "$work/reloc.cmake" &&
   grep -q '^  LOCATION RAM_TEXT)$' "$work/reloc.cmake" && grep -q '^# not relocatable by source file: .*memcpy' "$work/reloc.cmake"; then
	pass "Zephyr relocation lines with source paths from DWARF"
else
	fail "Zephyr lines:"; cat "$work/reloc.cmake"
fi
# the lines as CMake parses them, with a stand-in for Zephyr's function
printf 'function(zephyr_code_relocate)\n  message("relocate: ${ARGN}")\nendfunction()\ninclude("%s")\n' "$work/reloc.cmake" >"$work/parse.cmake"
cmake -P "$work/parse.cmake" >"$work/parse.out" 2>&1 || true
if grep -qx "relocate: FILES;$ex/interp.c;FILTER;^(\[.\]text\[.\]op_add|\[.\]text\[.\]vm_run)\$;LOCATION;RAM_TEXT" "$work/parse.out"; then
	pass "the Zephyr lines parse as CMake into FILES, FILTER, LOCATION"
else
	fail "CMake parse:"; cat "$work/parse.out"
fi

sed 's|^pattern .*vm_run.*|pattern */interp.o(.text.vm_run);INCLUDE(x)|' "$work/ramtext.ld.plan" >"$work/bad.plan"
for f in lld esp-idf zephyr; do
	status=0
	"$RAMPLACE" emit --format "$f" --plan "$work/bad.plan" -o "$work/bad.$f" 2>"$work/bad.err" || status=$?
	if [ "$status" -eq 2 ] && [ ! -e "$work/bad.$f" ] && grep -q "bad.$f: '\*/interp.o(.text.vm_run);INCLUDE(x)'" "$work/bad.err"; then
		pass "$f: hostile pattern refused, nothing written"
	else
		fail "$f: status $status: $(cat "$work/bad.err")"
	fi
done
finish
