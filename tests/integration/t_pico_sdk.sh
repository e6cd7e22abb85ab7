#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_pico_sdk.sh: ramplace inside a pico-sdk build (issue 24 item 3), link-level: pico-sdk 2.2.0
# from the corpus builds the bundled workload (examples/qemu-cortex-m3's sources, pico_stdlib,
# stdio on the UART) for RP2040 (Cortex-M0+) and RP2350 (Cortex-M33), with ramplace added as
# README says: find_package(ramplace) and ramplace_add_placement() beside
# pico_add_extra_outputs(), nothing else, no SDK file touched.
#   1. the flash build links through the launcher with an empty rename list (nothing moves);
#   2. a profile: no emulator here runs these chips, so an imported PC list weights chosen
#      functions (the workload's, and newlib's memcmp, a member of the toolchain's C library archive);
#   3. `cmake --build -t fw-ramplace`: place --dialect pico from the build's own map, emit the
#      renames, relink through the launcher (copies of the objects and of libc.a's member with
#      the sections renamed .time_critical.ramplace.*, which the SDK's script copies to RAM in
#      .data), and `ramplace check` passes: every planned function in SRAM (0x20000000...),
#      loaded from flash;
#   4. place read pico's crt0: the reset handler from the vector table (__VECTOR_TABLE), its
#      table-driven .data copy found;
#   5. the relinked build's map names the original objects (not the launcher's copies), and a
#      second fw-ramplace from the relinked ELF and map plans the same functions and passes;
#   6. `budget auto` counts .data (less the code a plan put there) and pico's .heap, and says
#      the heap may grow to the end of RAM;
#   7. random plans (PICO_PLANS per platform, default 6; plan_property_lib.sh) from the flash
#      build, with and without its map, relinked through the launcher: each links, passes
#      check, and lands as planned (link-level: nothing runs);
#   8. ramplace_runtime_library() builds the sampling runtime as a pico-sdk library for both
#      (Cortex-M0+ and M33): SysTick's vector (isr_systick) is its handler, and its text dump
#      (profile_dump_stdout, for stdio) links; t_runtime_cortex_m3 runs that dump on QEMU.
# Before issue 24 there was no pico dialect: the functions stayed in flash (an INCLUDE has no
# place in pico's scripts) and check failed on every one.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; cmake >= 3.21, arm-none-eabi-gcc;
# RAMPLACE_CORPUS (docs/corpus.md; without it the
# test is not run, and fails under CI=true).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
need_corpus "pico-sdk" pico-sdk/pico_sdk_init.cmake
sdk=$corpus/pico-sdk
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
cd "$work"
mkdir -p proj
cat >proj/pico_main.c <<'EOF'
/* the workload's main under pico-sdk: its output goes to stdio (the UART) */
#include "pico/stdlib.h"
int workload_main(void);
void initialise_monitor_handles(void) {}
int main(void)
{
	stdio_init_all();
	return workload_main();
}
EOF
cat >proj/prof_main.c <<'EOF'
/* a firmware that profiles itself with ramplace's runtime and prints the histogram on stdio */
#include "pico/stdlib.h"
#include "ramplace_profile.h"
extern char __logical_binary_start[], __etext[];
static volatile unsigned sink;
int main(void)
{
	stdio_init_all();
	profile_on(__logical_binary_start, __etext, 4, 100);
	for (unsigned i = 0; i < 1000000u; i++)
		sink += i * i;
	profile_off();
	return profile_dump_stdout();
}
EOF
cat >proj/CMakeLists.txt <<EOF
cmake_minimum_required(VERSION 3.21)
include($sdk/external/pico_sdk_import.cmake)
project(pico_app C CXX ASM)
pico_sdk_init()
find_package(ramplace CONFIG REQUIRED NO_CMAKE_FIND_ROOT_PATH)
add_executable(fw pico_main.c $ex/main.c $ex/interp.c $ex/programs.c $ex/crc32.c $ex/lz.c $ex/records.c
  $ex/corpus.c $ex/rng.c)
target_include_directories(fw PRIVATE $ex)
set_source_files_properties($ex/main.c PROPERTIES COMPILE_DEFINITIONS main=workload_main)
target_compile_definitions(fw PRIVATE ITERATIONS=20)
target_link_libraries(fw pico_stdlib)
pico_add_extra_outputs(fw)
ramplace_add_placement(TARGET fw BUDGET 2K)
# the sampling runtime as a pico-sdk library, its profile printed on stdio
ramplace_runtime_library(NAME ramplace_runtime)
add_executable(fwprof prof_main.c)
target_link_libraries(fwprof pico_stdlib ramplace_runtime)
EOF

hot="lz_compress lz_decompress run_program crc32_update memcmp"

# the random-plan property (plan_property_lib.sh) over the SDK's build: PICO_PLANS per platform
. "$RAMPLACE_SRC/tests/integration/plan_property_lib.sh"
pico_plans=${PICO_PLANS:-6}
pp_place_args=(--dialect pico) pp_maps=(map)   # the pico dialect moves by object: it needs the map
pp_relink() { # P: the plan's renames, relinked through the launcher by the SDK's own build
	"$RAMPLACE" emit --format pico --plan "$1/ramtext.ld.plan" -o "$b/ramtext.pico" >"$1/emit.log" 2>&1 &&
		cmake --build "$b" --target fw >"$1/link.log" 2>&1 || { cat "$1/emit.log" "$1/link.log" | tail -20; return 1; }
	pp_elf=$b/fw.elf
}
for platform in ${PICO_PLATFORMS:-rp2040 rp2350-arm-s}; do
	b=b-$platform
	# PICO_NO_PICOTOOL: no picotool here (and no network to fetch it); the ELF is what is tested
	if ! cmake -S proj -B "$b" -DPICO_SDK_PATH="$sdk" -DPICO_PLATFORM="$platform" -DPICO_NO_PICOTOOL=1 \
		-Dramplace_DIR="$RAMPLACE_BUILD" >"$b.log" 2>&1 || ! cmake --build "$b" -j2 >>"$b.log" 2>&1; then
		tail -30 "$b.log"; fail "$platform: the flash build"; continue
	fi
	elf=$b/fw.elf
	# for the random plans; the map beside the build, whose objects it names relative to it
	cp "$elf" "$platform.flash.elf" && cp "$elf.map" "$b/flash.map"
	# entry 15 of the vector table (SysTick) is the runtime's handler, under pico's name
	vt=$(nm_addr "$b/fwprof.elf" __VECTOR_TABLE)
	word=$(arm-none-eabi-objdump -s --start-address=$((0x$vt + 60)) --stop-address=$((0x$vt + 64)) "$b/fwprof.elf" |
		awk '/^ [0-9a-f]+ [0-9a-f]+ / { print $2; exit }')
	handler=$(nm_addr "$b/fwprof.elf" ramplace_profile_systick_handler)
	le=$(printf '%08x' $((0x$handler | 1)) | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')
	dump=$(nm_addr "$b/fwprof.elf" profile_dump_stdout)
	check "$platform: the runtime builds as a pico-sdk library; SysTick (isr_systick) is its handler" \
		sh -c "[ -n '$handler' ] && [ '$word' = '$le' ] && [ -n '$dump' ]"
	check "$platform: the flash build links through the launcher, its map beside the ELF" \
		sh -c "grep -q 'ramplace-link-renamed.sh' $b/CMakeFiles/fw.dir/link.txt && [ -f $elf.map ]"
	: >"$platform.pcs"
	weight=5000
	for fn in $hot; do
		addr=$(nm_addr "$elf" "$fn")
		[ -n "$addr" ] || { fail "$platform: no $fn in the flash build"; continue 2; }
		case $addr in 1*) ;; *) fail "$platform: $fn is not in flash before placement ($addr)" ;; esac
		echo "0x$addr $weight" >>"$platform.pcs"
		weight=$((weight / 2 + 100))
	done
	"$RAMPLACE" import --quiet "$b/profile.db" "$elf" "$platform.pcs"
	if cmake --build "$b" --target fw-ramplace >"$platform.place.log" 2>&1; then
		pass "$platform: fw-ramplace places, renames, relinks and checks"
	else
		tail -30 "$platform.place.log"; fail "$platform: fw-ramplace"; continue
	fi
	check "$platform: the plan is for pico-sdk's .data" \
		sh -c "grep -q '^dialect pico\$' $b/ramtext.ld.plan && grep -q '^output-section .data\$' $b/ramtext.ld.plan"
	check "$platform: the reset handler comes from pico's vector table and its table-driven copy is found" \
		grep -q 'reset path: _reset_handler (found by the vector table (__VECTOR_TABLE)) copies the code at' "$platform.place.log"
	check "$platform: check passes by memory in .data" grep -q '^check: .* in RAM in .data' "$platform.place.log"
	check "$platform: libc.a's member is renamed (a toolchain library's function moves too)" \
		grep -Eq '^\*/?lib[a-z_]*\.a lib[c_]*a-memcmp\.o (\.text[.a-z]*) \.time_critical\.ramplace\1$' "$b/ramtext.pico"
	for fn in $hot; do
		case "$(nm_addr "$elf" "$fn")" in
		2*) pass "$platform: $fn runs from SRAM" ;;
		*) fail "$platform: $fn is at $(nm_addr "$elf" "$fn"), not in SRAM" ;;
		esac
	done
	check "$platform: the map names the original objects and libc.a's member, not the launcher's copies" \
		sh -c "! grep -q 'ramplace-link\\.' $elf.map && grep -Eq 'lib[a-z_]*\\.a\\(lib[c_]*a-memcmp\\.o\\)' $elf.map &&
		grep -A1 '^ \\.time_critical\\.ramplace\\.text\\.lz_compress' $elf.map | grep -q 'lz\\.c\\.o'"
	# the loop again, from the relinked ELF and its map: the same functions, and check passes
	cp "$b/ramtext.pico" "$platform.first.pico"
	"$RAMPLACE" import --quiet "$b/profile.db" "$elf" <(for fn in $hot; do echo "0x$(nm_addr "$elf" "$fn") 1000"; done)
	if RAMPLACE_FORCE=1 cmake --build "$b" --target fw-ramplace >"$platform.again.log" 2>&1; then
		pass "$platform: fw-ramplace again from the relinked build"
	else
		tail -30 "$platform.again.log"; fail "$platform: fw-ramplace again"
	fi
	check "$platform: the second plan renames the same sections" cmp -s <(grep -v '^#' "$platform.first.pico" | sort) \
		<(grep -v '^#' "$b/ramtext.pico" | sort)
	mkdir -p auto
	"$RAMPLACE" place --budget auto --dialect pico --map "$elf.map" -o auto/ramtext.ld "$b/profile.db" "$elf" >"$platform.auto.log" 2>&1 ||
		{ cat "$platform.auto.log"; fail "$platform: place --budget auto"; }
	check "$platform: budget auto counts .data less the planned code, and pico's .heap" \
		sh -c "grep -Eq '\\.data \\(less [0-9]+ bytes of code an earlier plan put there\\)' $platform.auto.log &&
		grep -Eq '^ +0x2[0-9a-f]+ +2048  \\.heap\$' $platform.auto.log"
	check "$platform: budget auto says pico's heap may grow to the end of RAM" \
		grep -q 'the heap may grow to the region.s end (__HeapLimit)' "$platform.auto.log"
	# random plans over the flash build (issue 37 item 2), relinked through the launcher:
	# link-level, so nothing runs; each must link, pass check and land as planned
	pp_funcs arm-none-eabi-nm "$platform.flash.elf" >"$platform.funcs"
	for round in $(seq 1 "$pico_plans"); do
		seed=$((round * 104729 + ${#platform}))
		pp_profile "$platform.funcs" "$seed" "$platform.pp.db" "$platform.flash.elf"
		pp_round "$platform random plan $round" "$work/pp-$platform-$round" "$platform.pp.db" "$platform.flash.elf" \
			"$b/flash.map" "$(pp_budget "$seed" 512 1024 2048 4096 8192)" m3 "" "$seed"
	done
done
pp_summary "random plans over the pico-sdk program"
finish
