#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_freertos.sh: an RTOS nobody here wrote, as a standing test (issue 22). The FreeRTOS MPS2
# AN385 demo from the corpus's freertos (its full demo: the kernel's own test tasks, trace
# hooks in every kernel call, naked handlers) is built with its own Makefile at -Os (as shipped)
# and at -O2, with only README's additions (tests/data/freertos/setup.sh: the .ramtext section,
# the copy loop, -L; plus a deterministic end after 5,500 ticks). For each level:
#  - exact counts and ws:5 stall cycles from the QEMU plugin under -icount (two runs of the
#    -Os build count the same: timer-driven firmware is deterministic only under -icount);
#  - place at 1 KiB and 8 KiB with --map, relink from the same objects, `check` (no option),
#    run under the plugin: the same semihosting output and the same check-task verdict on the
#    UART, planned = linked bytes, the measured speed-up (cycles of the flash build over the
#    relinked build's, both counted) within 5 % of the modeled one, at least 1.5x at 1 KiB and
#    3x at 8 KiB at -Os, the kernel's hot functions moved at 8 KiB, and the plan's value at
#    least 97 % of the exact optimum (freertos/optimum.py: a knapsack over the counted stall
#    cycles, computed without ramplace);
#  - at 8 KiB, the layout model (bench_layout_eval with the relink's fragments) lays each of
#    the relink's veneers in the slot of its stub block ld gave it: GNU ld's stub order, from
#    the sections' ids (map_ids.c; in callee order, 134 of 255 were elsewhere in one relink);
#  - place without --map (the card's line): relink, `check`, linked <= budget, same output.
# At -Os also: interrupt handlers kept off flash (place/check --ram-handlers), and their worst
# entry stall under ws:5 (the plugin's entry=ADDR@VECTOR, from callgraph --handlers): with
# --ram-handlers only the vector's read from flash is left, the same figures through import and
# `report --before` (the flash build's beside), and each whole invocation measured.
# Before the reset path was read by control flow, `place` kept main and 215 functions in flash
# at -Os (1.08x at 1 KiB, 1.18x at 8 KiB) and `check` failed every correct relink.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc (newlib-nano),
# qemu-system-arm; RAMPLACE_CORPUS (docs/corpus.md; without it the
# test is not run, and fails under CI=true).
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
need_corpus "FreeRTOS's MPS2 demo" freertos/FreeRTOS/Demo/CORTEX_MPS2_QEMU_IAR_GCC
. "$(dirname "$0")/freertos/demo_mps2.sh"

for opt in -Os -O2; do
	d=$work/$opt
	mkdir -p "$d/obj" "$d/flash"
	echo '/* empty */' >"$d/flash/ramtext.ld"
	if ! demo_make "$opt" "$d/obj" "$d/flash/RTOSDemo.out" "$d/flash"; then fail "$opt: the demo does not build"; continue; fi
	if ! run "$d/flash/RTOSDemo.out" "$d/flash.counts" || ! grep -q '^ramplace-stop: tick 5500; register tests ran$' "$d/flash/RTOSDemo.out.out"; then
		fail "$opt: the flash-only demo: $(cat "$d/flash/RTOSDemo.out.out" "$d/flash/RTOSDemo.out.err" | head -3)"; continue
	fi
	check "$opt: the demo's own checks pass ($(verdict "$d/flash/RTOSDemo.out"))" [ "$(verdict "$d/flash/RTOSDemo.out")" = PASS ]
	if [ "$opt" = -Os ]; then
		cp "$d/flash/RTOSDemo.out" "$d/again.out"
		run "$d/again.out" "$d/again.counts" || true
		check "$opt: under -icount two runs count the same ($(cycles_of "$d/flash.counts") cycles)" \
			cmp -s <(grep -v '^# translations' "$d/flash.counts") <(grep -v '^# translations' "$d/again.counts")
	fi
	"$RAMPLACE" import --quiet "$d/p.db" "$d/flash/RTOSDemo.out" "$d/flash.counts"
	arm-none-eabi-nm -S "$d/flash/RTOSDemo.out" >"$d/nm.txt"
	c0=$(cycles_of "$d/flash.counts")
	for budget in 1K 8K; do
		for map in map nomap; do
			cell="$opt $budget $map"
			p=$d/$budget-$map
			mkdir -p "$p"
			opts=(--budget "$budget" --flash-model ws:5 -o "$p/ramtext.ld")
			[ "$map" = map ] && opts+=(--map "$d/flash/RTOSDemo.map")
			if ! "$RAMPLACE" place "${opts[@]}" "$d/p.db" "$d/flash/RTOSDemo.out" >"$p/place.out" 2>&1; then
				cat "$p/place.out"; fail "$cell: place"; continue
			fi
			if ! demo_make "$opt" "$d/obj" "$p/RTOSDemo.out" "$p"; then fail "$cell: the relink"; continue; fi
			if ! "$RAMPLACE" check --plan "$p/ramtext.ld.plan" "$p/RTOSDemo.out" >"$p/check.out" 2>&1; then
				cat "$p/check.out"; fail "$cell: check"; continue
			fi
			diffb=$(grep -Eo 'difference [+-][0-9]+' "$p/check.out" | grep -Eo '[+-][0-9]+$')
			if [ "$map" = map ] && [ "$diffb" != "+0" ]; then fail "$cell: planned != linked ($diffb bytes)"; fi
			counts=""
			[ "$map" = map ] && counts=$p/counts
			if ! run "$p/RTOSDemo.out" "$counts" || ! cmp -s "$d/flash/RTOSDemo.out.out" "$p/RTOSDemo.out.out" ||
			   [ "$(verdict "$p/RTOSDemo.out")" != "$(verdict "$d/flash/RTOSDemo.out")" ]; then
				fail "$cell: the relinked demo prints something else: $(head -c 120 "$p/RTOSDemo.out.out") / $(verdict "$p/RTOSDemo.out")"; continue
			fi
			moved=$(grep -c '^unit ' "$p/ramtext.ld.plan")
			if [ "$map" = nomap ]; then
				pass "$cell: $moved unit(s) moved, check passes ($(grep -Eo 'linked [0-9]+' "$p/check.out") of $budget), same output"
				continue
			fi
			modeled=$(grep -Eo '^modeled cycles .*, [0-9.]+x fewer' "$p/place.out" | grep -Eo '[0-9.]+x fewer$' | grep -Eo '^[0-9.]+')
			c1=$(cycles_of "$counts")
			measured=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.3f", a / b }')
			bytes=$(( ${budget%K} * 1024 ))
			share=$(python3 "$RAMPLACE_SRC/tests/integration/freertos/optimum.py" "$d/flash.counts" "$d/nm.txt" "$p/ramtext.ld.plan" "$bytes")
			echo "$cell: $moved unit(s); modeled ${modeled}x, measured ${measured}x ($c0 -> $c1 cycles); $share"
			floor=1.0
			[ "$opt" = -Os ] && { [ "$budget" = 1K ] && floor=1.5 || floor=3.0; }
			if awk -v m="$measured" -v p="$modeled" -v f="$floor" 'BEGIN { exit !(m >= f && m / p >= 0.95 && m / p <= 1.05) }'; then
				pass "$cell: check passes, same output, measured ${measured}x (>= ${floor}x) within 5 % of the modeled ${modeled}x"
			else
				fail "$cell: measured ${measured}x against the modeled ${modeled}x (floor ${floor}x)"
			fi
			pct=$(awk '{ print $2 }' <<<"$share")
			check "$cell: the plan reaches $pct % of the exact optimum (>= 97 %)" awk -v s="$pct" 'BEGIN { exit !(s >= 97) }'
			if [ "$budget" = 8K ]; then
				# ld's stub order (map_ids.c): the layout model puts each veneer where ld did;
				# a few sampled windows of the flash build's accesses are trace enough
				cp "$d/flash/RTOSDemo.out" "$d/traced.out"
				run "$d/traced.out" "$d/traced.counts" ",trace=$d/traced.trace,trace-window=1000,trace-period=8000000" || true
				BENCH_LAYOUT_FRAGMENTS=$p "$RAMPLACE_BUILD/bench/bench_layout_eval" --relinked "$p/RTOSDemo.out" \
					"$d/flash/RTOSDemo.out" "$d/flash/RTOSDemo.map" "$d/traced.trace" ws:5 >"$p/eval.txt" 2>&1 || cat "$p/eval.txt"
				read -r nven off <<<"$(sed -n 's/.* of \([0-9]*\) veneer(s) .*, \([0-9]*\) in another slot of their block.*/\1 \2/p' "$p/eval.txt")"
				check "$cell: the link model lays each of the relink's ${nven:-?} veneers in the slot of its stub block ld gave it (${off:-?} elsewhere)" \
					test "${off:-x}" = 0 -a "${nven:-0}" -ge 50
			fi
			if [ "$budget" = 8K ] && [ "$opt" = -Os ]; then
				# the loop's second round: profile the relinked firmware (its veneers run and are
				# sampled) and place again from its own map, as the CMake target does after each run
				"$RAMPLACE" import --quiet "$p/again.db" "$p/RTOSDemo.out" "$counts"
				mkdir -p "$p/round2"
				if "$RAMPLACE" place --budget 8K --flash-model ws:5 --map "$p/RTOSDemo.map" -o "$p/round2/ramtext.ld" \
					"$p/again.db" "$p/RTOSDemo.out" >"$p/round2/place.out" 2>&1 &&
				   ! grep -Eq '^func __.*(_veneer|LongThunk_)' "$p/round2/ramtext.ld.plan" &&
				   demo_make "$opt" "$d/obj" "$p/round2/RTOSDemo.out" "$p/round2" &&
				   "$RAMPLACE" check --quiet --plan "$p/round2/ramtext.ld.plan" "$p/round2/RTOSDemo.out" >"$p/round2/check.out" 2>&1; then
					pass "$cell: a second round from the relinked firmware's profile and map places (veneers left to the linker), links and checks"
				else
					cat "$p/round2/place.out" "$p/round2/check.out" 2>/dev/null | tail -5
					fail "$cell: the second round from the relinked firmware"
				fi
			fi
			if [ "$budget" = 8K ]; then
				missing=""
				for f in vPortEnterCritical vTaskSwitchContext vListInsert; do
					grep -q "^func $f " "$p/ramtext.ld.plan" || missing="$missing $f"
				done
				check "$cell: the kernel's hot functions moved${missing:+ (not:$missing)}" [ -z "$missing" ]
			fi
		done
	done
	if [ "$opt" = -Os ]; then
		# planned = linked with many veneers: random profiles over every function (fixed seeds),
		# budgets to 32 KiB, the boot path allowed so that anything may move: link-level only
		arm-none-eabi-nm -S "$d/flash/RTOSDemo.out" | awk '($3 == "t" || $3 == "T") && $2 != "00000000" { print $1 }' >"$d/addrs.txt"
		sizes=""
		for seed in 1 2 3 4 5 6; do
			python3 -c 'import random, sys
random.seed(int(sys.argv[2]))
for a in open(sys.argv[1]).read().split():
    if random.random() < 0.7:
        print(("0x" + a + "\n") * random.choice([1, 2, 5, 20, 100]), end="")' "$d/addrs.txt" "$seed" >"$d/rand.txt"
			budget=$((8192 * (seed % 4 + 1)))
			r=$d/random-$seed
			mkdir -p "$r"
			"$RAMPLACE" import --quiet --format pclist --force "$r/p.db" "$d/flash/RTOSDemo.out" "$d/rand.txt"
			"$RAMPLACE" place --quiet --allow-boot-path --min-share 0 --budget "$budget" --map "$d/flash/RTOSDemo.map" \
				-o "$r/ramtext.ld" "$r/p.db" "$d/flash/RTOSDemo.out" >"$r/place.out" 2>&1 || { cat "$r/place.out"; fail "random plan $seed: place"; continue; }
			demo_make "$opt" "$d/obj" "$r/RTOSDemo.out" "$r" || { fail "random plan $seed: the relink"; continue; }
			"$RAMPLACE" check --allow-boot-path --plan "$r/ramtext.ld.plan" "$r/RTOSDemo.out" >"$r/check.out" 2>&1 || true
			acct=$(grep '^accounting: .ramtext planned' "$r/check.out" || true)
			if [[ "$acct" =~ planned\ ([0-9]+)\ bytes.*\ in\ ([0-9]+)\ veneer.*linked\ ([0-9]+): ]] &&
			   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[3]}" ]; then
				sizes="$sizes ${BASH_REMATCH[2]}"
			else
				cat "$r/check.out"; fail "random plan $seed (budget $budget): planned != linked: $acct"
			fi
		done
		pass "$opt: random plans with many veneers link exactly as planned (veneers:$sizes)"
		# interrupt handlers off flash (issue 26 item 3): the 8 KiB relink leaves paths from the
		# handlers to flash, which check --ram-handlers names; placed with --ram-handlers, the
		# whole reach of every vector-table handler runs from RAM, check proves it from the plan
		# alone, and the demo runs the same
		if ! "$RAMPLACE" check --quiet --plan "$d/8K-map/ramtext.ld.plan" --ram-handlers "$d/8K-map/RTOSDemo.out" >"$d/h8.check" 2>&1 &&
		   grep -q "^interrupt handler 'xPortPendSVHandler' reaches flash: xPortPendSVHandler -> " "$d/h8.check"; then
			pass "$opt: the 8 KiB plan leaves $(grep -c '^interrupt handler' "$d/h8.check") handler(s) reaching flash, each named with its path"
		else
			cat "$d/h8.check"; fail "$opt: check --ram-handlers on the 8 KiB relink"
		fi
		h=$d/handlers
		mkdir -p "$h"
		if "$RAMPLACE" place --quiet --budget 16K --flash-model ws:5 --map "$d/flash/RTOSDemo.map" --ram-handlers \
			-o "$h/ramtext.ld" "$d/p.db" "$d/flash/RTOSDemo.out" >"$h/place.out" 2>&1 &&
		   demo_make "$opt" "$d/obj" "$h/RTOSDemo.out" "$h" &&
		   "$RAMPLACE" check --plan "$h/ramtext.ld.plan" "$h/RTOSDemo.out" >"$h/check.out" 2>&1 &&
		   grep -q '^interrupt handlers: 7, reaching [0-9]* function(s), 0 path(s) to flash$' "$h/check.out" &&
		   "$RAMPLACE" check --quiet --plan "$h/ramtext.ld.plan" --ram-handler xPortPendSVHandler --ram-handlers "$h/RTOSDemo.out" &&
		   run "$h/RTOSDemo.out" && cmp -s "$d/flash/RTOSDemo.out.out" "$h/RTOSDemo.out.out" &&
		   [ "$(verdict "$h/RTOSDemo.out")" = "$(verdict "$d/flash/RTOSDemo.out")" ]; then
			pass "$opt: --ram-handlers: $(grep -o 'reaching [0-9]* function(s)' "$h/check.out") from 7 handlers all run from RAM, check proves it, same output"
		else
			cat "$h/place.out" "$h/check.out" 2>/dev/null | tail -8; fail "$opt: --ram-handlers"
		fi
		# the kernel's two handlers' worst entry stall (the plugin's entry=: stall cycles in the
		# first 16 instructions of each invocation, ws:5), in flash and with --ram-handlers
		entry_of() { # ELF NAME: the address without a Thumb symbol's bit 0 ("" when no such symbol)
			local a
			a=$(nm_addr "$1" "$2")
			[ -n "$a" ] && printf '%x' $((0x$a & ~1))
		}
		# every handler measured (one left out that preempts a measured one would end its
		# invocation early), as callgraph --handlers gives the plugin's options
		entries_of() { "$RAMPLACE" callgraph --handlers "$1" | sed -n 's/^plugin: /,/p'; }
		run "$d/flash/RTOSDemo.out" "$d/entry-flash.counts" "$(entries_of "$d/flash/RTOSDemo.out")" || true
		run "$h/RTOSDemo.out" "$h/entry.counts" "$(entries_of "$h/RTOSDemo.out")" || true
		for hname in xPortPendSVHandler xPortSysTickHandler; do
			# "ramplace-qemu: entry 0xADDR: worst N stall cycles ..., K invocations": N and K
			b=$(awk -v a="0x$(entry_of "$d/flash/RTOSDemo.out" "$hname"):" '$3 == a { print $5, $(NF-1); exit }' "$d/flash/RTOSDemo.out.err")
			r=$(awk -v a="0x$(entry_of "$h/RTOSDemo.out" "$hname"):" '$3 == a { print $5, $(NF-1); exit }' "$h/RTOSDemo.out.err")
			# with its code in RAM what is left is the vector's read (the table stays in flash):
			# one word, at most 5 cycles at 5 wait states
			check "$opt: $hname's worst entry stall: ${b% *} cycles from flash, ${r% *} with --ram-handlers (the vector read alone, <= 5 wanted; invocations ${b#* }, ${r#* })" \
				sh -c "[ -n '$b' ] && [ -n '$r' ] && [ '${b% *}' -gt 5 ] && [ '${r% *}' -le 5 ] && [ '${b#* }' -gt 0 ] && [ '${r#* }' -gt 0 ]"
		done
		# the same measurements through import and report (version 5's "h" lines): report
		# --before sets the flash build's beside the RAM-handlers build's, and its figures are
		# the plugin's own
		rm -f "$d/entry-flash.db" "$h/entry.db"
		if "$RAMPLACE" import --quiet "$d/entry-flash.db" "$d/flash/RTOSDemo.out" "$d/entry-flash.counts" &&
		   "$RAMPLACE" import --quiet "$h/entry.db" "$h/RTOSDemo.out" "$h/entry.counts" &&
		   "$RAMPLACE" report --before "$d/entry-flash.db" "$h/entry.db" >"$h/report.out" 2>&1; then
			sed -n '/^Interrupt handler entries/,$p' "$h/report.out"
			for hname in xPortPendSVHandler xPortSysTickHandler; do
				# the whole invocations (entry to exception return) were read too, in both builds
				inv=$(awk -v n="$hname" '/^Interrupt handler entries/ { t = 1 } t && $9 == n { print $4, $8; exit }' "$h/report.out")
				check "$opt: report --before: $hname's worst whole invocation with --ram-handlers, then from flash: $inv stall cycles (both measured, from flash above 0)" \
					awk -v a="${inv% *}" -v b="${inv#* }" 'BEGIN { exit !(a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && b > 0) }'
				# "INVOCATIONS WORST MEAN INVOCATION  BEFORE: INVOCATIONS WORST MEAN INVOCATION  NAME"
				row=$(awk -v n="$hname" '/^Interrupt handler entries/ { t = 1 } t && $9 == n { print $1, $2, $5, $6; exit }' "$h/report.out")
				b=$(awk -v a="0x$(entry_of "$d/flash/RTOSDemo.out" "$hname"):" '$3 == a { print $(NF-1), $5; exit }' "$d/flash/RTOSDemo.out.err")
				r=$(awk -v a="0x$(entry_of "$h/RTOSDemo.out" "$hname"):" '$3 == a { print $(NF-1), $5; exit }' "$h/RTOSDemo.out.err")
				check "$opt: report --before: $hname's invocations and worst entry stall with --ram-handlers, then from flash: $row (the plugin said $r and $b)" \
					[ -n "$row" -a "$row" = "$r $b" ]
			done
		else
			cat "$h/report.out" 2>/dev/null | tail -5; fail "$opt: import and report of the entry runs"
		fi
	fi
done
finish
