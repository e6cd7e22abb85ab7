#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_plan_property_freertos_rv.sh: the random-plan property (plan_property_lib.sh; issue 37 item
# 2) over the corpus's FreeRTOS RV32 demo for QEMU virt, built with its own Makefile
# (`make PICOLIBC=1`, linked with relaxation) at -O2 (as shipped) and -Os, with only README's
# additions (freertos/demo_rv.sh). PROPERTY_ROUNDS (6) random profiles and budgets (256 bytes to
# 16 KiB) per level; each plan with and without the map relinks the flash build's objects and
# must link, pass `check`, land as planned with the map (or below it, by the calls relaxation
# shrank) and within budget without; every fourth relink runs under -icount and must print what
# the flash-only demo printed.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; riscv64-unknown-elf-gcc with picolibc,
# qemu-system-riscv32; RAMPLACE_CORPUS (docs/corpus.md; without it the test is not run, and fails
# under CI=true).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
need_corpus "FreeRTOS's RV32 demo for QEMU virt" freertos/FreeRTOS/Demo/RISC-V-Qemu-virt_GCC freertos/FreeRTOS/Source
. "$(dirname "$0")/freertos/demo_rv.sh"
. "$(dirname "$0")/plan_property_lib.sh"
rounds=${PROPERTY_ROUNDS:-6}

pp_relink() { # P: the flash build's objects, relinked with the new fragment
	rm -rf "$1/obj"
	cp -a "$d/flash" "$1/obj"
	demo_make "$opt" "$1/obj" "$1" || return 1
	pp_elf=$1/obj/RTOSDemo.axf
}
pp_run() { run "$1" "$2"; }

for opt in -O2 -Os; do
	d=$work/$opt
	if ! flash_build "$opt" "$d"; then fail "$opt: the demo does not build"; continue; fi
	elf=$d/flash/RTOSDemo.axf
	if ! pp_run "$elf" "$d/flash.out" || ! grep -q '^Hello FreeRTOS!' "$d/flash.out"; then
		fail "$opt: the flash-only demo: $(head -c 200 "$d/flash.out")"; continue
	fi
	pp_funcs riscv64-unknown-elf-nm "$elf" >"$d/funcs.txt"
	before=$pp_fails
	for round in $(seq 1 "$rounds"); do
		seed=$((round * 104729 + ${#opt} + 1))
		pp_profile "$d/funcs.txt" "$seed" "$d/p.db" "$elf"
		budget=$(pp_budget "$seed" 256 512 768 1024 1536 2048 3072 4096 6144 8192 12288 16384)
		pp_round "FreeRTOS RV32 $opt round $round" "$d/$round" "$d/p.db" "$elf" "$d/flash/RTOSDemo.map" \
			"$budget" rv "$d/flash.out" "$seed"
	done
	[ "$pp_fails" = "$before" ] && pass "$opt: $rounds random plans: each links, passes check, the map's as planned, the others within budget"
done
pp_summary "FreeRTOS RV32 demo at -O2 and -Os"
finish
