#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_plan_property_freertos.sh: the random-plan property (plan_property_lib.sh; issue 37 item 2)
# over firmware nobody here wrote: the corpus's FreeRTOS MPS2 AN385 demo (its full demo: kernel
# test tasks, naked handlers, trace hooks), built with its own Makefile at -Os (as shipped: 2-
# and 4-aligned Thumb sections side by side) and -O2, with only README's additions
# (freertos/demo_mps2.sh). PROPERTY_ROUNDS (6) random profiles and budgets (256 bytes to 16 KiB)
# per level; each plan with and without the map relinks from the same objects and must link,
# pass `check`, land as planned with the map and within budget without; every fourth relink runs
# under -icount and must print what the flash-only demo printed, with the same verdict of the
# demo's own check task.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc (newlib-nano),
# qemu-system-arm; RAMPLACE_CORPUS (docs/corpus.md; without it the test is not run, and fails
# under CI=true).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
need_corpus "FreeRTOS's MPS2 demo" freertos/FreeRTOS/Demo/CORTEX_MPS2_QEMU_IAR_GCC
. "$(dirname "$0")/freertos/demo_mps2.sh"
. "$(dirname "$0")/plan_property_lib.sh"
rounds=${PROPERTY_ROUNDS:-6}

pp_relink() { # P
	demo_make "$opt" "$d/obj" "$1/RTOSDemo.out" "$1" || return 1
	pp_elf=$1/RTOSDemo.out
}
pp_run() { # ELF OUT: the semihosting output and the check task's verdict
	run "$1" || return 1
	{ cat "$1.out"; verdict "$1"; } >"$2"
}

for opt in -Os -O2; do
	d=$work/$opt
	mkdir -p "$d/obj" "$d/flash"
	echo '/* empty */' >"$d/flash/ramtext.ld"
	if ! demo_make "$opt" "$d/obj" "$d/flash/RTOSDemo.out" "$d/flash"; then fail "$opt: the demo does not build"; continue; fi
	if ! pp_run "$d/flash/RTOSDemo.out" "$d/flash.out" || [ "$(verdict "$d/flash/RTOSDemo.out")" != PASS ]; then
		fail "$opt: the flash-only demo: $(head -3 "$d/flash.out")"; continue
	fi
	pp_funcs arm-none-eabi-nm "$d/flash/RTOSDemo.out" >"$d/funcs.txt"
	before=$pp_fails
	for round in $(seq 1 "$rounds"); do
		seed=$((round * 104729 + ${#opt}))
		pp_profile "$d/funcs.txt" "$seed" "$d/p.db" "$d/flash/RTOSDemo.out"
		budget=$(pp_budget "$seed" 256 512 768 1024 1536 2048 3072 4096 6144 8192 12288 16384)
		pp_round "FreeRTOS MPS2 $opt round $round" "$d/$round" "$d/p.db" "$d/flash/RTOSDemo.out" \
			"$d/flash/RTOSDemo.map" "$budget" m3 "$d/flash.out" "$seed"
	done
	[ "$pp_fails" = "$before" ] && pass "$opt: $rounds random plans: each links, passes check, the map's as planned, the others within budget"
done
pp_summary "FreeRTOS MPS2 demo at -Os and -O2"
finish
