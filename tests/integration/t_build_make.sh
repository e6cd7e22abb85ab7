#!/usr/bin/env bash
# t_build_make.sh: make/ramplace.mk through the example's Makefile: the first build links with
# the empty fragment it creates; `make profile` runs the firmware under QEMU's gdbstub and
# records it; `make ramplace` places, relinks and checks; the relinked firmware prints the same;
# `make check` passes. Then a stale profile (taken on another firmware) is refused with exit 2
# and the fragment left alone, and RAMPLACE_FORCE=1 places anyway. A renamed function is named
# as such. Under a cache model (RAMPLACE_FLASH_MODEL=cache:...), `make profile` also records the
# access trace and `make ramplace` places with --trace on it (issue 37 item 7: without it a
# placement under a cache can come out slower than flash), the relink passing check.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc, qemu-system-arm, python3.
. "$(dirname "$0")/lib.sh"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
b=$work/b
mk() { make -s -C "$ex" BUILD="$b" ITERATIONS=40 RAMPLACE="$RAMPLACE" BUDGET=1K "$@"; }

mk >/dev/null
if grep -q "empty placement" "$b/ramtext.ld" && [ -s "$b/fw.map" ]; then pass "first build links with the empty fragment and writes the map"; else fail "first build"; fi
run_fw "$b/fw.elf" >"$work/flash.out"

mk profile GDB_PORT="$(free_port)" >"$work/profile.log" 2>&1 || { cat "$work/profile.log"; fail "make profile"; }
if grep -q vm_run < <("$RAMPLACE" report "$b/profile.db"); then pass "make profile recorded the firmware"; else fail "no profile"; fi

mk ramplace >"$work/ramplace.log" 2>&1 || { cat "$work/ramplace.log"; fail "make ramplace"; }
if grep -q "^check: .* functions in .ramtext" "$work/ramplace.log" && ! grep -q "empty placement" "$b/ramtext.ld"; then
	pass "make ramplace placed, relinked and checked"
else
	fail "make ramplace output:"; cat "$work/ramplace.log"
fi
first=$(awk '$1 == "func" { print $2; exit }' "$b/ramtext.ld.plan")
case "$(arm-none-eabi-nm "$b/fw.elf" | awk -v n="$first" '$3 == n && !f { print $1; f = 1 }')" in
	2000*) pass "$first now at 0x2000xxxx" ;; *) fail "$first not in RAM" ;; esac
run_fw "$b/fw.elf" >"$work/ram.out"
if cmp -s "$work/flash.out" "$work/ram.out" && grep -q "result:  ok" "$work/ram.out"; then pass "relinked firmware prints the same"; else fail "output differs"; fi
if mk check >/dev/null; then pass "make check"; else fail "make check"; fi
before=$(stat -c %Y.%N "$b/fw.elf"); sleep 1; mk >/dev/null
if [ "$before" = "$(stat -c %Y.%N "$b/fw.elf")" ]; then pass "a second make relinks nothing"; else fail "make relinked again"; fi

# stale: a profile of another firmware (the test ELF's functions are not in fw.elf)
other=$RAMPLACE_SRC/tests/data/maptest/maptest.elf
addr=$(arm-none-eabi-nm "$other" | awk '($3 == "crc_block" || $3 == "step") && !f { print $1; f = 1 }')
printf '0x%s 900\n' "$addr" >"$work/pcs.txt"
addr=$(arm-none-eabi-nm "$b/fw.elf" | awk '$3 == "vm_run" && !f { print $1; f = 1 }')
"$RAMPLACE" import --quiet "$work/stale.db" "$other" "$work/pcs.txt"
printf '0x%s 100\n' "$addr" >"$work/pcs2.txt"
"$RAMPLACE" import --quiet "$work/stale.db" "$b/fw.elf" "$work/pcs2.txt"
cp "$b/ramtext.ld" "$work/before.ld"
status=0
mk ramplace RAMPLACE_PROFILE="$work/stale.db" >"$work/stale.log" 2>&1 || status=$?
if [ "$status" -ne 0 ] && grep -q "only 10.0% of 1000 profiled samples map" "$work/stale.log" &&
   grep -q "recorded on another build" "$work/stale.log" && cmp -s "$work/before.ld" "$b/ramtext.ld"; then
	pass "stale profile refused (10% maps), fragment untouched"
else
	fail "stale profile not refused (status $status):"; cat "$work/stale.log"
fi
if grep -q "RAMPLACE_FORCE" "$work/stale.log" || grep -q -- "--force" "$work/stale.log"; then pass "the refusal says how to force"; else fail "no hint"; fi
direct=0
"$RAMPLACE" place --budget 1K --map "$b/fw.map" -o "$work/direct.ld" "$work/stale.db" "$b/fw.elf" 2>/dev/null || direct=$?
if [ "$direct" -eq 2 ] && [ ! -e "$work/direct.ld" ]; then pass "ramplace place exits 2 and writes nothing"; else fail "direct place: $direct"; fi
if RAMPLACE_FORCE=1 mk ramplace RAMPLACE_PROFILE="$work/stale.db" >"$work/force.log" 2>&1 && grep -q "^check:" "$work/force.log"; then
	pass "RAMPLACE_FORCE=1 places anyway"
else
	fail "forced placement failed:"; cat "$work/force.log"
fi

# a cache model: the profile run records the access trace, the placement prices layouts on it
c=$work/cache
cache=cache:size=2048,ways=2,line=16,penalty=50
mkc() { make -s -C "$ex" BUILD="$c" ITERATIONS=2 RAMPLACE="$RAMPLACE" BUDGET=1K RAMPLACE_FLASH_MODEL="$cache" "$@"; }
mkc >/dev/null
run_fw "$c/fw.elf" >"$work/cache-flash.out"
if mkc profile >"$work/cache-profile.log" 2>&1 && [ -s "$c/profile.db.trace" ]; then
	pass "under $cache, make profile records the access trace ($(grep -o '(.*)' "$work/cache-profile.log" | tr -d '()'))"
else
	cat "$work/cache-profile.log"; fail "make profile under $cache: no trace"
fi
if mkc ramplace >"$work/cache-ramplace.log" 2>&1 && grep -q '^layout: ' "$work/cache-ramplace.log" &&
   grep -q "^check: " "$work/cache-ramplace.log"; then
	pass "make ramplace places with the trace ($(grep -m1 '^layout: ' "$work/cache-ramplace.log" | cut -c1-100)...) and checks"
else
	cat "$work/cache-ramplace.log"; fail "make ramplace under $cache"
fi
run_fw "$c/fw.elf" >"$work/cache-ram.out"
check "the placement under the cache prints what the flash build printed" cmp -s "$work/cache-flash.out" "$work/cache-ram.out"

# renamed: profile on one build, rename crc32_update in another build dir; the old ELF is still there
make -s -C "$ex" BUILD="$work/r1" ITERATIONS=40 RAMPLACE="$RAMPLACE" >/dev/null
make -s -C "$ex" BUILD="$work/r2" ITERATIONS=40 RAMPLACE="$RAMPLACE" EXTRA_CFLAGS=-Dcrc32_update=crc32_step >/dev/null
addr=$(arm-none-eabi-nm "$work/r1/fw.elf" | awk '$3 == "crc32_update" && !f { print $1; f = 1 }')
printf '0x%s 50\n' "$addr" >"$work/pcs3.txt"
"$RAMPLACE" import --quiet "$work/ren.db" "$work/r1/fw.elf" "$work/pcs3.txt"
"$RAMPLACE" place --budget 1K --force --map "$work/r2/fw.map" -o "$work/ren.ld" "$work/ren.db" "$work/r2/fw.elf" >/dev/null 2>"$work/ren.err" || true
if grep -q "crc32_update (50) now crc32_step?" "$work/ren.err"; then pass "renamed function recognized by its code"; else fail "rename:"; cat "$work/ren.err"; fi

finish
