#!/usr/bin/env bash
# t_freertos_riscv.sh: FreeRTOS on RV32 as a standing test (issue 37, item 5). The corpus's
# RISC-V-Qemu-virt_GCC demo is built with its own Makefile and Debian's toolchain
# (`make PICOLIBC=1`, at the demo's own -O2 and at -Os, linked with relaxation), with only what
# README tells a user to add (tests/data/freertos-rv/setup.sh: .ramtext in fake_rom.lds, the copy
# in start.S, an end after a fixed number of ticks), and run in qemu-system-riscv32 -M virt
# under -icount: the project's plugin gives exact counts and the stall cycles of 5 wait states on
# the fake ROM. `place` at 1 and 8 KiB, with and without the map; each relink must pass `check`
# (with the map: planned = linked, or below it where relaxation shrank a call), print what the
# flash-only build printed, and, counted again, run faster by what place modeled (within 5 %);
# each plan must reach >= 97 % of an exact knapsack over the same counts, computed here
# (freertos/optimum.py). With --ram-handlers the trap handler main installs in mtvec
# (freertos_risc_v_trap_handler, found from that write: riscv_traps.c) moves with its whole static
# reach, and `check --ram-handlers` proves it reaches no flash; on the flash-only build it names
# the path to flash.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; riscv64-unknown-elf-gcc with picolibc,
# qemu-system-riscv32; RAMPLACE_CORPUS (docs/corpus.md; without it the test is not run, and fails
# under CI=true).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
need_corpus "FreeRTOS's RV32 demo for QEMU virt" freertos/FreeRTOS/Demo/RISC-V-Qemu-virt_GCC freertos/FreeRTOS/Source
. "$(dirname "$0")/freertos/demo_rv.sh"

for opt in -O2 -Os; do
	d=$work/$opt
	if ! flash_build "$opt" "$d"; then fail "$opt: the demo does not build"; continue; fi
	elf=$d/flash/RTOSDemo.axf
	if ! run "$elf" "$d/flash.out" "$d/flash.counts" || ! grep -q '^Hello FreeRTOS!' "$d/flash.out" ||
	   [ "$(grep -c ': Rx: Blink' "$d/flash.out")" -lt 2 ]; then
		fail "$opt: the flash-only demo: $(head -c 200 "$d/flash.out" "$d/flash.out.err")"; continue
	fi
	pass "$opt: the flash-only demo runs to its end under the plugin ($(cycles_of "$d/flash.counts") cycles, $(grep -c ': Rx: ' "$d/flash.out") messages received)"
	"$RAMPLACE" import --quiet "$d/p.db" "$elf" "$d/flash.counts"
	riscv64-unknown-elf-nm -S "$elf" >"$d/nm.txt"
	c0=$(cycles_of "$d/flash.counts")
	for cell in 1K-map 1K-nomap 8K-map 8K-nomap 8K-handlers; do
		budget=${cell%%-*}
		p=$d/$cell
		mkdir -p "$p"
		opts=(--budget "$budget" --flash-model ws:5 -o "$p/ramtext.ld")
		[ "$cell" != "${budget}-nomap" ] && opts+=(--map "$d/flash/RTOSDemo.map")
		[ "$cell" = 8K-handlers ] && opts+=(--ram-handlers)
		name="$opt $cell"
		if ! "$RAMPLACE" place "${opts[@]}" "$d/p.db" "$elf" >"$p/place.out" 2>&1; then
			cat "$p/place.out"; fail "$name: place"; continue
		fi
		cp -a "$d/flash" "$p/obj"   # the same objects; the new fragment relinks them
		if ! demo_make "$opt" "$p/obj" "$p"; then fail "$name: the relink"; continue; fi
		check_opts=(--plan "$p/ramtext.ld.plan")
		[ "$cell" = 8K-handlers ] && check_opts+=(--ram-handlers)
		if ! "$RAMPLACE" check "${check_opts[@]}" "$p/obj/RTOSDemo.axf" >"$p/check.out" 2>&1; then
			cat "$p/check.out"; fail "$name: check"; continue
		fi
		diffb=$(grep -Eo 'difference [+-][0-9]+' "$p/check.out" | grep -Eo '[+-][0-9]+$' || true)
		if [ "$cell" != "${budget}-nomap" ] && [ "${diffb:-x}" != "+0" ] && ! grep -q 'relax' "$p/check.out"; then
			fail "$name: planned != linked (${diffb:-?} bytes) and no relaxation said why"
		fi
		if ! run "$p/obj/RTOSDemo.axf" "$p/run.out" "$p/counts" || ! cmp -s "$d/flash.out" "$p/run.out"; then
			fail "$name: the relinked demo prints something else: $(head -c 160 "$p/run.out")"; continue
		fi
		moved=$(grep -c '^unit ' "$p/ramtext.ld.plan")
		c1=$(cycles_of "$p/counts")
		measured=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.3f", a / b }')
		modeled=$(grep -Eo '^modeled cycles .*, [0-9.]+x fewer' "$p/place.out" | grep -Eo '[0-9.]+x fewer$' | grep -Eo '^[0-9.]+' || echo 0)
		share=$(python3 "$RAMPLACE_SRC/tests/integration/freertos/optimum.py" "$d/flash.counts" "$d/nm.txt" \
			"$p/ramtext.ld.plan" $(( ${budget%K} * 1024 )))
		pct=$(awk '{ print $2 }' <<<"$share")
		echo "$name: $moved unit(s), $(grep -Eo 'linked [0-9]+' "$p/check.out") bytes (difference ${diffb:-?}); modeled ${modeled}x, measured ${measured}x ($c0 -> $c1 cycles); $share"
		check "$name: check passes, same output, measured ${measured}x within 5 % of the modeled ${modeled}x" \
			awk -v m="$measured" -v p="$modeled" 'BEGIN { exit !(m > 1 && m / p >= 0.95 && m / p <= 1.05) }'
		check "$name: the plan reaches $pct % of the exact optimum (>= 97 %)" awk -v s="$pct" 'BEGIN { exit !(s >= 97) }'
		if [ "$cell" = 1K-map ]; then   # a plan made without --ram-handlers leaves the handler's reach in flash
			if ! "$RAMPLACE" check --ram-handlers --plan "$p/ramtext.ld.plan" "$p/obj/RTOSDemo.axf" >"$p/handlers.out" 2>&1 &&
			   grep -q "^interrupt handler 'freertos_risc_v_trap_handler' reaches flash: freertos_risc_v_trap_handler -> " "$p/handlers.out"; then
				pass "$name: check --ram-handlers finds the trap handler from mtvec and names its path to flash"
			else
				fail "$name: check --ram-handlers"; cat "$p/handlers.out"
			fi
		fi
		if [ "$cell" = 8K-handlers ]; then
			check "$name: the trap handler's reach is in RAM, as check proves ($(grep -m1 '^interrupt handlers' "$p/check.out"))" \
				grep -Eq '^interrupt handlers: 1, reaching [1-9][0-9]* function\(s\), 0 path\(s\) to flash' "$p/check.out"
			# its entry and whole invocations (entry to mret) measured in both builds, through
			# import and report --before: no stall on entry once in RAM
			ents() { "$RAMPLACE" callgraph --handlers "$1" | sed -n 's/^plugin: /,/p'; }
			rm -f "$d/entry-flash.db" "$p/entry.db"
			if run "$elf" "$d/entry-flash.out" "$d/entry-flash.counts" "$(ents "$elf")" &&
			   run "$p/obj/RTOSDemo.axf" "$p/entry.out" "$p/entry.counts" "$(ents "$p/obj/RTOSDemo.axf")" &&
			   "$RAMPLACE" import --quiet "$d/entry-flash.db" "$elf" "$d/entry-flash.counts" &&
			   "$RAMPLACE" import --quiet "$p/entry.db" "$p/obj/RTOSDemo.axf" "$p/entry.counts" &&
			   "$RAMPLACE" report --before "$d/entry-flash.db" "$p/entry.db" >"$p/report.out" 2>&1; then
				sed -n '/^Interrupt handler entries/,$p' "$p/report.out"
				# INVOCATIONS WORST MEAN INVOCATION  BEFORE: INVOCATIONS WORST MEAN INVOCATION  NAME
				row=$(awk '/^Interrupt handler entries/ { t = 1 } t && $9 == "freertos_risc_v_trap_handler" { print $1, $2, $4, $5, $6, $8; exit }' "$p/report.out")
				check "$name: the trap handler's entries (invocations, worst entry stall, worst invocation; in RAM, then in flash): $row (0 on entry in RAM, above 0 in flash, every invocation seen to return)" \
					awk -v r="$row" 'BEGIN { split(r, v, " "); exit !(v[1] > 0 && v[2] == 0 && v[3] ~ /^[0-9]+$/ && v[4] > 0 && v[5] > 0 && v[6] > 0) }'
			else
				fail "$name: the trap handler's entry stalls: $(tail -3 "$p/report.out" 2>/dev/null)"
			fi
		fi
	done
done
finish
