#!/usr/bin/env bash
# t_example_cmake.sh: the example firmware built by CMake (objects named *.c.obj) behaves like
# the Makefile build: same QEMU output; and a placement made from the CMake build's own map
# (imported PC list: the hottest function of each object plus newlib's memcpy) relinks through
# -DRAMTEXT_LD, passes `ramplace check`, moves those functions to RAM and keeps the output.
# Needs: $RAMPLACE, $RAMPLACE_SRC; cmake, arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
fw_timeout=120
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3

make -s -C "$ex" BUILD="$work/make" ITERATIONS=50 >/dev/null
cmake -S "$ex" -B "$work/cmake" -DCMAKE_TOOLCHAIN_FILE="$ex/cmake/arm-none-eabi-toolchain.cmake" -DFW_ITERATIONS=50 >/dev/null
cmake --build "$work/cmake" >/dev/null
run_fw "$work/make/fw.elf" >"$work/make.out"
run_fw "$work/cmake/fw.elf" >"$work/cmake.out"
if cmp -s "$work/make.out" "$work/cmake.out" && grep -q "result:  ok" "$work/cmake.out"; then pass "CMake and make builds print the same"; else fail "outputs differ"; fi

# a profile by hand: some PCs inside chosen functions of the CMake build
pcs=$work/pcs.txt
: >"$pcs"
for fn in vm_run crc32_update compare_records memcpy; do
	addr=$(arm-none-eabi-nm "$work/cmake/fw.elf" | awk -v n="$fn" '$3 == n { print $1; exit }')
	printf '0x%s 100\n' "$addr" >>"$pcs"
done
"$RAMPLACE" import --quiet "$work/profile.db" "$work/cmake/fw.elf" "$pcs"
"$RAMPLACE" --budget 2K --map "$work/cmake/fw.map" -o "$work/ramtext.ld" --quiet "$work/profile.db" "$work/cmake/fw.elf"
if grep -q 'interp.c.obj(.text.vm_run)' "$work/ramtext.ld" && grep -q 'libg.a:lib_a-memcpy.o(.text)' "$work/ramtext.ld"; then
	pass "patterns follow the CMake object names and the archive member"
else
	fail "patterns:"; cat "$work/ramtext.ld"
fi
cmake "$work/cmake" -DRAMTEXT_LD="$work/ramtext.ld" >/dev/null
cmake --build "$work/cmake" >/dev/null
if "$RAMPLACE" check --plan "$work/ramtext.ld.plan" "$work/cmake/fw.elf"; then pass "check passes on the CMake relink"; else fail "check failed"; fi
moved=0
for fn in vm_run crc32_update compare_records memcpy; do
	case "$(arm-none-eabi-nm "$work/cmake/fw.elf" | awk -v n="$fn" '$3 == n { print $1; exit }')" in 2000*) moved=$((moved + 1)) ;; esac
done
if [ "$moved" -eq 4 ]; then pass "all 4 functions at 0x2000xxxx"; else fail "only $moved of 4 moved"; fi
run_fw "$work/cmake/fw.elf" >"$work/cmake-ram.out"
if cmp -s "$work/make.out" "$work/cmake-ram.out"; then pass "relinked CMake firmware prints the same"; else fail "relinked output differs"; fi
finish
