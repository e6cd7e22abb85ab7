#!/usr/bin/env bash
# t_cmake_library.sh: the library from find_package (issue 41 item 5). An out-of-tree CMake
# project, a host program, finds this build's package (-Dramplace_DIR=the build directory),
# links `ramplace::ramplace` and nothing else, and loads the bundled example's ELF and map
# through the public headers (<ramplace/image.h>, <ramplace/map.h>): its count of functions
# with a size must be the ELF's (readelf), and it must read the map's input sections. Then the same project against
# an install (cmake --install into a prefix; the package from there).
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; cmake, a host cc, arm-none-eabi-gcc.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
cd "$work"
make_fw "$RAMPLACE_SRC/examples/qemu-cortex-m3" "$work/fw" ITERATIONS=5
mkdir -p app
cat >app/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.16)
project(uses_ramplace C)
find_package(ramplace CONFIG REQUIRED)
add_executable(count main.c)
target_link_libraries(count PRIVATE ramplace::ramplace)
CM
cat >app/main.c <<'C'
#include <stdio.h>
#include <ramplace/image.h>
#include <ramplace/map.h>

int main(int argc, char **argv)
{
	rp_image *img = NULL;
	rp_map *map = NULL;
	rp_err err = RP_ERR_INIT;
	if (argc != 3 || rp_image_load(&img, argv[1], &err) || rp_map_load(&map, argv[2], &err)) {
		fprintf(stderr, "count: %s\n", err.msg);
		return 2;
	}
	size_t sized = 0;
	for (size_t i = 0; i < img->nfuncs; i++)
		sized += img->funcs[i].size > 0;
	printf("%zu %zu\n", sized, map->ninsecs);
	rp_map_free(map);
	rp_image_free(img);
	return 0;
}
C
# the ELF's function symbols with a size, as readelf lists them (weak ones included)
want_funcs=$(arm-none-eabi-readelf -sW "$work/fw/fw.elf" | awk '$4 == "FUNC" && $3 != 0' | wc -l)
for how in build install; do
	dir=$RAMPLACE_BUILD
	if [ "$how" = install ]; then
		cmake --install "$RAMPLACE_BUILD" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; continue; }
		dir=$work/prefix/share/ramplace/cmake
	fi
	rm -rf "$work/app-$how"
	if ! cmake -S app -B "$work/app-$how" -Dramplace_DIR="$dir" >"$work/app-$how.log" 2>&1 ||
	   ! cmake --build "$work/app-$how" >>"$work/app-$how.log" 2>&1; then
		cat "$work/app-$how.log"; fail "$how tree: the project that links ramplace::ramplace does not build"; continue
	fi
	if [ "$how" = install ]; then   # every installed header compiles alone: none needs a private one
		bad=""
		for h in "$work"/prefix/include/ramplace/*.h "$work"/prefix/include/ramplace/ldgen/*.h; do
			rel=${h#"$work"/prefix/include/}
			printf '#include <%s>\n' "$rel" | cc -fsyntax-only -I"$work/prefix/include" -x c - 2>>"$work/headers.log" || bad="$bad $rel"
		done
		check "installed headers compile alone against the install (private ones left out:${bad:- none missing})" test -z "$bad"
		check "util.h, the library's own helpers, is not installed" test ! -e "$work/prefix/include/ramplace/util.h"
		check "ldgen's headers are under ramplace/ldgen/" test -e "$work/prefix/include/ramplace/ldgen/ldgen.h"
	fi
	read -r funcs insecs < <("$work/app-$how/count" "$work/fw/fw.elf" "$work/fw/fw.map")
	check "$how tree: a program linking ramplace::ramplace loads the ELF: $funcs functions with a size (readelf: $want_funcs)" \
		test "$funcs" = "$want_funcs"
	check "$how tree: and reads the map: $insecs input sections" test "${insecs:-0}" -gt 100
done
finish
