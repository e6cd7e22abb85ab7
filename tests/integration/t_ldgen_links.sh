#!/bin/bash
# t_ldgen_links.sh: a real link with a fragment made by ramplace's emitter.
#
# Builds tests/data/maptest with an empty fragment, takes the exact patterns of chosen input
# sections from its map (rp_map_insec_pattern), writes a plan in the text format, turns it into
# ramtext.ld (rp_plan_read + rp_ldgen_gnu_write), relinks, and checks with arm-none-eabi-readelf
# that exactly the planned functions moved to RAM: newlib's memcpy through the archive:member
# pattern and filt_a.c's static step() but not filt_b.c's. Then `ramplace check` passes on that
# ELF and fails (exit 1, naming the functions) on the build with the empty fragment; if QEMU is
# installed, the relinked firmware also runs and exits 0.
#
# The patterns and the fragment come from a small host program compiled here against the
# built library ($RAMPLACE_BUILD/libramplace_core.a), so the C API is what is tested; the CLI
# has no command that emits a fragment from a plan without a profile.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD, arm-none-eabi-gcc, cc, pkg-config.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
tmp=$work

# ---- the helper: map -> pattern, plan -> fragment -------------------------------------------
cat >"$tmp/helper.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "ramplace/map.h"
#include "ramplace/ldgen/ldgen.h"
#include "ramplace/plan.h"

/* helper pattern MAP SECTION FILE_SUFFIX | helper fragment PLAN FRAGMENT */
int main(int argc, char **argv)
{
	rp_err err = RP_ERR_INIT;
	if (argc == 5 && strcmp(argv[1], "pattern") == 0) {
		rp_map *map;
		if (rp_map_load(&map, argv[2], &err))
			goto fail;
		for (size_t i = 0; i < map->ninsecs; i++) {
			const rp_map_insec *s = &map->insecs[i];
			size_t n = strlen(s->file), k = strlen(argv[4]);
			if (strcmp(s->name, argv[3]) == 0 && n >= k && strcmp(s->file + n - k, argv[4]) == 0) {
				char *p;
				if (rp_map_insec_pattern(&p, s, &err))
					goto fail;
				printf("%s\n", p);
				free(p);
				rp_map_free(map);
				return 0;
			}
		}
		fprintf(stderr, "helper: no section %s of *%s in the map\n", argv[3], argv[4]);
		return 1;
	}
	if (argc == 4 && strcmp(argv[1], "fragment") == 0) {
		rp_plan *plan;
		if (rp_plan_read(&plan, argv[2], &err) || rp_ldgen_gnu_write(plan, argv[3], &err))
			goto fail;
		rp_plan_free(plan);
		return 0;
	}
	fprintf(stderr, "usage: helper pattern MAP SECTION FILE_SUFFIX | helper fragment PLAN FRAGMENT\n");
	return 2;
fail:
	fprintf(stderr, "helper: %s\n", err.msg);
	return 1;
}
EOF
sanitize=()
if grep -q '^RAMPLACE_SANITIZE:BOOL=ON' "$RAMPLACE_BUILD/CMakeCache.txt" 2>/dev/null; then
	sanitize=(-fsanitize=address,undefined)
fi
# shellcheck disable=SC2046
cc -std=gnu11 "${sanitize[@]}" -I"$RAMPLACE_SRC/ramplace/include" -I"$RAMPLACE_SRC/ldgen/include" "$tmp/helper.c" \
	"$RAMPLACE_BUILD/libramplace_core.a" $(pkg-config --libs libelf sqlite3) -lm -o "$tmp/helper"
helper=$tmp/helper
build=$RAMPLACE_SRC/tests/data/maptest/build.sh

# ---- first build: empty plan, empty fragment ------------------------------------------------
cat >"$tmp/empty.plan" <<'EOF'
ramplace-plan 1
build-id 00
output-section .ramtext
budget 1024
veneer-reserve 64
used 0
samples 0 0
EOF
"$helper" fragment "$tmp/empty.plan" "$tmp/empty.ld"
check "an empty plan gives a fragment of comments only" \
	bash -c "! grep -v '^ *\\*\\|^/\\*' '$tmp/empty.ld'"
sh "$build" "$tmp/flash" "$tmp/empty.ld"
check "the empty fragment links" test -s "$tmp/flash/maptest.elf"

# ---- the plan: patterns from the map ----------------------------------------------------------
map=$tmp/flash/maptest.map
p_crc=$("$helper" pattern "$map" .text.crc32_bitwise_reference_implementation obj/crc.o)
p_step=$("$helper" pattern "$map" .text.step obj/filt_a.o)
p_memcpy=$("$helper" pattern "$map" .text 'libc.a(lib_a-memcpy.o)')
check "object pattern is exact" test "$p_step" = "*/filt_a.o(.text.step)"
check "archive member pattern is archive:member" test "$p_memcpy" = "*/libc.a:lib_a-memcpy.o(.text)"

mkdir -p "$tmp/ram"
cat >"$tmp/ram/ramtext.ld.plan" <<EOF
ramplace-plan 1
build-id 00
output-section .ramtext
region RAM 536870912 65536
budget 1024
veneer-reserve 64
used 304
samples 100 90
unit crc32_bitwise_reference_implementation - 60 60 50
pattern $p_crc
func crc32_bitwise_reference_implementation -
end
unit step filt_a.c 8 8 30
pattern $p_step
func step filt_a.c
end
unit memcpy - 236 236 10
pattern $p_memcpy
func memcpy -
end
EOF
"$helper" fragment "$tmp/ram/ramtext.ld.plan" "$tmp/ram/ramtext.ld"
sh "$build" "$tmp/ram" "$tmp/ram/ramtext.ld"
elf=$tmp/ram/maptest.elf

# "ADDR FILE NAME" for every function symbol; FILE is the STT_FILE before it (for statics)
arm-none-eabi-readelf -sW "$elf" | awk '
	$4 == "FILE" { file = $8; next }
	$4 == "FUNC" { printf "%s %s %s\n", $2, ($5 == "LOCAL" ? file : "-"), $8 }' >"$tmp/syms"
addr_of() { awk -v f="$1" -v n="$2" '$2 == f && $3 == n { print $1 }' "$tmp/syms"; }
in_ram() { case $(addr_of "$1" "$2") in 2000*) return 0 ;; *) return 1 ;; esac; }
in_flash() { case $(addr_of "$1" "$2") in 0000*) return 0 ;; *) return 1 ;; esac; }

check "crc32 moved to RAM" in_ram - crc32_bitwise_reference_implementation
check "filt_a.c's static step moved to RAM" in_ram filt_a.c step
check "filt_b.c's static step stayed in flash" in_flash filt_b.c step
check "newlib memcpy moved to RAM (archive:member)" in_ram - memcpy
check "newlib memset stayed in flash" in_flash - memset
check "filt_a_run stayed in flash" in_flash - filt_a_run
check "main stayed in flash" in_flash - main

if command -v qemu-system-arm >/dev/null; then
	check "the relinked firmware runs from RAM in QEMU and exits 0" \
		timeout 60 qemu-system-arm -M mps2-an385 -nographic -monitor none \
		-semihosting-config enable=on,target=native -kernel "$elf"
fi

# ---- ramplace check ---------------------------------------------------------------------------
if (cd "$tmp/ram" && "$RAMPLACE" check maptest.elf >"$tmp/check.out" 2>"$tmp/check.err"); then
	pass "ramplace check passes on the relinked ELF (default plan ramtext.ld.plan)"
else
	fail "ramplace check passes on the relinked ELF"
	cat "$tmp/check.out" "$tmp/check.err"
fi
check "check prints its summary" grep -q '^check: 3 functions in .ramtext (.* bytes of 1024; planned 304 + .* veneers\?)$' "$tmp/check.out"

set +e
"$RAMPLACE" check --fragment "$tmp/ram/ramtext.ld" "$tmp/flash/maptest.elf" >"$tmp/fail.out" 2>"$tmp/fail.err"
status=$?
set -e
check "ramplace check fails with exit 1 on the flash-only build" test "$status" -eq 1
check "the failure names the static function and its file" \
	grep -q "^'step' (filt_a.c) is at 0x[0-9a-f]* in flash, not in .ramtext$" "$tmp/fail.out"
check "the failure names memcpy" grep -q "^'memcpy' is at 0x[0-9a-f]* in flash, not in .ramtext$" "$tmp/fail.out"
check "the error counts the failures" grep -q "maptest.elf: 3 checks failed$" "$tmp/fail.err"

set +e
"$RAMPLACE" check --plan "$tmp/nonexistent.plan" "$elf" >/dev/null 2>&1
status=$?
set -e
check "a missing plan is bad input (exit 2)" test "$status" -eq 2

finish
