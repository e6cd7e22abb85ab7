#!/usr/bin/env bash
# t_build_cmake.sh: cmake/RamPlace.cmake through the example's CMakeLists.txt, with the Ninja and
# the Unix Makefiles generators, finding ramplace as an installed package (cmake --install of
# this build into a temporary prefix, found through CMAKE_PREFIX_PATH by the cross build): the
# first build links with the empty fragment made at configure time; fw-profile records under
# QEMU's gdbstub; fw-ramplace places, relinks and checks; the output does not change; a second
# build relinks nothing. Also: the installed library builds a program through pkg-config.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; cmake, ninja, arm-none-eabi-gcc, qemu, cc.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3

prefix=$work/prefix
cmake --install "$RAMPLACE_BUILD" --prefix "$prefix" >/dev/null
if [ -x "$prefix/bin/ramplace" ] && [ -f "$prefix/share/ramplace/cmake/ramplaceConfig.cmake" ] &&
   [ -f "$prefix/share/ramplace/make/ramplace.mk" ]; then pass "cmake --install lays out bin, cmake package, make.mk"; else fail "install layout"; fi

cat >"$work/use.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "ramplace/image.h"
int main(void)
{
	rp_image *img = NULL;
	rp_err err = RP_ERR_INIT;
	/* a public entry point, linked through pkg-config: a missing ELF is an error naming it */
	return rp_image_load(&img, "/nonexistent/fw.elf", &err) != 0 && !img && strstr(err.msg, "fw.elf") ? 0 : 1;
}
C
# a sanitizer build of ramplace installs a sanitized library: the program must match it
san=""
if grep -q __asan_init < <(nm "$prefix/lib/libramplace.a" 2>/dev/null); then san="-fsanitize=address,undefined"; fi
if cc $san -o "$work/use" "$work/use.c" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs --static ramplace) &&
   "$work/use"; then pass "pkg-config ramplace builds and links a program"; else fail "pkg-config"; fi

for gen in Ninja "Unix Makefiles"; do
	b=$work/$(echo "$gen" | tr -d ' ')
	port=$(free_port)
	cmake -G "$gen" -S "$ex" -B "$b" -DCMAKE_TOOLCHAIN_FILE="$RAMPLACE_SRC/cmake/arm-none-eabi-toolchain.cmake" \
		-DCMAKE_PREFIX_PATH="$prefix" -DFW_ITERATIONS=40 -DFW_GDB_PORT="$port" >"$b.log" 2>&1 || { cat "$b.log"; fail "$gen: configure"; continue; }
	exe=$(sed -n 's/^RAMPLACE_EXECUTABLE:FILEPATH=//p' "$b/CMakeCache.txt")
	if [ "$exe" = "$prefix/bin/ramplace" ]; then pass "$gen: the cross build found the installed host ramplace"; else fail "$gen: RAMPLACE_EXECUTABLE=$exe"; fi
	if grep -q "empty placement" "$b/ramtext.ld"; then pass "$gen: empty fragment at configure time"; else fail "$gen: no fragment"; fi
	cmake --build "$b" >/dev/null
	run_fw "$b/fw.elf" >"$b.flash.out"
	cmake --build "$b" -t fw-profile >"$b.profile.log" 2>&1 || { cat "$b.profile.log"; fail "$gen: fw-profile"; }
	if grep -q vm_run < <("$RAMPLACE" report "$b/profile.db"); then pass "$gen: fw-profile recorded"; else fail "$gen: no profile"; fi
	cmake --build "$b" -t fw-ramplace >"$b.ramplace.log" 2>&1 || { cat "$b.ramplace.log"; fail "$gen: fw-ramplace"; }
	if grep -q "^check: .* functions in .ramtext" "$b.ramplace.log" && grep -q "interp.c.obj" "$b/ramtext.ld"; then
		pass "$gen: fw-ramplace placed, relinked, checked"
	else
		fail "$gen: fw-ramplace:"; cat "$b.ramplace.log"
	fi
	run_fw "$b/fw.elf" >"$b.ram.out"
	if cmp -s "$b.flash.out" "$b.ram.out" && grep -q "result:  ok" "$b.ram.out"; then pass "$gen: same output after relink"; else fail "$gen: output differs"; fi
	before=$(stat -c %Y "$b/fw.elf")
	sleep 1
	cmake --build "$b" >/dev/null
	if [ "$before" = "$(stat -c %Y "$b/fw.elf")" ]; then pass "$gen: a second build relinks nothing"; else fail "$gen: relinked again"; fi
	if cmake --build "$b" -t fw-ramplace-check >/dev/null 2>&1; then pass "$gen: fw-ramplace-check"; else fail "$gen: fw-ramplace-check"; fi
done

finish
